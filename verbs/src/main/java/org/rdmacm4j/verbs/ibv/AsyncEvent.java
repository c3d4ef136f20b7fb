package org.rdmacm4j.verbs.ibv;

/**
 * A copy of one {@code struct ibv_async_event}, taken before it was acked, with the element
 * union decoded by the event type: exactly one of queuePair / completionQueue /
 * sharedReceiveQueue / portNumber is meaningful (see {@link AsyncEventType#element()}).
 *
 * @param type the event
 * @param queuePair the QP for QP events (null if it is not a live wrapper of this JVM)
 * @param completionQueue the CQ for CQ_ERR
 * @param sharedReceiveQueue the SRQ for SRQ events
 * @param portNumber the port for port events, else 0
 * @param elementAddress the native address of the QP/CQ/SRQ/WQ (0 for port and device events)
 */
public record AsyncEvent(AsyncEventType type, QueuePair queuePair, CompletionQueue completionQueue,
                         SharedReceiveQueue sharedReceiveQueue, int portNumber, long elementAddress) {
}
