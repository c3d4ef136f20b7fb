package org.rdmacm4j.cm.core.internal.id;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;

/**
 * The threads parked in one CmFuture's get/join until the future is claimed, and the settle the
 * dispatcher may ask one of them to run on its way out (CmFuture.settleThrough,
 * {@link SerialExecutor#helpSettles}). A Treiber stack of nodes, newest first. Nothing is missed
 * between a waiter and the thread that claims the future: the waiter pushes its node, then reads
 * the claim; the claimer sets the claim, then reads CmFuture's {@code parked} and this stack; every
 * one of those accesses is volatile or a CAS, so one of the two sees the other.
 *
 * <p>One per future that a thread has had to wait on, made by that first waiter (CmFuture's
 * {@code parkedWaiters}), not with the future: most futures are never waited on and keep one null
 * field where every future had two (the stack's head and the executor to help), and a waited-on
 * future pays for this object once, on the waiting thread, beside the node every wait pushes
 * anyway; the dispatcher allocates nothing here. An object rather than static helpers over
 * CmFuture's fields because those would need CmFuture's VarHandles handed in (no longer constants
 * to the JIT) or would name CmFuture, and the two files must not use each other (LayersTest).
 */
final class ParkedWaiters {
    /** What {@link #await} returns when an interruptible wait was interrupted (never a claim). */
    static final Object INTERRUPTED = new Object();

    /**
     * A thread blocked in get/join while nothing is claimed; {@code thread} is cleared when it leaves.
     * {@code role} is WAITING until either the thread leaves (LEFT) or the dispatcher asks it to
     * settle the future on its way out (HELPS); one CAS decides, so the settle is never left to a
     * thread that has already gone.
     */
    private static final class Waiter {
        volatile Thread thread;
        final Waiter next;
        @SuppressWarnings("unused")   // through ROLE
        volatile int role;

        Waiter(Thread thread, Waiter next) {
            this.thread = thread;
            this.next = next;
        }
    }

    private static final int WAITING = 0;
    private static final int LEFT = 1;
    private static final int HELPS = 2;

    private static final VarHandle TOP;
    private static final VarHandle ROLE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            TOP = l.findVarHandle(ParkedWaiters.class, "top", Waiter.class);
            ROLE = l.findVarHandle(Waiter.class, "role", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Threads parked in {@link #await}, newest first (a Treiber stack, nodes never removed). */
    @SuppressWarnings("unused")   // through TOP
    private volatile Waiter top;
    /** The serial executor a waiter asked to help settles ({@link #askOneToHelp}); written before the ask. */
    private volatile SerialExecutor helpWith;

    /**
     * Parks the calling thread until {@code claimOf} gives {@code future}'s claim (not null: by a
     * post or any other completion) and returns it; null when {@code deadline} passed first
     * ({@code deadline}: 0 = none, else a {@code System.nanoTime()} instant), {@link #INTERRUPTED}
     * when an interruptible wait was interrupted (the flag cleared, as {@code get} does). An
     * uninterruptible wait keeps the interrupt for the caller. {@code future} is the blocker thread
     * dumps show. The thread that claims the future must {@link #unparkAll} after its claim. A
     * thread in get/join (never a library thread: CmFuture refuses those).
     */
    <F> Object await(F future, Function<? super F, Object> claimOf, boolean interruptible, long deadline) {
        Thread me = Thread.currentThread();
        Waiter w;
        Waiter head;
        do {
            head = top;
            w = new Waiter(me, head);
        } while (!TOP.compareAndSet(this, head, w));
        boolean interrupted = false;
        boolean claimed = false;
        try {
            Object c;
            while ((c = claimOf.apply(future)) == null) {
                if (deadline == 0L) {
                    LockSupport.park(future);
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0L) {
                        return null;
                    }
                    LockSupport.parkNanos(future, left);
                }
                if (Thread.interrupted()) {
                    if (interruptible) {
                        return INTERRUPTED;
                    }
                    interrupted = true;
                }
            }
            claimed = true;
            return c;
        } finally {
            w.thread = null;
            if (!ROLE.compareAndSet(w, WAITING, LEFT)) {
                helpWith.helpSettles();   // asked (HELPS): the dispatcher counts on this thread for the settle
            }
            if (!claimed) {
                // Leaving undecided (deadline, interrupt): drop our node if it is still the newest, so
                // a caller polling with get(timeout) does not grow the stack; others stay, cleared.
                TOP.compareAndSet(this, w, w.next);
            }
            if (interrupted) {
                me.interrupt();
            }
        }
    }

    /**
     * Asks one thread still parked here to settle on its way out, by running {@code callbacks}'
     * {@link SerialExecutor#helpSettles}; false if none is (or all left). Dispatcher thread.
     */
    boolean askOneToHelp(SerialExecutor callbacks) {
        helpWith = callbacks;
        for (Waiter w = top; w != null; w = w.next) {
            if (w.thread != null && ROLE.compareAndSet(w, WAITING, HELPS)) {
                return true;
            }
        }
        return false;
    }

    /** Unparks the threads parked here. Any thread. */
    void unparkAll() {
        for (Waiter w = top; w != null; w = w.next) {
            Thread t = w.thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }
}
