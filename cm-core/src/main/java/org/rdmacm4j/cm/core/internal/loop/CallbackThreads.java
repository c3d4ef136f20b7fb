package org.rdmacm4j.cm.core.internal.loop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The default callback executor of an {@code RdmaCm}: platform threads that are handed tasks one at
 * a time, a new one whenever none is idle, so a callback that blocks (a {@code join()} on another
 * connect) never holds up another connection's callbacks, as a thread per task would not either.
 * Idle threads park (no spinning) and end after {@link #KEEP_ALIVE_NANOS} without work, or at
 * {@link #shutdown}.
 *
 * <p>Why not a virtual thread per task (what it was until issue 21's instruction counts): the
 * virtual-thread scheduler's carriers spin before they park ({@code ForkJoinPool.deactivate}: up to
 * 256 {@code onSpinWait} rounds over the pool's queues each time a carrier runs dry), and the
 * dispatcher gives ~3 tasks per warm connection (a settled future, a callback batch); in the guest,
 * under C1, that spin alone was 21 k of rdmacm4j's ~340 k user instructions per connection, and a
 * virtual thread's start, mount and unmount some 10 k more (docs/benchmarks.md, "The callback
 * executor"). A parked platform worker is woken by one {@code unpark} and goes back to sleep at
 * once. What it costs instead: a thread's start (tens of microseconds) when a burst of tasks finds
 * no idle worker, and thread-local values that outlive one callback (documented in docs/api.md).
 *
 * <p>The JDK's cached thread pool does the same job with a {@code SynchronousQueue}, whose idle
 * threads spin too (128 rounds in {@code LinkedTransferQueue.awaitMatch}) and whose hand-off makes a
 * node per task; here a task goes straight into an idle worker's field.
 *
 * <p>Contract kept, which {@link SerialExecutor} relies on: a task given after {@link #shutdown} is
 * refused with {@link RejectedExecutionException} (the serial executor then runs it on the caller,
 * so no completion is lost); tasks given before run to the end. A task that throws is reported to
 * its thread's uncaught-exception handler and the worker goes on. Every thread is a daemon named
 * {@code <rdmacm>-callback}. Any thread may call any method.
 */
public final class CallbackThreads implements Executor {
    /** How long an idle worker waits for a task before it ends: bursts reuse threads, quiet spells free them. */
    static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final String name;
    private final long keepAliveNanos;
    /** Tasks accepted and not yet finished, plus one transiently per {@link #execute} in progress. */
    private final AtomicInteger running = new AtomicInteger();
    /** Idle workers, the most recently idle first: the warmest is reused and the others can time out. */
    private final ConcurrentLinkedDeque<Worker> idle = new ConcurrentLinkedDeque<>();
    /** Workers started and not yet ended (tests, diagnostics). */
    private final AtomicInteger threads = new AtomicInteger();
    private volatile boolean shutdown;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition terminated = lock.newCondition();

    public CallbackThreads(String name) {
        this(name, KEEP_ALIVE_NANOS);
    }

    /** With another idle time-out (tests). */
    CallbackThreads(String name, long keepAliveNanos) {
        this.name = name;
        this.keepAliveNanos = keepAliveNanos;
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
        Worker w;
        while ((w = idle.pollFirst()) != null) {
            if (w.hand(task)) {
                return;
            }
            // It timed out or was retired by shutdown between going idle and now: try the next one.
        }
        threads.incrementAndGet();   // before anything that can throw, so the catch's decrement always matches
        try {
            Worker started = new Worker(task);
            Thread t = Thread.ofPlatform().name(name).daemon(true).unstarted(started);
            started.thread = t;
            t.start();
        } catch (RuntimeException | Error e) {
            threads.decrementAndGet();
            finished();
            throw e instanceof RejectedExecutionException r ? r : new RejectedExecutionException("cannot start a callback thread", e);
        }
    }

    /** Refuses tasks from now on and lets idle workers end; tasks accepted run to the end. Idempotent. */
    public void shutdown() {
        shutdown = true;
        Worker w;
        while ((w = idle.pollFirst()) != null) {
            w.retire();
        }
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
                left = terminated.awaitNanos(left);
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

    /** Worker threads started and not yet ended (tests, diagnostics). */
    public int threads() {
        return threads.get();
    }

    private void finished() {
        // Signals only at a shutdown that leaves nothing running: while the RdmaCm is open, tasks
        // never touch the lock.
        if (running.decrementAndGet() == 0 && shutdown) {
            lock.lock();
            try {
                terminated.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * One worker thread. Its state says who may touch its task field: BUSY, its own thread (it runs
     * tasks); IDLE, it waits in {@link #idle} and whoever wins IDLE → BUSY hands it the next task;
     * RETIRED (from IDLE only, by its own timeout or by {@link #shutdown}), it ends.
     */
    private final class Worker implements Runnable {
        private static final int BUSY = 0;
        private static final int IDLE = 1;
        private static final int RETIRED = 2;
        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Worker.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused")   // through STATE
        private volatile int state = BUSY;
        /** The task handed over while IDLE; taken (set back to null) by the worker's own thread. */
        private volatile Runnable handed;
        private final Runnable first;
        /** Set before the thread starts; read by {@link #hand} to unpark it. */
        Thread thread;

        Worker(Runnable first) {
            this.first = first;
        }

        /** Gives this idle worker {@code task}; false if it is no longer idle (timed out, retired). */
        boolean hand(Runnable task) {
            if (!STATE.compareAndSet(this, IDLE, BUSY)) {
                return false;
            }
            handed = task;
            LockSupport.unpark(thread);
            return true;
        }

        /** Ends this worker if it is idle (shutdown). */
        void retire() {
            if (STATE.compareAndSet(this, IDLE, RETIRED)) {
                LockSupport.unpark(thread);
            }
        }

        @Override
        public void run() {
            try {
                Runnable task = first;
                while (task != null) {
                    task = runThenAwaitNext(task);
                }
            } finally {
                threads.decrementAndGet();
            }
        }

        /**
         * One iteration of {@link #run}'s loop: runs {@code task}, then waits for the next one (null:
         * the worker ends). A method of its own because {@code run} is entered once and so stays
         * interpreted under C1, where each call it makes into compiled code costs (one call per task
         * now, not four: see EventLoop.runTurns).
         */
        private Runnable runThenAwaitNext(Runnable task) {
            runOne(task);
            // Idle before the task counts as finished: whoever sees it finished (a test, the next
            // task of a burst) finds this worker ready rather than starting another.
            boolean waiting = goIdle();
            finished();
            return waiting ? awaitNext() : null;
        }

        private void runOne(Runnable task) {
            try {
                task.run();
            } catch (Throwable e) {   // tasks guard themselves (Callbacks.safely); this is the last net
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            } finally {
                Thread.interrupted();   // an interrupt meant for this callback ends with it
            }
        }

        /** Offers this worker to the next task; false if the executor is shut down (the worker ends). */
        private boolean goIdle() {
            if (shutdown) {
                return false;
            }
            STATE.setVolatile(this, IDLE);
            idle.offerFirst(this);
            if (shutdown) {   // shutdown ran between the check above and the offer: nobody would retire us
                retire();
            }
            return true;
        }

        /** Waits for a handed task; null when this worker is to end (retired or timed out). */
        private Runnable awaitNext() {
            long deadline = System.nanoTime() + keepAliveNanos;
            while (true) {
                Runnable task = handed;
                if (task != null) {
                    handed = null;
                    return task;
                }
                int s = (int) STATE.getVolatile(this);
                if (s == RETIRED) {
                    idle.removeFirstOccurrence(this);   // shutdown polled it already; a timeout did not
                    return null;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 && s == IDLE) {
                    retire();   // our own timeout; a hand() that wins the race instead makes us BUSY
                    continue;
                }
                // Park until handed a task, retired or timed out. (BUSY with no task yet: hand() is
                // between its CAS and its write, and its unpark follows.)
                Thread.interrupted();   // a stray interrupt would make every park return at once
                LockSupport.parkNanos(this, Math.max(left, 1_000));
            }
        }
    }
}
