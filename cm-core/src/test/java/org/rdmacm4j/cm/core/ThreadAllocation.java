package org.rdmacm4j.cm.core;

import java.lang.reflect.Method;

/**
 * The JVM's per-thread allocation counter (com.sun.management.ThreadMXBean#getThreadAllocatedBytes),
 * called reflectively: the tests run inside module org.rdmacm4j.cm.core, which does not read
 * jdk.management (and should not for a test); core reflection needs no read edge. Looked up once.
 * Used by the fuzz tests' allocation bounds and the dispatcher's cost checks.
 */
public final class ThreadAllocation {
    private static final Object THREADS;
    private static final Method ALLOCATED;

    static {
        try {
            THREADS = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean")
                    .getMethod("getThreadAllocatedBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ThreadAllocation() { }

    /** Bytes thread {@code threadId} has allocated so far. */
    public static long bytes(long threadId) {
        try {
            return (long) ALLOCATED.invoke(THREADS, threadId);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("per-thread allocation counter unavailable", e);
        }
    }
}
