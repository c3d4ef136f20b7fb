package org.rdmacm4j.cm.core.internal.connection;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.DeviceRemovedException;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RequestExpiredException;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.id.IdEngine;
import org.rdmacm4j.cm.core.internal.id.Stats;
import org.rdmacm4j.cm.core.internal.loop.EventLoop;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.machine.ActiveConnectionMachine;
import org.rdmacm4j.cm.statemachine.machine.ActiveState;
import org.rdmacm4j.cm.statemachine.machine.PassiveConnectionMachine;

/**
 * How an RC connection starts: an active connect (a new id, its machine, its connection object,
 * the Connect command) and an accept (on the passive id a listener's request opened), each queued
 * from the caller's thread and done on the dispatcher; and which machine a connect runs on. Once
 * started, a connection is {@link Connections}' (the role of its id).
 *
 * <p>Threads: {@link #connect} and {@link #accept} may be called from any thread and only queue
 * work; the rest runs on the dispatcher thread.
 *
 * <p>What it queues per connect and accept ({@link StartConnect}, {@link StartAccept}) are small
 * named classes, each its own queue node ({@link EventLoop.QueuedWork}): no wrapper per hand-off and
 * no capturing lambda, which under C1 (the launchers' JIT) is a native VM call per lambda made
 * (docs/benchmarks.md, "Capturing lambdas under C1").
 */
final class ConnectionStarts {
    private final IdEngine engine;
    private final EventLoop loop;
    private final ConnectionPort port;
    private final Stats stats;
    private final StepBarriers barriers;
    /** What the connections it makes report to (the RC role, {@link Connections}). */
    private final ConnectionImpl.Control control;
    private final Transport defaultTransport;
    /** The last active machine made ({@link #activeMachine}). Dispatcher thread. */
    private ActiveConnectionMachine lastActive;

    ConnectionStarts(IdEngine engine, ConnectionPort port, StepBarriers barriers, ConnectionImpl.Control control,
                     Transport defaultTransport) {
        this.engine = engine;
        this.loop = engine.loop();
        this.port = port;
        this.stats = engine.stats();
        this.barriers = barriers;
        this.control = control;
        this.defaultTransport = defaultTransport;
    }

    /** Starts an active connect. Any thread; the arguments are validated by the caller. */
    CompletableFuture<RdmaConnection> connect(InetSocketAddress destination, ConnectOptions options,
                                                     ConnectionHandler handler) {
        CmFuture<RdmaConnection> f = new CmFuture<>();
        long started = loop.clockNanos();
        loop.submit(f, new StartConnect(this, destination, options, handler, f, started));
        return f;
    }

    /** {@link #connect}'s work on the dispatcher. */
    private void startConnect(InetSocketAddress destination, ConnectOptions options, ConnectionHandler handler,
                              CmFuture<RdmaConnection> f, long started) {
        LockstepGate gate = barriers.gateOf(options.stepBarrier());
        if (f.isDone()) {
            barriers.absent(gate);
            return;   // cancelled before it started: nothing to undo
        }
        NativeId nid;
        try {
            nid = port.createId();
        } catch (PortCallException e) {
            barriers.absent(gate);
            RdmaCmException failure = e.noDevice()
                    ? new DeviceRemovedException("connect to " + destination + ": " + e.getMessage(), List.of(), e)
                    : new ConnectionFailedException("connect to " + destination + ": " + e.getMessage(), List.of(), e);
            // counted before the future completes: a caller that reads statistics() after
            // get() must see this failure (NoDeviceTest raced here under load)
            stats.connectFailed(failure.getClass().getSimpleName());
            f.completeExceptionally(failure);
            return;
        }
        ActiveConnectionMachine machine = activeMachine(options);
        ConnectionDriver d = engine.register(new ConnectionDriver(IdDriver.Kind.ACTIVE, engine.nextSerial(),
                machine, ActiveState.initial(), engine.historySize(), engine.now(), engine.newCallbacks()), nid);
        d.lockstep = gate;
        d.roleMayHold = gate != null;   // only a connect at a step barrier is held (holds)
        if (gate != null) {   // read only while held at a barrier: no clock read for the others
            d.lockstepDeadline = loop.freshNanos() + options.deadlines().connect().toNanos();   // a deadline starts now
        }
        d.source = options.source();
        d.destination = destination;
        d.qp = options.qp();
        d.messaging = options.messaging();
        d.typeOfService = options.typeOfService();
        d.ackTimeout = options.ackTimeout();
        d.keepalive = options.keepalive();
        d.connection = new ConnectionImpl(control, d, handler, started);
        d.connection.peer = destination;
        long req = engine.owe(d, f, Function.identity());   // value(): the connection
        d.openRequest = req;
        f.onCancel(new IdEngine.FeedLater(engine, d, IdEngine.CANCEL, false));
        stats.connectsStarted.increment();
        engine.feed(d, new Input.Command.Connect(req, options.privateData()));
        if (f.isCancelled()) {
            engine.feed(d, IdEngine.CANCEL);
        }
    }

