package org.rdmacm4j.cm.core.internal.loop;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * Runs tasks one at a time, in submission order, on a shared executor: how the callbacks and
 * future completions of one connection stay ordered and never concurrent while different
 * connections run in parallel. Any thread may submit.
 *
 * <p>Kept rather than Guava's {@code MoreExecutors.newSequentialExecutor}, which does the same job
 * (issue 20 tried it), because this one is cheaper on the dispatcher's hot path: every id gets one
 * and every callback and future completion goes through one. Measured on JDK 25 (bytes allocated by
 * the submitting thread): 136 bytes per executor made against Guava's 176 (Guava adds a worker
 * object and two counters), and 16 bytes per wake-up of an idle executor against Guava's 24 (its
 * wrapper of the first task). DispatcherCostTest, bytes allocated on the dispatcher per connection
 * (both ends), three runs each: 17,709 / 17,522 / 17,735 with this one, 17,841 / 17,655 / 17,843
 * with Guava's (about +125 bytes, 0.7 %, where the dispatcher's per-step allocation must not grow).
 * Guava's also rethrows a task its executor rejects where this one runs it on the caller (below),
 * which needed a wrapping executor as well. (Those figures are from before the drain task was made
 * once per executor, {@link #drainer}: since then an executor costs 16 bytes more and a wake-up
 * allocates nothing here; the base executor's own allocation is its business.)
 */
public final class SerialExecutor implements Executor {
    private final Executor base;
    /**
     * What a drain on the base executor runs: made once with the executor, not per wake-up (a bound
     * {@code this::drain} per wake-up is, under C1, a native VM call each: docs/benchmarks.md,
     * "Capturing lambdas under C1").
     */
    private final Runnable drainer = new Drainer();
    /**
     * Sized for the few tasks an id has queued at once (it grows if needed): one executor is made
     * per id, and the default 16 slots were 56 bytes more per id on the dispatcher.
     */
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>(3);
    private boolean running;
    /** Tasks given and not yet finished that are not {@link Settle}s. Guarded by queue. */
    private int callbacks;

    /**
     * A task that only completes a future whose outcome its waiters already have (CmFuture.settle):
     * it runs in its turn like any task, but does not count in {@link #callbacksDone()}.
     */
    @FunctionalInterface
    public interface Settle extends Runnable { }

    public SerialExecutor(Executor base) {
        this.base = base;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (queue) {
            queue.add(task);
            if (!(task instanceof Settle)) {
                callbacks++;
            }
            if (running) {
                return;
            }
            running = true;
        }
        drainOnBase();
    }

    /**
     * Queues a settle without starting a drain, for a thread that will {@link #helpSettles help}:
     * true if nothing drains now, so the caller must either have that helper or {@link #startDrain};
     * false if a running drain will run it in its turn. Dispatcher thread (CmFuture.settleThrough).
     */
    public boolean queueSettle(Settle task) {
        synchronized (queue) {
            queue.add(task);
            return !running;
        }
    }

    /** Starts a drain on the base executor unless one runs or nothing is queued: the fallback of {@link #queueSettle}. */
    public void startDrain() {
        synchronized (queue) {
            if (running || queue.isEmpty()) {
                return;
            }
            running = true;
        }
        drainOnBase();
    }

    /**
     * Runs the settles at the head of the queue on the calling thread, unless a drain is running; a
     * callback behind them goes to a drain on the base executor as usual, so this never runs a
     * callback. For the thread that was parked on a future whose settle the dispatcher queued with
     * {@link #queueSettle} (CmFuture): it wakes anyway, and settling there costs no callback thread.
     * Any thread but the dispatcher.
     */
    public void helpSettles() {
        synchronized (queue) {
            if (running) {
                return;
            }
            running = true;
        }
        while (true) {
            Runnable next;
            synchronized (queue) {
                next = queue.peek();
                if (next == null) {
                    running = false;
                    return;
                }
                if (!(next instanceof Settle)) {
                    break;   // still running: the drain below takes over
                }
                queue.poll();
            }
            try {
                next.run();
            } catch (RuntimeException | Error e) {
                drainOnBase();   // still running: the rest is the drain's, and the caller hears of the throw
                throw e;
            }
        }
        drainOnBase();
    }

    /** Runs the queue on the base executor; the caller has set {@code running}. */
    private void drainOnBase() {
        try {
            base.execute(drainer);
        } catch (RuntimeException rejected) {
            // The executor is shut down (RdmaCm closing): run here rather than lose a completion.
            drain();
        }
    }

    /**
     * True if every task given so far that is not a {@link Settle} has finished running. Read by the
     * dispatcher, which gives an id's callbacks and completions, it stays true until a callback is
     * given again: what lets the dispatcher post a future's outcome to its waiters ahead of the
     * future's completion without overtaking a callback of the same id (CmFuture). Settles still
     * queued only complete futures that were posted before, in order. Any thread.
     */
    public boolean callbacksDone() {
        synchronized (queue) {
            return callbacks == 0;
        }
    }

    private final class Drainer implements Runnable {
        @Override
        public void run() {
            drain();
        }
    }

    private void drain() {
        Runnable last = null;
        while (true) {
            Runnable next;
            synchronized (queue) {
                if (last != null && !(last instanceof Settle)) {
                    callbacks--;
                }
                next = queue.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            last = next;
            next.run();   // tasks guard themselves (Callbacks.safely); a throw here would stall the queue
        }
    }
}
