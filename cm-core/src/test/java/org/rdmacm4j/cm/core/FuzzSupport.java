package org.rdmacm4j.cm.core;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Shared by the *FuzzTest classes of this module (parsers of bytes a peer controls): the
 * per-thread allocation counter for their "allocates no more than its input" checks, and the
 * line each prints with the number of inputs it tried. Their tries are jqwik's default
 * ({@code jqwik.tries.default} in src/test/resources/junit-platform.properties); a campaign sets
 * it: {@code ./mvnw -o -pl cm-core test -Dtest='*FuzzTest' -Djqwik.tries.default=1000000}.
 */
public final class FuzzSupport {
    private FuzzSupport() { }

    /** Bytes the current thread allocated so far ({@link ThreadAllocation}). */
    public static long allocatedBytes() {
        return ThreadAllocation.bytes(Thread.currentThread().threadId());
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
