package org.rdmacm4j.cm.core.internal.poll;

import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.rdmacm4j.cm.core.internal.loop.LibraryThread;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.ibv.CompletionChannel;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.sys.Epoll;
import org.rdmacm4j.verbs.sys.EventFd;

/**
 * One completion poller thread: its own epoll over the completion channels of the connections
 * given to it. On a channel event it takes the CQ event ({@code ibv_get_cq_event}), acks CQ events
 * in batches, re-arms the CQ and drains it with {@code ibv_poll_cq}.
 *
 * <p>The dispatcher talks to it only through commands (register, drain, quiesce) queued here and
 * answered by callbacks: a quiesce removes the channel from the epoll, takes and acks every event
 * still pending, and only then reports, so the CQ can be destroyed without blocking
 * ({@code ibv_destroy_cq} waits for every event to be acked).
 *
 * <p>It also ticks the keepalives of its established connections ({@link KeepaliveSchedule}): the
 * probes are data-path work, so they are posted here and never by the dispatcher.
 *
 * <p>Threads: {@link #register} from any thread (a {@link CqRegistration} is started by whoever
 * is about to post first, the application included); {@link #startKeepalive}, {@link #drain},
 * {@link #quiesce} and {@link #stop} from the dispatcher; everything else on the poller thread.
 * Commands run in the order they were queued, whichever thread queued them.
 */
public final class CompletionPoller implements PollerCommands {
    /** Receives the completions of one CQ, on the poller thread. */
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private static final long WAKE_TOKEN = 0;
    /** Ack CQ events once this many are unacked: one mutex per batch instead of per event. */
    private static final int ACK_BATCH = 16;

    private static final class Entry {
        final CompletionChannel channel;
        final CompletionQueue cq;
        final CompletionSink sink;
        long unclaimed;
        /** The connection's keepalive once it is established, or null. */
        Keepalive keepalive;

        Entry(CompletionChannel channel, CompletionQueue cq, CompletionSink sink) {
            this.channel = channel;
            this.cq = cq;
            this.sink = sink;
        }
    }

    private final Epoll epoll = Epoll.create(64);
    private final EventFd wake = EventFd.create();
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Map<Long, Entry> entries = new HashMap<>();
    private final WorkCompletions completions = WorkCompletions.allocate(32);
    private final KeepaliveSchedule keepalives = new KeepaliveSchedule();
    private final LibraryThread thread;
    private volatile boolean stopping;
    private boolean wakeClosed;   // guarded by commands: set with the eventfd's close
    private long nextToken = 1;

    public CompletionPoller(String name) {
        epoll.add(wake.fd(), WAKE_TOKEN);
        thread = new LibraryThread(this::loop, name);
        thread.start();
    }

    /**
     * Starts watching the channel of {@code cq}; returns the token that names it in later commands.
     * The command arms the CQ and then polls it once: work may have been posted (and completed)
     * before it runs, and arming raises no event for a completion already in the CQ.
     */
    @Override
    public long register(CompletionChannel channel, CompletionQueue cq, CompletionSink sink) {
        long token;
        synchronized (this) {
            token = nextToken++;
        }
        command(new Register(this, token, channel, cq, sink));
        return token;
    }

    /** Collects the completions left in the CQ (the QP is in the error state: these are flushes). */
    @Override
    public void drain(long token, Runnable drained) {
        command(new Drain(this, token, drained));
    }

    /**
     * Starts ticking {@code keepalive} (the connection of {@code token} is established). Ignored if
     * the CQ was already quiesced.
     */
    @Override
    public void startKeepalive(long token, Keepalive keepalive) {
        command(new StartKeepalive(this, token, keepalive));
    }

    /** Stops touching the CQ, acks every CQ event taken, then runs {@code quiesced}. */
    @Override
    public void quiesce(long token, Runnable quiesced) {
        command(new Quiesce(this, token, quiesced));
    }

    // The commands: named classes, not capturing lambdas, since one is made per connection and step
    // on the dispatcher, and under C1 (the launchers' JIT) each capturing lambda made is a native VM
    // call (docs/benchmarks.md, "Capturing lambdas under C1"). Each runs its method below on the poller thread.

    private record Register(CompletionPoller poller, long token, CompletionChannel channel, CompletionQueue cq,
                            CompletionSink sink) implements Runnable {
        @Override
        public void run() {
            poller.registerNow(token, channel, cq, sink);
        }
    }

    private record Drain(CompletionPoller poller, long token, Runnable drained) implements Runnable {
        @Override
        public void run() {
            poller.drainNow(token, drained);
        }
    }

    private record StartKeepalive(CompletionPoller poller, long token, Keepalive keepalive) implements Runnable {
        @Override
        public void run() {
            poller.startKeepaliveNow(token, keepalive);
        }
    }

    private record Quiesce(CompletionPoller poller, long token, Runnable quiesced) implements Runnable {
        @Override
        public void run() {
            poller.quiesceNow(token, quiesced);
        }
    }

    private void registerNow(long token, CompletionChannel channel, CompletionQueue cq, CompletionSink sink) {
        Entry e = new Entry(channel, cq, sink);
        entries.put(token, e);
        cq.requestNotify(false);
        epoll.add(channel.fd(), token);
        pollAll(e);   // completions that arrived before the CQ was armed
    }

    private void drainNow(long token, Runnable drained) {
        Entry e = entries.get(token);
        if (e != null) {
            pollAll(e);
        }
        drained.run();
    }

    private void startKeepaliveNow(long token, Keepalive keepalive) {
        Entry e = entries.get(token);
        if (e != null && e.keepalive == null) {
            e.keepalive = keepalive;
            keepalives.start(keepalive, System.nanoTime());
        }
    }

