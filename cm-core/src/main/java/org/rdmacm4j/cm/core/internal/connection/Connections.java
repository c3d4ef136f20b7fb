package org.rdmacm4j.cm.core.internal.connection;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.DataPathException;
import org.rdmacm4j.cm.core.DeviceRemovedException;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RequestExpiredException;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.Failures;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.id.IdEngine;
import org.rdmacm4j.cm.core.internal.id.IdRole;
import org.rdmacm4j.cm.core.internal.id.JfrEvents;
import org.rdmacm4j.cm.core.internal.id.Stats;
import org.rdmacm4j.cm.core.internal.loop.EventLoop;
import org.rdmacm4j.cm.core.internal.poll.CompletionSink;
import org.rdmacm4j.cm.core.internal.poll.Keepalive;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.machine.PassiveConnectionMachine;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;

/**
 * RC connections, active and passive, once started ({@link ConnectionStarts} starts them: connect
 * and accept): the QP and data paths made with the id, the handler notices, the futures' values, the
 * verdicts on failures the pollers notice, and what ends with a connection. The {@link IdRole} of
 * {@link IdDriver.Kind#ACTIVE} and {@link IdDriver.Kind#PASSIVE} ids.
 *
 * <p>Threads: {@link #connect}, {@link #accept} and the {@link ConnectionImpl.Control} methods may
 * be called from any thread and only queue work; everything else runs on the dispatcher thread.
 * Nothing here blocks on the application: futures are completed and handlers called through each
 * id's serial executor on the callback executor.
 */
public final class Connections implements IdRole, ConnectionImpl.Control {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    /**
     * How long an unexplained flush (or a keepalive verdict) waits for an explanation before it is a
     * failure: an event that was already on its way when the poller saw it (a DEVICE_REMOVAL, a QP
     * async event, a close) is drained and stepped well within it, even on TCG.
     */
    public static final long FLUSH_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final IdEngine engine;
    private final EventLoop loop;
    private final ConnectionPort port;
    private final Stats stats;
    private final StepBarriers barriers;
    private final ConnectionStarts starts;

    public Connections(IdEngine engine, ConnectionPort port, Transport defaultTransport) {
        this.engine = engine;
        this.loop = engine.loop();
        this.port = port;
        this.stats = engine.stats();
        this.barriers = new StepBarriers(engine);
        this.starts = new ConnectionStarts(engine, port, barriers, this, defaultTransport);
        engine.serve(this, IdDriver.Kind.ACTIVE, IdDriver.Kind.PASSIVE);
    }

    // ------------------------------------------------------------------ API entry points (any thread)

    /** Starts an active connect ({@link ConnectionStarts#connect}). Any thread; the arguments are validated by the caller. */
    public CompletableFuture<RdmaConnection> connect(InetSocketAddress destination, ConnectOptions options,
                                                     ConnectionHandler handler) {
        return starts.connect(destination, options, handler);
    }

    /** The passive id of a request a listener offers ({@link ConnectionStarts#openPassive}). Dispatcher thread. */
    public IdDriver openPassive(NativeId nid, PassiveConnectionMachine machine, MachineState<?> opened,
                                IdDriver offeredBy, KeepaliveOptions keepalive,
                                CompletableFuture<RequestExpiredException> expired) {
        return starts.openPassive(nid, machine, opened, offeredBy, keepalive, expired);
    }

    /** Accepts an offered request on its passive id ({@link ConnectionStarts#accept}). Any thread. */
    public CompletableFuture<RdmaConnection> accept(IdDriver passive, InetSocketAddress peer, InetSocketAddress local,
                                                    ConnectionHandler handler, AcceptOptions options) {
        return starts.accept(passive, peer, local, handler, options);
    }

    @Override
    public CompletableFuture<Void> close(IdDriver driver, boolean abort) {
        return engine.closeCommand(driver, abort ? Input.Command.Abort::new : Input.Command.Close::new);
    }

