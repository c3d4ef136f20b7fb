package org.rdmacm4j.cm.core;

/**
 * Sizes of the queue pair, completion queue and completion channel each connection owns.
 *
 * @param maxSendWr     send queue depth
 * @param maxRecvWr     receive queue depth
 * @param maxSendSge    scatter/gather entries per send
 * @param maxRecvSge    scatter/gather entries per receive
 * @param maxInlineData bytes a send may carry inline (0: none)
 * @param cqSize        completion queue entries; must hold both queues' completions
 */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData,
                             int cqSize) {
    public QpCapabilities {
        positive("maxSendWr", maxSendWr);
        positive("maxRecvWr", maxRecvWr);
        positive("maxSendSge", maxSendSge);
        positive("maxRecvSge", maxRecvSge);
        if (maxInlineData < 0) {
            throw new IllegalArgumentException("maxInlineData must be >= 0, was " + maxInlineData);
        }
        if (cqSize < maxSendWr + maxRecvWr) {
            throw new IllegalArgumentException("cqSize " + cqSize + " cannot hold maxSendWr + maxRecvWr = "
                    + (maxSendWr + maxRecvWr) + " completions");
        }
    }

    /** 64 sends and 64 receives of one SGE each, no inline data, a CQ of 128. */
    public static QpCapabilities defaults() {
        return new QpCapabilities(64, 64, 1, 1, 0, 128);
    }

    private static void positive(String name, int v) {
        if (v < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + v);
        }
    }
}
