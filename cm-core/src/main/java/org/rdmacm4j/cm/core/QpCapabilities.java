package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Sizes of the queue pair, completion queue and completion channel each connection owns.
 *
 * @param maxSendWr     send queue depth
 * @param maxRecvWr     receive queue depth
 * @param maxSendSge    scatter/gather entries per send
 * @param maxRecvSge    scatter/gather entries per receive
 * @param maxInlineData bytes a send may carry inline (0: none)
 * @param cqSize        completion queue entries; must hold both queues' completions
 * @param oneSidedDepth one-sided operations (RDMA WRITE/READ, atomics) posted at once, 1 to
 *                      {@value #MAX_ONE_SIDED_DEPTH}; more wait in a queue. The send queue reserves
 *                      this many entries on top of {@code maxSendWr}, so a deep one costs kernel
 *                      memory on every connection made with it; default {@value #DEFAULT_ONE_SIDED_DEPTH}
 */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData,
                             int cqSize, int oneSidedDepth) {
    /** One-sided operations in flight per connection unless asked otherwise. */
    public static final int DEFAULT_ONE_SIDED_DEPTH = 16;
    /** The deepest one-sided window a connection may ask (rxe's send queue holds 16,384 entries in all). */
    public static final int MAX_ONE_SIDED_DEPTH = 4096;

    public QpCapabilities {
        checkArgument(oneSidedDepth >= 1 && oneSidedDepth <= MAX_ONE_SIDED_DEPTH,
                "oneSidedDepth must be in [1, %s], was %s", MAX_ONE_SIDED_DEPTH, oneSidedDepth);
        positive("maxSendWr", maxSendWr);
        positive("maxRecvWr", maxRecvWr);
        positive("maxSendSge", maxSendSge);
        positive("maxRecvSge", maxRecvSge);
        checkArgument(maxInlineData >= 0, "maxInlineData must be >= 0, was %s", maxInlineData);
        checkArgument(cqSize >= maxSendWr + maxRecvWr,
                "cqSize %s cannot hold maxSendWr + maxRecvWr = %s completions", cqSize, (maxSendWr + maxRecvWr));
    }

    /** With the default one-sided depth ({@value #DEFAULT_ONE_SIDED_DEPTH}). */
    public QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData,
                          int cqSize) {
        this(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, cqSize, DEFAULT_ONE_SIDED_DEPTH);
    }

    /** These capabilities with {@code depth} one-sided operations in flight (checked as the constructor does). */
    public QpCapabilities withOneSidedDepth(int depth) {
        return new QpCapabilities(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, cqSize, depth);
    }

    /** 64 sends and 64 receives of one SGE each, no inline data, a CQ of 128. */
    public static QpCapabilities defaults() {
        return DEFAULTS;
    }

    /** One instance: a record is immutable, and every accepted connection without options of its own asks for it. */
    private static final QpCapabilities DEFAULTS = new QpCapabilities(64, 64, 1, 1, 0, 128);

    private static void positive(String name, int v) {
        checkArgument(v >= 1, "%s must be at least 1, was %s", name, v);
    }
}
