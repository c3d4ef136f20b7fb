package org.rdmacm4j.cm.core.internal.loop;

/**
 * Something the {@link TimerQueue} arms machine timers for (one rdma_cm_id's driver): it carries
 * its armed timers, at most one per timer kind, as a short list of the queue's entries, so that
 * arming and cancelling allocate nothing (the entries are the queue's, recycled). Dispatcher thread only.
 */
public abstract class TimerOwner {
    /**
     * The first of its armed timers, linked through {@link TimerEntry#nextArmed}; used by TimerQueue
     * only. A list, not a slot array per TimerKind: an id has two or three timers armed at most, and
     * the array was 56 bytes made per id.
     */
    TimerEntry armed;
}