    /**
     * The passive id of a request a listener offers, on the machine the listener opened for it.
     * Dispatcher thread (inside the listener's step); the caller runs the opened actions.
     */
    IdDriver openPassive(NativeId nid, PassiveConnectionMachine machine, MachineState<?> opened,
                                IdDriver offeredBy, KeepaliveOptions keepalive,
                                CompletableFuture<RequestExpiredException> expired) {
        ConnectionDriver p = engine.register(new ConnectionDriver(IdDriver.Kind.PASSIVE, engine.nextSerial(), machine,
                opened, engine.historySize(), engine.now(), engine.newCallbacks()), nid);
        p.offeredBy = offeredBy;
        p.keepalive = keepalive;
        p.requestExpired = expired;
        return p;
    }

    /** Accepts an offered request on its passive id. Any thread. */
    CompletableFuture<RdmaConnection> accept(IdDriver passive, InetSocketAddress peer, InetSocketAddress local,
                                                    ConnectionHandler handler, AcceptOptions options) {
        CmFuture<RdmaConnection> f = new CmFuture<>();
        ConnectionDriver p = (ConnectionDriver) passive;
        // An offered request's decision deadline runs: the accept must not queue behind a burst.
        loop.submitAnswer(f, new StartAccept(this, p, peer, local, handler, options, f));
        return f;
    }

    /** {@link #accept}'s work on the dispatcher. */
    private void startAccept(ConnectionDriver p, InetSocketAddress peer, InetSocketAddress local,
                             ConnectionHandler handler, AcceptOptions options, CmFuture<RdmaConnection> f) {
        if (p.connection == null) {
            p.connection = new ConnectionImpl(control, p, handler, loop.turnNanos());
            p.connection.peer = peer;
            p.connection.local = local;
            p.qp = options.qp();
            p.messaging = options.messaging();
            p.ackTimeout = options.ackTimeout();
        }
        long req = engine.owe(p, f, Function.identity());   // value(): the connection
        p.openRequest = req;
        f.onCancel(new IdEngine.FeedLater(engine, p, IdEngine.CANCEL, false));
        engine.feed(p, new Input.Command.Accept(req, options.privateData()));
    }

    // ------------------------------------------------------------------ the active machine

    private ConnectionPolicy activePolicy(ConnectOptions o) {
        return new ConnectionPolicy(defaultTransport, o.deadlines(), o.retry(), o.tuning(),
                o.awaitTimewaitExit(), true, false, 3);
    }

    /**
     * The machine for a connect with {@code o}: the last one made if its policy came from the same
     * values (by identity: immutable, and the defaults are one instance each), else a new one. A
     * machine keeps only its policy and values made from it (final fields; the state is the
     * driver's), so connects share it, as a listener's requests share their passive machine. It
     * saves a machine, its Resolution and a policy per connect. Dispatcher thread.
     */
    private ActiveConnectionMachine activeMachine(ConnectOptions o) {
        ActiveConnectionMachine m = lastActive;
        if (m != null) {
            ConnectionPolicy p = m.policy();
            if (p.deadlines() == o.deadlines() && p.retry() == o.retry() && p.tuning() == o.tuning()
                    && p.awaitTimewaitExit() == o.awaitTimewaitExit()) {
                return m;
            }
        }
        return lastActive = new ActiveConnectionMachine(activePolicy(o));
    }

    // ------------------------------------------------------------------ what it queues

    private static final class StartConnect extends EventLoop.QueuedWork {
        private final ConnectionStarts starts;
        private final InetSocketAddress destination;
        private final ConnectOptions options;
        private final ConnectionHandler handler;
        private final CmFuture<RdmaConnection> f;
        private final long started;

        StartConnect(ConnectionStarts starts, InetSocketAddress destination, ConnectOptions options,
                     ConnectionHandler handler, CmFuture<RdmaConnection> f, long started) {
            this.starts = starts;
            this.destination = destination;
            this.options = options;
            this.handler = handler;
            this.f = f;
            this.started = started;
        }

        @Override
        public void run() {
            starts.startConnect(destination, options, handler, f, started);
        }
    }

    private static final class StartAccept extends EventLoop.QueuedWork {
        private final ConnectionStarts starts;
        private final ConnectionDriver p;
        private final InetSocketAddress peer;
        private final InetSocketAddress local;
        private final ConnectionHandler handler;
        private final AcceptOptions options;
        private final CmFuture<RdmaConnection> f;

        StartAccept(ConnectionStarts starts, ConnectionDriver p, InetSocketAddress peer, InetSocketAddress local,
                    ConnectionHandler handler, AcceptOptions options, CmFuture<RdmaConnection> f) {
            this.starts = starts;
            this.p = p;
            this.peer = peer;
            this.local = local;
            this.handler = handler;
            this.options = options;
            this.f = f;
        }

        @Override
        public void run() {
            starts.startAccept(p, peer, local, handler, options, f);
        }
    }
}