    /** Fires what is due of the step barriers. Dispatcher thread, each loop turn before the machine timers. */
    public void expireStepBarrierWaits(long now) {
        barriers.expireWaits(now);
    }

    // ------------------------------------------------------------------ the role (dispatcher thread)

    @Override
    public boolean runNative(IdDriver id, Action.NativeCall call) {
        if (!(call instanceof Action.CreateQp)) {
            return false;   // Accept: the generic rdma_accept; the others are not RC calls
        }
        ConnectionDriver d = (ConnectionDriver) id;
        port.createQp(d.nativeId, d.qp, d.messaging);
        ConnectionImpl conn = d.connection;
        if (conn != null) {
            DataPath dp = port.dataPath(d.nativeId);
            if (dp != null) {
                dp.bind(conn);
                conn.dataPath = dp;
            }
            OneSided ops = port.oneSided(d.nativeId);
            if (ops != null) {
                ops.bind(conn);
                conn.oneSided = ops;
            }
            conn.watch = port.completionWatch(d.nativeId);   // before raw: raw() reads raw, then watch
            conn.raw = port.raw(d.nativeId);
            if (dp == null) {
                port.rawCompletions(d.nativeId, new RawCompletions(conn));
            }
        }
        return true;
    }

    @Override
    public boolean holds(IdDriver d, Input in) {
        ConnectionDriver c = (ConnectionDriver) d;
        return c.lockstep != null && barriers.held(c, in);
    }

    @Override
    public Object value(IdDriver d, Outcome outcome) {
        if (outcome instanceof Outcome.Connected c) {
            ConnectionDriver cd = (ConnectionDriver) d;
            connected(cd, c);
            // The connect or accept future's value (owed with the identity): one function for every
            // connection, not an object per connect and accept that read the same field.
            return cd.connection;
        }
        return outcome;
    }

    @Override
    public CompletableFuture<Void> closedFuture(IdDriver d) {
        ConnectionImpl c = ((ConnectionDriver) d).connection;
        return c == null ? null : c.closed;
    }

    /** Fills in the connection's addresses and the peer's data (once). */
    private void connected(ConnectionDriver d, Outcome.Connected c) {
        ConnectionImpl conn = d.connection;
        if (conn == null || conn.establishedNanos != 0) {
            return;
        }
        conn.local = port.localAddress(d.nativeId);
        conn.peer = port.peerAddress(d.nativeId);
        byte[] peerData = c.peerData().payload().toArray();
        conn.peerData = peerData.length == 0 ? ConnectionImpl.NO_DATA : peerData;   // most peers send none
        conn.establishedNanos = loop.turnNanos();
        if (d.keepalive != null) {
            // Ticks on the connection's poller from here on; the QP is in RTS only now.
            port.startKeepalive(d.nativeId, d.keepalive, new KeepaliveVerdict(conn));
        }
        if (d.kind == IdDriver.Kind.ACTIVE) {
            stats.connectsSucceeded.increment();
        } else {
            stats.accepts.increment();
        }
        if (JfrEvents.on()) {
            JfrEvents.Established jfr = new JfrEvents.Established();
            if (jfr.shouldCommit()) {
                jfr.connection = d.name();
                jfr.peer = String.valueOf(conn.peer);
                jfr.setupNanos = conn.establishedNanos - conn.startedNanos;
                jfr.commit();
            }
        }
    }

