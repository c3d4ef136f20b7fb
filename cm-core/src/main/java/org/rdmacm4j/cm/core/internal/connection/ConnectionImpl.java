package org.rdmacm4j.cm.core.internal.connection;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.HistoryEntry;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.IdDriver;

/** The public face of an active or passive connection id. Any thread. */
final class ConnectionImpl implements ConnectionEnd {
    /**
     * What a connection asks of the dispatcher; {@link Connections} is it. An interface so that the
     * public face sits below the code that drives it.
     */
    interface Control {
        /** Queues Close (or Abort) for the connection's machine. Any thread. */
        CompletableFuture<Void> close(IdDriver driver, boolean abort);

        /** A user callback run outside the executor threw: count and log it. Any thread. */
        void callbackFailed(ConnectionImpl c, Throwable t);

        /** The receives flushed with no teardown of ours: judged on the dispatcher after a grace. Poller thread. */
        void unexplainedFlush(ConnectionImpl c, org.rdmacm4j.verbs.ibv.WcStatus status);

        /** The keepalive gave up: judged like an unexplained flush. Poller thread. */
        void keepaliveVerdict(ConnectionImpl c, java.util.function.Supplier<org.rdmacm4j.cm.core.DataPathException> failure);
    }

    private final Control dispatcher;
    final IdDriver driver;
    final ConnectionHandler handler;
    /** Which of the handler's executor callbacks are worth a task (OverriddenCallbacks). */
    final int overriddenCallbacks;
    final CmFuture<Void> closed = new CmFuture<>();   // a CmFuture: the dispatcher may post it (Completions)
    volatile InetSocketAddress local;
    volatile InetSocketAddress peer;
    /** No private data: shared, as a zero-length array cannot change ({@link #peerPrivateData} clones anyway). */
    static final byte[] NO_DATA = new byte[0];
    volatile byte[] peerData = NO_DATA;
    /** When the connect or accept started, for the JFR setup time. */
    final long startedNanos;
    volatile long establishedNanos;
    /** The message channel, or null for a raw connection (set by the dispatcher after CreateQp). */
    volatile DataPath dataPath;
    /** One-sided operations and registered regions (set by the dispatcher after CreateQp). */
    volatile OneSided oneSided;
    /** The verbs objects, for raw use. */
    volatile org.rdmacm4j.cm.core.RawQueuePair raw;
    /** Started by the first {@link #raw()}: the CQ is polled before the application can post (set with raw). */
    volatile org.rdmacm4j.cm.core.internal.poll.CompletionWatch watch =
            org.rdmacm4j.cm.core.internal.poll.CompletionWatch.ALREADY;
    /** The data-path failure that is tearing the connection down (the first one only), or null. */
    // A volatile field set once by CAS, not an AtomicReference: one object fewer per connection.
    private volatile org.rdmacm4j.cm.core.DataPathException failure;
    private static final java.lang.invoke.VarHandle FAILURE;