    private void quiesceNow(long token, Runnable quiesced) {
        Entry e = entries.remove(token);
        if (e != null) {
            epoll.remove(e.channel.fd());
            if (e.keepalive != null) {
                e.keepalive.cancelled = true;   // never ticks again: the QP is about to go
            }
            while (e.channel.takeEvent(e.cq)) {
                // take what is pending so that ibv_ack_cq_events covers it
            }
            pollAll(e);
            e.cq.ackEvents();
        }
        quiesced.run();
    }

    /**
     * Queues {@code c} and wakes the poller. Under the monitor {@link #stop} closes the eventfd in,
     * so a command racing the stop is refused by name rather than failing on a closed descriptor
     * (the application's first {@code raw()} after its RdmaCm closed, for one).
     */
    private void command(Runnable c) {
        synchronized (commands) {
            if (wakeClosed) {
                throw new IllegalStateException(thread.getName() + " has stopped (its RdmaCm is closed):"
                        + " no completion queue can be registered or drained any more");
            }
            commands.add(c);
            wake.signal();
        }
    }

    /**
     * Stops the thread (bounded) and frees the epoll and eventfd. Every command accepted before the
     * stop runs (on the poller thread, or here once it has ended: a command can be queued after the
     * thread's last look at the queue and before the queue is closed) and every later one is refused
     * by name, so no caller waits for a callback that never comes. Dispatcher thread.
     */
    public void stop() {
        stopping = true;
        wake.signal();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.log(Level.ERROR, thread.getName() + " did not stop; leaving its epoll open");
            return;
        }
        synchronized (commands) {
            wakeClosed = true;   // from here command() refuses; nothing signals the eventfd any more
        }
        // The thread has ended (join: its state is ours now); the epoll is still open for the commands.
        runQueued("a poller command failed after its thread stopped");
        epoll.close();
        wake.close();
        completions.close();
    }

    private void loop() {
        while (!stopping) {
            if (!pollSome()) {
                return;   // epoll_wait failed (logged): the thread ends; stop() answers what is queued
            }
        }
        // Anything still queued is answered so that no dispatcher wait is left hanging (stop() runs
        // what comes after this).
        runQueued("a poller command failed while stopping");
    }

    /**
     * Up to 32 {@link #pollOnce} turns, fewer if stopping; false as soon as one fails. What
     * {@link #loop} calls, so that the loop left in the interpreter runs one iteration per batch, as
     * the dispatcher's {@code EventLoop.runTurns} does (why there).
     */
    private boolean pollSome() {
        for (int i = 0; i < 32 && !stopping; i++) {
            if (!pollOnce()) {
                return false;
            }
        }
        return true;
    }

    /**
     * One epoll wait and what it found: completions, commands, due keepalives. False if the wait
     * failed (the thread ends). A method of its own, not the body of {@link #loop}'s {@code while}:
     * a method entered once is compiled by C1 (the launchers' JIT) only by on-stack replacement,
     * after tens of thousands of back edges, so the loop body ran interpreted through a whole
     * benchmark (the dispatcher's loop had the same shape: docs/benchmarks.md).
     */
    private boolean pollOnce() {
        int n;
        try {
            n = epoll.await(waitMillis());
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, thread.getName() + ": epoll_wait failed", e);
            return false;
        }
        for (int i = 0; i < n; i++) {
            long token = epoll.token(i);
            if (token == WAKE_TOKEN) {
                wake.drain();
            } else {
                Entry e = entries.get(token);
                if (e != null) {
                    onChannelReadable(e);
                }
            }
        }
        runQueued("a poller command failed");
        try {
            keepalives.runDue(System.nanoTime());
        } catch (RuntimeException ex) {
            LOG.log(Level.ERROR, thread.getName() + ": a keepalive tick failed", ex);
        }
        return true;
    }

    /** Runs the queued commands; one that throws is logged and the rest still run. */
    private void runQueued(String failed) {
        Runnable c;
        while ((c = commands.poll()) != null) {
            try {
                c.run();
            } catch (RuntimeException ex) {
                LOG.log(Level.ERROR, thread.getName() + ": " + failed, ex);
            }
        }
    }

    /** The epoll wait: 500 ms, or less if a keepalive is due sooner (rounded up: no busy spin). */
    private int waitMillis() {
        long nanos = keepalives.nanosUntilNext(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(500));
        return (int) TimeUnit.NANOSECONDS.toMillis(nanos + 999_999);
    }

    private void onChannelReadable(Entry e) {
        try {
            CompletionQueue cq = e.cq;
            if (!e.channel.takeEvent(cq)) {   // one CQ per channel: no lookup, no allocation
                return;
            }
            if (cq.unackedEvents() >= ACK_BATCH) {
                cq.ackEvents();
            }
            cq.requestNotify(false);
            pollAll(e);
        } catch (RdmaException ex) {
            LOG.log(Level.WARNING, thread.getName() + ": completion handling failed for " + e.cq, ex);
        }
    }

    /** Drains the CQ in batches, handing each completion to the CQ's sink (raw QPs: counted only). */
    private void pollAll(Entry e) {
        int n;
        while ((n = e.cq.poll(completions)) > 0) {
            if (e.sink == null) {
                e.unclaimed += n;
                continue;
            }
            for (int i = 0; i < n; i++) {
                try {
                    e.sink.onCompletion(completions, i);
                } catch (RuntimeException ex) {
                    LOG.log(Level.ERROR, thread.getName() + ": completion handling failed for " + e.cq, ex);
                }
            }
        }
    }
}