    @Override
    public void notice(IdDriver id, Notice n) {
        ConnectionDriver d = (ConnectionDriver) id;
        switch (n.variant()) {
            case ESTABLISHED -> {
                Notice.Established e = (Notice.Established) n;
                connected(d, e.connection());
                handler(d, OverriddenCallbacks.ESTABLISHED, null);
            }
            case DISCONNECTED -> handler(d, OverriddenCallbacks.DISCONNECTED, null);
            case ERROR -> {
                Notice.Error e = (Notice.Error) n;
                var ex = Failures.forHandler(e.failure(), d.name(), d.historySnapshot());
                handler(d, OverriddenCallbacks.ERROR, ex);
            }
            case ADDRESS_CHANGED -> handler(d, OverriddenCallbacks.ADDRESS_CHANGED, null);
            case DEVICE_REMOVED -> {
                var ex = new DeviceRemovedException(d.name() + ": the RDMA device was removed", d.historySnapshot());
                handler(d, OverriddenCallbacks.ERROR, ex);
            }
            case ASYNC -> handler(d, OverriddenCallbacks.ASYNC_EVENT, ((Notice.Async) n).event());
            case REQUEST_EXPIRED -> {
                Notice.RequestExpired r = (Notice.RequestExpired) n;
                if (d.requestExpired != null) {
                    var ex = (RequestExpiredException) Failures.toException(r.failure(), d.name(), d.historySnapshot());
                    CompletableFuture<RequestExpiredException> expired = d.requestExpired;
                    d.callbacks.execute(new CmFuture.CompleteTask<>(expired, ex, null));
                }
            }
            case MULTICAST_REJOINED -> LOG.log(Level.DEBUG, d.name() + ": rejoined " + ((Notice.MulticastRejoined) n).group());
            case MULTICAST_LOST -> LOG.log(Level.WARNING, d.name() + ": lost multicast group " + ((Notice.MulticastLost) n).group());
        }
    }

    @Override
    public void retired(IdDriver id) {
        ConnectionDriver d = (ConnectionDriver) id;
        if (d.lockstep != null) {   // the others no longer wait for it
            barriers.leave(d);
        }
        ConnectionImpl c = d.connection;
        if (c == null) {
            return;
        }
        if (c.establishedNanos != 0) {
            stats.disconnects.increment();   // an established connection ended, whoever closed it
        }
        if (JfrEvents.on()) {
            JfrEvents.Closed jfr = new JfrEvents.Closed();
            if (jfr.shouldCommit()) {
                jfr.connection = d.name();
                jfr.lifetimeNanos = loop.clockNanos() - d.createdNanos;
                jfr.leaked = d.leaked;
                jfr.commit();
            }
        }
        c.closed.completeThrough(d.callbacks, null);
        handler(d, OverriddenCallbacks.CLOSED, null);
    }

    @Override
    public void crashed(IdDriver d, ConnectionFailedException ex) {
        handler((ConnectionDriver) d, OverriddenCallbacks.ERROR, ex);
    }

    /**
     * Hands a call of {@code callback} (an {@link OverriddenCallbacks} bit; {@code detail}, its second
     * argument: the exception of onError, the event of onAsyncEvent) to the id's callback executor, if
     * the handler overrides that callback.
     */
    private void handler(ConnectionDriver d, int callback, Object detail) {
        ConnectionImpl c = d.connection;
        if (c == null || c.handler == null || (c.overriddenCallbacks & callback) == 0) {
            return;
        }
        d.callbacks.execute(new HandlerCall(this, c, callback, detail));
    }

    // ------------------------------------------------------------------ verdicts on what the pollers noticed

    /**
     * The message channel's receives flushed while the connection was not being torn down by us
     * ({@code FailedCompletion.UNEXPLAINED_FLUSH}). Poller thread. Only the dispatcher moves a QP to
     * ERR on purpose, and always after the machine left ESTABLISHED; so if the connection is still
     * ESTABLISHED after the grace ({@link #judgeAfterGrace}), nothing we did and nothing the CM or the
     * device reported explains the flush: the transport or the application moved the QP to ERR (a
     * peer's RDMA access with a key it was never given, say), and the connection has failed.
     */
    @Override
    public void unexplainedFlush(ConnectionImpl c, org.rdmacm4j.verbs.ibv.WcStatus status) {
        judgeAfterGrace(c, () -> Failures.completionFailed(c.driver.name() + ": the queue pair went to the error "
                + "state (its receives completed with " + status.cName() + ") with no disconnect or close from either "
                + "side and no event that explains it; the peer may have made an RDMA access this connection never "
                + "allowed (a key it was not given); the connection is being torn down", status, c.history()));
    }

