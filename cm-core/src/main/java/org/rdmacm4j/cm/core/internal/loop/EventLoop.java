package org.rdmacm4j.cm.core.internal.loop;

import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.core.internal.loop.TaskQueue.Task;

/**
 * The dispatcher's loop and nothing else: the thread, the task and answer queues with their door,
 * the wake-up, the timer heap and the turn clock. It knows nothing of connections, listeners or
 * endpoints; what a turn does with native events and due machine timers is its {@link Turn}'s.
 *
 * <p>One turn: wait (epoll, bounded by the next timer) until the selector has events, work is
 * queued or a timer is due; read the clock; let the turn drain the native events (to EAGAIN);
 * run every poller answer; run up to {@link #TASKS_PER_TURN} user tasks; read the clock again;
 * run the answers those produced; fire due timers.
 *
 * <p>Threads: {@link #submit}, {@link #execute}, {@link #answer}, {@link #submitAnswer},
 * {@link #requestStop} and the read-only accessors may be called from any thread; everything else
 * (timers, the turn clock) belongs to the loop thread.
 */
public final class EventLoop {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** The longest epoll wait: bounds how late a stop request is seen even if wakeup were lost. */
    private static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /**
     * The most user/API tasks run per loop turn, between two reads of the CM events and poller
     * answers. Small enough that the first connect of a burst is not held up by the burst; large
     * enough that a quiet dispatcher still runs a batch per wake-up. 64, not 16: in one guest boot
     * (benchmarks/run-compare.sh, cmtime twin N = 500 pipelined, 2 reps each) 16 gave 88 and 69
     * connects/s, 64 gave 98 and 102 (each turn costs an epoll_wait and an event read).
     */
    public static final int TASKS_PER_TURN = 64;

    /** Where the loop waits: the native port's epoll and its eventfd. */
    public interface Selector {
        /** Waits until an event is ready, {@link #wakeup()} is called, or {@code timeoutNanos} passed. */
        void await(long timeoutNanos);

        /** Makes a running or the next {@link #await} return at once. Any thread. */
        void wakeup();
    }

    /** What one turn does besides running queued work. Loop thread. */
    public interface Turn {
        /** Drains every ready native event (to EAGAIN) without waiting. */
        void events();

        /** Fires the machine timers due at {@code now} (the loop's own tasks run after). */
        void timers(long now);

        /**
         * The loop ended: give up whatever is still live. {@code cause} is null after a requested
         * stop (the queued work has run), else what killed the loop.
         */
        void stopped(Throwable cause);

        /** Frees the selector's native objects; last thing the loop thread does. */
        void close();
    }

    private static final VarHandle SLEEPING;

