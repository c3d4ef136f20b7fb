package org.rdmacm4j.verbs.internal;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Makes close safe against calls that other threads may make at any time (an eventfd's
 * signal, an epoll's add and remove): close refuses new calls, then waits for those in flight
 * to return, and only then releases the descriptor. Without it a call that passed its
 * "still open?" check could reach the kernel after close(2), on a descriptor number that the
 * process may already have reused for something else.
 *
 * <p>Only for calls that return soon (a non-blocking read or write, epoll_ctl, an epoll_wait
 * with a bounded timeout): close waits until they are done. No allocation: one atomic counter,
 * with a high bit for "closing".
 */
public final class CallGuard {
    private static final int CLOSING = 1 << 30;

    private final AtomicInteger state = new AtomicInteger();

    /** Enters a call: false (and nothing entered) if the object is closing or closed. */
    public boolean enter() {
        if ((state.incrementAndGet() & CLOSING) != 0) {
            state.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Leaves a call that {@link #enter()} admitted. */
    public void exit() {
        state.decrementAndGet();
    }

    /** Refuses every later {@link #enter()} and waits until the calls in flight have left. Once. */
    public void shut() {
        state.addAndGet(CLOSING);
        for (int spins = 0; state.get() != CLOSING; spins++) {
            if (spins < 1_000) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);   // an epoll_wait in flight: up to its timeout
            }
        }
    }

    /**
     * {@link #enter()}, or an IllegalStateException naming the object (its own "closed" message if
     * it is already closed): the use-after-close check of every guarded call.
     */
    public void enterOrThrow(Ownership ownership) {
        if (!enter()) {
            ownership.ensureOpen();
            throw new IllegalStateException(ownership + " is closed");
        }
    }

    /**
     * Closes a guarded descriptor once: shuts the guard, then close(2). close(2) releases the
     * descriptor even when it reports an error, so the object is closed either way and the error
     * is thrown afterwards. Idempotent through {@code ownership}.
     */
    public void closeDescriptor(Ownership ownership, int fd) {
        int[] err = {0};
        ownership.close(() -> {
            shut();
            err[0] = SysLib.close(fd);
        });
        if (err[0] != 0) {
            throw Native.failure("close", err[0]);
        }
    }
}
