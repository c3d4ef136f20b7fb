package org.rdmacm4j.cm.core.internal.loop;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The default callback executor of an {@code RdmaCm}: every task on a virtual thread of its own,
 * as {@code Executors.newThreadPerTaskExecutor(Thread.ofVirtual()...factory())} runs them, for less
 * work on the thread that submits, which is the dispatcher (one task per settled future and per
 * callback batch of an id).
 *
 * <p>What it leaves out, and why: the JDK's executor names each thread from a counter (a string
 * built per task) and keeps every live thread in a concurrent set (an insert on the dispatcher and a
 * removal on the carrier per task), for {@code shutdownNow} and thread dumps of the executor, which
 * rdmacm4j never uses. Under C1 those two were 3.4 % of the dispatcher's Java samples in a warm
 * connect + close cycle (JFR, docs/benchmarks.md). Here every thread carries one name
 * ({@code <rdmacm>-callback}, what thread dumps show) and a counter of running tasks is all that
 * {@link #awaitTermination} needs.
 *
 * <p>Contract kept from the JDK's executor, which {@link SerialExecutor} relies on: a task given
 * after {@link #shutdown} is refused with {@link RejectedExecutionException} (the serial executor
 * then runs it on the caller, so no completion is lost); tasks given before run to the end. Any
 * thread may call any method.
 */
public final class CallbackThreads implements Executor {
    private final ThreadFactory threads;
    /** Tasks accepted and not yet finished, plus one transiently per {@link #execute} in progress. */
    private final AtomicInteger running = new AtomicInteger();
    private volatile boolean shutdown;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();

    public CallbackThreads(String name) {
        this.threads = Thread.ofVirtual().name(name).factory();
    }

    @Override
    public void execute(Runnable task) {
        if (task == null) {
            throw new NullPointerException("task");
        }
        running.incrementAndGet();
        // Counted before the check, so awaitTermination cannot see 0 between them and return while
        // this task still starts.
        if (shutdown) {
            finished();
            throw new RejectedExecutionException("the callback executor is shut down (RdmaCm closed)");
        }
        try {
            threads.newThread(new Counted(task)).start();
        } catch (RuntimeException | Error e) {
            finished();
            throw e instanceof RejectedExecutionException r ? r : new RejectedExecutionException("cannot start a callback thread", e);
        }
    }

    /**
     * A task that counts itself finished when it ends. A named class, not a capturing lambda: under
     * C1 each capturing lambda made is a native VM call (docs/benchmarks.md, "Capturing lambdas under C1").
     */
    private final class Counted implements Runnable {
        private final Runnable task;

        Counted(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            try {
                task.run();
            } finally {
                finished();
            }
        }
    }

    /** Refuses tasks from now on; those accepted run to the end. Idempotent. */
    public void shutdown() {
        shutdown = true;
    }

    /**
     * Waits until every accepted task has finished, at most {@code timeout}. True if they have.
     * Call {@link #shutdown} first, or tasks may keep coming.
     */
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long left = unit.toNanos(timeout);
        lock.lock();
        try {
            while (running.get() != 0) {
                if (left <= 0) {
                    return false;
                }
                left = idle.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Tasks accepted and not yet finished (tests, diagnostics). */
    public int running() {
        return running.get();
    }

    private void finished() {
        // Signals only at a shutdown that leaves nothing running: while the RdmaCm is open, tasks
        // never touch the lock.
        if (running.decrementAndGet() == 0 && shutdown) {
            lock.lock();
            try {
                idle.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
