package org.rdmacm4j.it.support;

import java.lang.management.ManagementFactory;

/**
 * Bytes the JVM has allocated on the calling thread so far (HotSpot's per-thread TLAB
 * accounting), for tests that prove a data path allocates nothing per operation.
 */
public final class ThreadAllocations {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private ThreadAllocations() {
    }

    /** Allocated bytes of the current thread; compare two readings around the code under test. */
    public static long currentThread() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().threadId());
    }
}
