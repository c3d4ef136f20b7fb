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

    /** Allocated bytes of every live thread whose name starts with {@code prefix}, added up. */
    public static long threadsNamed(String prefix) {
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                sum += THREADS.getThreadAllocatedBytes(t.threadId());
            }
        }
        return sum;
    }

    /** Allocated bytes of the current thread; compare two readings around the code under test. */
    public static long currentThread() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().threadId());
    }
}
