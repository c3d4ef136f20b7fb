package org.rdmacm4j.cm.core;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Shared by the *FuzzTest classes of this module (parsers of bytes a peer controls): the
 * per-thread allocation counter for their "allocates no more than its input" checks, and the
 * line each prints with the number of inputs it tried. Their tries are jqwik's default
 * ({@code jqwik.tries.default} in src/test/resources/junit-platform.properties); a campaign sets
 * it: {@code ./mvnw -o -pl cm-core test -Dtest='*FuzzTest' -Djqwik.tries.default=1000000}.
 */
public final class FuzzSupport {
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

    private FuzzSupport() { }

    /**
     * Bytes the current thread allocated (com.sun.management.ThreadMXBean, reflectively: the tests
     * run inside module org.rdmacm4j.cm.core, which does not read jdk.management).
     */
    public static long allocatedBytes() {
        try {
            return (long) ALLOCATED.invoke(THREADS, Thread.currentThread().threadId());
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("per-thread allocation counter unavailable", e);
        }
    }

    /**
     * Bytes {@code parse} allocates in steady state: a call above {@code bound} (a first call may
     * load a class or link a lambda) is measured once more and that figure counts.
     */
    public static long steadyAllocation(Runnable parse, long bound) {
        long before = allocatedBytes();
        parse.run();
        long used = allocatedBytes() - before;
        if (used > bound) {
            before = allocatedBytes();
            parse.run();
            used = allocatedBytes() - before;
        }
        return used;
    }

    /** "fuzz <parser>: <n> inputs". */
    public static String report(String parser, AtomicLong n) {
        return String.format("fuzz %-55s %,12d inputs", parser + ":", n.get());
    }
}