    static {
        try {
            SLEEPING = MethodHandles.lookup().findVarHandle(EventLoop.class, "sleeping", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Selector selector;
    private final LongSupplier clock;
    private final TimerQueue<?> timers;
    private Turn turn;
    /** User and API work, run at most {@link #TASKS_PER_TURN} per turn. Closed: the door is shut. */
    private final TaskQueue tasks = new TaskQueue();
    /**
     * Answers from the completion pollers (a QP drained, a CQ quiesced, a flush to judge): they carry
     * deadlines of their own (the machine's quiesce timer), so they never wait behind user tasks;
     * so do the application's accepts of requests already offered (the listener's decision deadline).
     * Drained in full every loop turn, before timers. Closed together with {@link #tasks}.
     */
    private final TaskQueue answers = new TaskQueue();
    /** The owner of answers that owe no future (one per loop, not one per answer): nobody reads it. */
    private final CompletableFuture<Void> noOwner = new CompletableFuture<>();
    private final LibraryThread thread;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    /**
     * Whether the loop thread is in, or about to enter, {@link Selector#await} with a timeout: set
     * before the loop's last look at both queues, cleared once the await returned (or the look
     * found work). {@link #enqueue} writes the eventfd only while it is set: a wake-up while the
     * loop is awake anyway (the loop thread queueing its own answers, callers submitting during a
     * busy turn) is a syscall that changes nothing, since the loop looks at both queues before
     * every wait.
     *
     * <p>No lost wake-up, without a lock (a Dekker pair of volatile accesses, which the memory
     * model orders totally): the loop writes {@code sleeping = true} and then reads the queues'
     * tails ({@link TaskQueue#hasWork}); an enqueue swings a tail (a volatile CAS) and then reads
     * {@code sleeping}. Whichever write comes first in that order, the other side's read sees it:
     * either the loop finds the task and does not wait, or the enqueue finds {@code sleeping} and
     * signals. The selector keeps a signal made before the await is entered ({@link
     * Selector#wakeup}: "a running or the next await"), so one made between the look and the await
     * is not lost either. The first enqueue that signals clears it with a CAS: its signal stays
     * pending until the await returns, so the enqueues after it need none. A stale true only costs
     * a redundant wake-up.
     */
    @SuppressWarnings("unused")   // also written through SLEEPING
    private volatile boolean sleeping;
    private volatile boolean stopRequested;
    private volatile Throwable broken;
    /**
     * The loop's "now" for the work of the current turn (loop thread): read when the turn starts
     * (after the wait) and again once its user tasks ran, then used for every step, history entry,
     * due-timer check and the next wait. In the QEMU/TCG guest a clock read can be a clock_gettime
     * syscall, and a connection's steps read it dozens of times otherwise.
     * <p>A deadline, though, never starts from a stale read: every timer is armed on a fresh read
     * ({@link #freshNanos}). A turn is not always short: in a one-vCPU TCG guest a cold JVM took
     * over a second for one turn, and a QUIESCE_DEADLINE armed from the turn's start fired before
     * the poller could answer, so the QP and CQ leaked (two-host CI run, 2026-11-23).
     */
    private long turnNanos;

    public EventLoop(Selector selector, LongSupplier clock, TimerQueue<?> timers) {
        this.selector = selector;
        this.clock = clock;
        this.timers = timers;
        this.thread = new LibraryThread(this::loop, "rdmacm4j-dispatcher-" + INSTANCES.incrementAndGet());
    }

    /** Starts the thread, with what its turns do. Once. */
    public void start(Turn turn) {
        this.turn = turn;
        thread.start();
    }

    // ------------------------------------------------------------------ clock (loop thread)

    /** The current turn's clock read. Loop thread. */
    public long turnNanos() {
        return turnNanos;
    }

    /** Reads the clock now, for a deadline about to start, and advances the turn clock to it. Loop thread. */
    public long freshNanos() {
        turnNanos = clock.getAsLong();
        return turnNanos;
    }

    /** A clock read that does not move the turn clock (lifetimes, backoffs). Any thread. */
    public long clockNanos() {
        return clock.getAsLong();
    }

    /** Runs {@code work} on the loop once {@code deadlineNanos} has passed. Loop thread. */
    public void runAt(long deadlineNanos, Runnable work) {
        timers.runAt(deadlineNanos, work);
    }

    // ------------------------------------------------------------------ state (any thread)

    /** Null while healthy; the cause once the loop died. */
    public Throwable brokenCause() {
        return broken;
    }

    /** Whether a stop was requested (the loop is ending or has ended). */
    public boolean stopRequested() {
        return stopRequested;
    }

    /** Whether the loop has ended after a requested stop (not by dying). */
    public boolean closedNormally() {
        return stopped.isDone() && broken == null;
    }

    public long threadId() {
        return thread.threadId();
    }

    /** Asks the loop to end after this turn; the queued work still runs. */
    public void requestStop() {
        stopRequested = true;
        selector.wakeup();
    }

    /** Completes once the loop thread has ended and closed the selector. */
    public CompletableFuture<Void> stoppedFuture() {
        return stopped;
    }

    // ------------------------------------------------------------------ queues (any thread)

    /**
     * Work for the loop's queues that is its own queue node: {@link #submit(CompletableFuture, QueuedWork)},
     * {@link #answer(QueuedWork)} and {@link #submitAnswer(CompletableFuture, QueuedWork)} link it as it
     * is, where a plain Runnable is wrapped in a node made per call. For what is queued on every
     * connection (a connect, an accept, each close, each drained or quiesced answer): one object fewer
     * per hand-off to the dispatcher.
     *
     * <p>Queued at most once: a node is linked into one queue for good (it stays the queue's stub
     * until the next task is taken). The thread that queues it writes its owner before the queue's
     * CAS; the loop thread runs it.
     */
    public abstract static class QueuedWork extends TaskQueue.Task implements Runnable {
        protected QueuedWork() {
        }
    }

    /** Queues work; fails {@code owner} if the loop no longer runs. Any thread. */
    public boolean submit(CompletableFuture<?> owner, Runnable work) {
        return enqueue(tasks, owner, new Task(work, owner));
    }

    /** {@link #submit} of work that is its own queue node (no wrapper made). Any thread; once per {@code work}. */
    public boolean submit(CompletableFuture<?> owner, QueuedWork work) {
        work.owner(owner);
        return enqueue(tasks, owner, work);
    }

    /** Queues internal work (no future of its own). Any thread. */
    public void execute(Runnable work) {
        submit(new CompletableFuture<>(), work);
    }

    /**
     * Queues a poller's answer (see {@link #answers}). Any thread. After the door closed it is dropped:
     * the loop is retiring every id anyway, and nothing owes a future to an answer.
     */
    public void answer(Runnable work) {
        enqueue(answers, noOwner, new Task(work, noOwner));   // failing noOwner after the door closed just drops the answer
    }

    /** {@link #answer} of work that is its own queue node (no wrapper made). Any thread; once per {@code work}. */
    public void answer(QueuedWork work) {
        work.owner(noOwner);
        enqueue(answers, noOwner, work);
    }

    /** Like {@link #submit}, into {@link #answers}: for work with a deadline already running. Any thread. */
    public void submitAnswer(CompletableFuture<?> owner, Runnable work) {
        enqueue(answers, owner, new Task(work, owner));
    }

    /** {@link #submitAnswer} of work that is its own queue node (no wrapper made). Any thread; once per {@code work}. */
    public void submitAnswer(CompletableFuture<?> owner, QueuedWork work) {
        work.owner(owner);
        enqueue(answers, owner, work);
    }

    /**
     * Queues {@code work} on {@code queue} ({@link #tasks} or {@link #answers}) and wakes the loop;
     * once the door is closed, fails {@code owner} instead (the loop died, or the RdmaCm is closed).
     */
    private boolean enqueue(TaskQueue queue, CompletableFuture<?> owner, Task node) {
        if (queue.offer(node)) {
            // One signal per wait: it stays pending until the await returns (see sleeping).
            if (sleeping && SLEEPING.compareAndSet(this, true, false)) {
                selector.wakeup();
            }
            return true;
        }
        Throwable cause = broken;
        owner.completeExceptionally(cause != null
                ? new ConnectionFailedException("the rdmacm4j dispatcher died", List.of(), cause)
                : new ConnectionClosedException("the RdmaCm is closed", List.of()));
        return false;
    }

    // ------------------------------------------------------------------ the loop (loop thread)

    private void loop() {
        try {
            turnNanos = clock.getAsLong();
            while (!stopRequested) {
                runTurns();
            }
            closeDoor();
            turnNanos = clock.getAsLong();
            runTasks(Integer.MAX_VALUE);   // what was queued before the door closed still runs
            runAnswers();
            turn.stopped(null);
        } catch (Throwable t) {
            broken = t;
            LOG.log(Level.ERROR, "rdmacm4j dispatcher died; failing every pending operation", t);
            closeDoor();
            failQueuedTasks(t);
            turn.stopped(t);
        } finally {
            try {
                turn.close();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "closing the native port failed", e);
            }
            stopped.complete(null);
        }
    }

    /** From here every enqueue is refused; what was queued before still runs (or fails). Idempotent. */
    private void closeDoor() {
        tasks.close();
        answers.close();
    }

    /**
     * Up to 32 turns (fewer if a stop is asked for), so that the loop C1 leaves interpreted iterates
     * once per 32 turns (docs/architecture.md, "A library thread's loop calls one method per batch").
     */
    private void runTurns() {
        for (int i = 0; i < 32 && !stopRequested; i++) {
            runTurn();
        }
    }

    /** One turn of the loop: wait, events, answers, tasks, timers. */
    private void runTurn() {
        // Two clock reads per turn (see turnNanos): the wait is measured from the second
        // read of the last turn, which only fired timers since.
        long wait = timers.nanosUntilNext(turnNanos, MAX_WAIT_NANOS);
        if (wait > 0) {
            sleeping = true;   // from here, enqueue signals (see sleeping); then the last look
            if (tasks.hasWork() || answers.hasWork()) {
                sleeping = false;
                wait = 0;
            }
        }
        selector.await(wait);
        sleeping = false;
        turnNanos = clock.getAsLong();
        turn.events();
        runAnswers();
        runTasks(TASKS_PER_TURN);
        // Up to 64 tasks ran (each with native calls): read again, so timers fire on time
        // and the next wait is not stretched by this turn's work.
        turnNanos = clock.getAsLong();
        runAnswers();   // those the tasks' actions just produced (a synchronous fake poller)
        fireTimers(turnNanos);
    }

    /**
     * Runs at most {@code limit} queued tasks: under a burst (500 connects, 500 closes) the CM events
     * and poller answers that the first tasks caused are handled next turn instead of after the
     * whole burst.
     */
    private void runTasks(int limit) {
        for (int i = 0; i < limit; i++) {
            Task t = tasks.poll();
            if (t == null) {
                return;
            }
            TaskQueue.run(t);
        }
    }

    /** Runs every queued poller answer, including those queued while running them. */
    private void runAnswers() {
        while (true) {
            Task a = answers.poll();
            if (a == null) {
                return;
            }
            TaskQueue.run(a);
        }
    }

    private void failQueuedTasks(Throwable cause) {
        while (true) {
            Task t = tasks.poll();
            if (t == null) {
                t = answers.poll();
            }
            if (t == null) {
                return;
            }
            t.owner().completeExceptionally(new ConnectionFailedException("the rdmacm4j dispatcher died",
                    List.of(), cause));
        }
    }

    /**
     * Fires what is due at {@code now} (the turn's second clock read): the machines' timers, then
     * the loop's own tasks. A timer that falls due while these run waits for the next turn, whose
     * wait is then 0 or nearly.
     */
    private void fireTimers(long now) {
        turn.timers(now);
        Runnable task;
        while ((task = timers.pollDueTask(now)) != null) {
            task.run();
        }
    }
}