    /**
     * The keepalive gave up on {@code c} (a probe unanswered for its misses, or failed). Poller
     * thread. Judged like an unexplained flush ({@link #judgeAfterGrace}): a peer that closed
     * normally has its DISCONNECTED (or a device its DEVICE_REMOVAL) already on the way when its
     * probes stop being answered, and that explanation, not "unresponsive", is how the connection ended.
     */
    @Override
    public void keepaliveVerdict(ConnectionImpl c, Supplier<DataPathException> failure) {
        judgeAfterGrace(c, failure);
    }

    /**
     * A failure the poller noticed, decided on the dispatcher {@link #FLUSH_GRACE_NANOS} later: if
     * the connection is still ESTABLISHED then, nothing explained it and it fails with {@code failure};
     * otherwise a teardown (ours, the peer's, the device's) began meanwhile and the notice is dropped.
     * Judging on the dispatcher makes the rule race-free: every event that tears the connection down
     * is stepped there too, before or after, never during.
     */
    private void judgeAfterGrace(ConnectionImpl c, Supplier<DataPathException> failure) {
        // An answer, not a task: behind a burst of user tasks (TASKS_PER_TURN per turn) the grace would start late.
        loop.answer(() -> loop.runAt(loop.clockNanos() + FLUSH_GRACE_NANOS, () -> {
            IdDriver d = c.driver;
            if (d.retired || !"ESTABLISHED".equals(d.phase())) {
                return;   // a teardown (ours, the peer's, the device's) began meanwhile: it explains the notice
            }
            c.dataPathFailed(failure.get());
        }));
    }

    /** A user callback of {@code c} threw. Any thread. */
    @Override
    public void callbackFailed(ConnectionImpl c, Throwable t) {
        stats.callbackFailures.increment();
        LOG.log(Level.WARNING, "a ConnectionHandler callback of " + c + " threw; ignored", t);
    }

    // ------------------------------------------------------------------ the functions it hands out
    // Named classes, not capturing lambdas: each is made per connection or callback, and under C1
    // (the launchers' JIT) each capturing lambda made is a native VM call (docs/benchmarks.md,
    // "Capturing lambdas under C1"). The rare paths (unexplainedFlush, judgeAfterGrace) keep lambdas.

    /** A raw connection's completions, to its handler's onCompletion. Poller thread. */
    private record RawCompletions(ConnectionImpl c) implements CompletionSink {
        @Override
        public void onCompletion(WorkCompletions completions, int index) {
            c.rawCompletion(completions, index);
        }
    }

    /** The keepalive giving up on a connection. Poller thread. */
    private record KeepaliveVerdict(ConnectionImpl c) implements Keepalive.Verdict {
        @Override
        public void peerUnresponsive(String reason, WcStatus completionStatus) {
            c.peerUnresponsive(reason, completionStatus);
        }
    }

    /** One handler callback of {@link #handler}, on the id's callback executor; a throw is reported, not spread. */
    private record HandlerCall(Connections connections, ConnectionImpl c, int callback, Object detail)
            implements Runnable {
        @Override
        public void run() {
            try {
                ConnectionHandler h = c.handler;
                switch (callback) {
                    case OverriddenCallbacks.ESTABLISHED -> h.onEstablished(c);
                    case OverriddenCallbacks.DISCONNECTED -> h.onDisconnected(c);
                    case OverriddenCallbacks.ERROR -> h.onError(c, (RdmaCmException) detail);
                    case OverriddenCallbacks.ADDRESS_CHANGED -> h.onAddressChanged(c);
                    case OverriddenCallbacks.ASYNC_EVENT -> h.onAsyncEvent(c, (AsyncEventType) detail);
                    case OverriddenCallbacks.CLOSED -> h.onClosed(c);
                    default -> throw new AssertionError("not one callback: " + callback);
                }
            } catch (Throwable t) {
                connections.callbackFailed(c, t);
            }
        }
    }
}