    static {
        try {
            FAILURE = java.lang.invoke.MethodHandles.lookup().findVarHandle(ConnectionImpl.class, "failure",
                    org.rdmacm4j.cm.core.DataPathException.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    ConnectionImpl(Control dispatcher, IdDriver driver, ConnectionHandler handler, long startedNanos) {
        this.dispatcher = dispatcher;
        this.driver = driver;
        this.handler = handler;
        this.overriddenCallbacks = OverriddenCallbacks.of(handler);
        this.startedNanos = startedNanos;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peer;
    }

    @Override
    public byte[] peerPrivateData() {
        return peerData.clone();
    }

    @Override
    public String state() {
        return driver.phase();
    }

    @Override
    public boolean isClosed() {
        return closed.isDone();
    }

    @Override
    public List<HistoryEntry> history() {
        return driver.historySnapshot();
    }

    @Override
    public CompletableFuture<Void> close() {
        return dispatcher.close(driver, false);
    }

    @Override
    public CompletableFuture<Void> abort() {
        return dispatcher.close(driver, true);
    }

    @Override
    public CompletableFuture<Void> closeFuture() {
        return closed.mirror();   // posted with it: a waiter wakes from the dispatcher (CmFuture.mirror)
    }

    @Override
    public int maxMessageSize() {
        DataPath dp = dataPath;
        return dp == null ? 0 : dp.maxMessageSize();
    }

    @Override
    public CompletableFuture<Void> send(java.lang.foreign.MemorySegment message) {
        java.util.Objects.requireNonNull(message, "message");
        CmFuture<Void> f = new CmFuture<>();
        channel().send(message, f);
        return f;
    }

    @Override
    public CompletableFuture<Void> send(byte[] message) {
        java.util.Objects.requireNonNull(message, "message");
        return send(java.lang.foreign.MemorySegment.ofArray(message));
    }

    @Override
    public CompletableFuture<Void> send(java.nio.ByteBuffer message) {
        java.util.Objects.requireNonNull(message, "message");
        return send(java.lang.foreign.MemorySegment.ofBuffer(message));
    }

    @Override
    public boolean offer(java.lang.foreign.MemorySegment message) {
        java.util.Objects.requireNonNull(message, "message");
        return channel().send(message, null);
    }

    private DataPath channel() {
        DataPath dp = dataPath;
        if (dp == null) {
            throw new IllegalStateException(this + " has no message channel (a raw connection, or the peer offered none)");
        }
        return dp;
    }

    @Override
    public org.rdmacm4j.cm.core.RegisteredRegion register(java.lang.foreign.MemorySegment segment) {
        java.util.Objects.requireNonNull(segment, "segment");
        return ops().register(segment);
    }

    @Override
    public CompletableFuture<Void> write(org.rdmacm4j.cm.core.RegisteredRegion local, long localOffset,
                                         org.rdmacm4j.cm.core.RemoteRegion remote, long remoteOffset, int length) {
        return ops().transfer(org.rdmacm4j.verbs.ibv.WrOpcode.RDMA_WRITE, java.util.Objects.requireNonNull(local),
                localOffset, java.util.Objects.requireNonNull(remote), remoteOffset, length).thenApply(v -> null);
    }

    @Override
    public CompletableFuture<Void> read(org.rdmacm4j.cm.core.RegisteredRegion local, long localOffset,
                                        org.rdmacm4j.cm.core.RemoteRegion remote, long remoteOffset, int length) {
        return ops().transfer(org.rdmacm4j.verbs.ibv.WrOpcode.RDMA_READ, java.util.Objects.requireNonNull(local),
                localOffset, java.util.Objects.requireNonNull(remote), remoteOffset, length).thenApply(v -> null);
    }

    @Override
    public CompletableFuture<Long> compareAndSwap(org.rdmacm4j.cm.core.RemoteRegion remote, long offset, long expected,
                                                  long newValue) {
        return ops().atomic(org.rdmacm4j.verbs.ibv.WrOpcode.ATOMIC_CMP_AND_SWP, java.util.Objects.requireNonNull(remote),
                offset, expected, newValue).thenApply(v -> (Long) v);
    }

    @Override
    public CompletableFuture<Long> fetchAndAdd(org.rdmacm4j.cm.core.RemoteRegion remote, long offset, long add) {
        return ops().atomic(org.rdmacm4j.verbs.ibv.WrOpcode.ATOMIC_FETCH_AND_ADD,
                java.util.Objects.requireNonNull(remote), offset, add, 0L).thenApply(v -> (Long) v);
    }

    @Override
    public org.rdmacm4j.cm.core.RawQueuePair raw() {
        org.rdmacm4j.cm.core.RawQueuePair r = raw;
        if (r == null || isClosed()) {
            throw new IllegalStateException(this + " has no queue pair (not connected yet, or closed)");
        }
        // The CQ of a connection without a message channel is registered with its poller only now
        // (the application may post the moment this returns); refused once it was quiesced.
        if (!watch.start()) {
            throw new IllegalStateException(this + " is closing: its completion queue is no longer polled");
        }
        return r;
    }

    private OneSided ops() {
        OneSided o = oneSided;
        if (o == null) {
            throw new IllegalStateException(this + " has no queue pair (not connected yet, or closed)");
        }
        return o;
    }

    /** A completion of the application's own work on a raw connection. Poller thread. */
    void rawCompletion(org.rdmacm4j.verbs.ibv.WorkCompletions wc, int i) {
        if (handler == null) {
            return;
        }
        try {
            handler.onCompletion(this, wc, i);
        } catch (Throwable t) {
            dispatcher.callbackFailed(this, t);
        }
    }

    @Override
    public ConnectionHandler handler() {
        return handler;
    }

    @Override
    public java.util.concurrent.Executor callbacks() {
        return driver.callbacks;
    }

    /** A user callback run outside the executor (onMessage on the poller) threw. */
    @Override
    public void callbackFailed(Throwable t) {
        dispatcher.callbackFailed(this, t);
    }

    /**
     * A work completion failed or the keepalive gave up: tell the handler (the first failure only;
     * the message channel, the one-sided operations and the keepalive may all notice the same dead
     * peer), then abort the connection. Poller thread.
     */
    @Override
    public void dataPathFailed(org.rdmacm4j.cm.core.DataPathException e) {
        if (!FAILURE.compareAndSet(this, null, e)) {
            return;
        }
        driver.callbacks.execute(() -> {
            try {
                handler.onError(this, e);
            } catch (Throwable t) {
                dispatcher.callbackFailed(this, t);
            }
        });
        abort();
    }

    /**
     * The message channel saw its receives flush while no teardown of ours had moved the QP to
     * ERR ({@link org.rdmacm4j.cm.core.internal.poll.FailedCompletion#UNEXPLAINED_FLUSH}); the dispatcher decides. Poller thread.
     */
    @Override
    public void queuePairFlushed(org.rdmacm4j.verbs.ibv.WcStatus status) {
        dispatcher.unexplainedFlush(this, status);
    }

    /**
     * The keepalive's verdict. Poller thread. The dispatcher decides after its grace, so that a
     * DISCONNECTED already on its way (the peer closed normally) ends the connection instead.
     */
    void peerUnresponsive(String reason, org.rdmacm4j.verbs.ibv.WcStatus status) {
        dispatcher.keepaliveVerdict(this, () -> new org.rdmacm4j.cm.core.PeerUnresponsiveException(this + ": "
                + reason + "; the connection is being torn down", status == null ? null : status.cName(), history()));
    }

    /** The failure tearing this connection down, or null: the cause given to operations it cut short. */
    @Override
    public org.rdmacm4j.cm.core.DataPathException failure() {
        return failure;
    }

    @Override
    public String toString() {
        DataPath dp = dataPath;
        return driver.name() + " " + local + " -> " + peer + " [" + driver.phase() + "]"
                + (dp == null ? "" : " " + dp.describe());
    }
}
