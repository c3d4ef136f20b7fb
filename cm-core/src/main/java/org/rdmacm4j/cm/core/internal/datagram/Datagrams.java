package org.rdmacm4j.cm.core.internal.datagram;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.core.DatagramEndpoint;
import org.rdmacm4j.cm.core.DatagramHandler;
import org.rdmacm4j.cm.core.DatagramOptions;
import org.rdmacm4j.cm.core.DatagramPeer;
import org.rdmacm4j.cm.core.DeviceRemovedException;
import org.rdmacm4j.cm.core.JoinOptions;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.Membership;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RejoinPolicy;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.Failures;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.id.IdEngine;
import org.rdmacm4j.cm.core.internal.id.IdRole;
import org.rdmacm4j.cm.core.internal.id.Stats;
import org.rdmacm4j.cm.core.internal.loop.EventLoop;
import org.rdmacm4j.cm.core.internal.loop.LibraryThread;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Deadlines;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.machine.ListenerMachine;
import org.rdmacm4j.cm.statemachine.machine.ListenerState;
import org.rdmacm4j.cm.statemachine.machine.UdMachine;
import org.rdmacm4j.cm.statemachine.machine.UdState;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * UD endpoints: the endpoint's own id (the UD QP, multicast memberships with their re-join
 * policy) and its SIDR listener, SIDR queries of {@code resolve} and the SIDR answers of the
 * listener. The {@link IdRole} of every UD kind.
 *
 * <p>Threads: {@link #openDatagram} (blocking, bounded) and the {@link DatagramEndpointImpl.Control}
 * methods may be called from any thread and only queue work; everything else runs on the
 * dispatcher thread.
 */
public final class Datagrams implements IdRole, DatagramEndpointImpl.Control {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");

    private final IdEngine engine;
    private final EventLoop loop;
    private final DatagramPort port;
    private final Stats stats;
    private final Transport defaultTransport;
    private final Duration listenTimeout;
    private final EndpointCallbacks callbacks;
    private final Memberships memberships;

    public Datagrams(IdEngine engine, DatagramPort port, Transport defaultTransport, Duration listenTimeout) {
        this.engine = engine;
        this.loop = engine.loop();
        this.port = port;
        this.stats = engine.stats();
        this.defaultTransport = defaultTransport;
        this.listenTimeout = listenTimeout;
        this.callbacks = new EndpointCallbacks(stats);
        this.memberships = new Memberships(engine, callbacks);
        engine.serve(this, IdDriver.Kind.DATAGRAM, IdDriver.Kind.DATAGRAM_LISTENER, IdDriver.Kind.SIDR_QUERY,
                IdDriver.Kind.SIDR_ANSWER);
    }

    private UdDriver newDriver(IdDriver.Kind kind, org.rdmacm4j.cm.statemachine.CmIdMachine<?, ?> machine,
                               MachineState<?> initial, NativeId nid, DatagramEndpointImpl ep) {
        return engine.register(new UdDriver(kind, engine.nextSerial(), machine, initial, engine.historySize(),
                engine.now(), engine.newCallbacks(), ep), nid);
    }

    // ------------------------------------------------------------------ API entry points (any thread)

    /**
     * Opens a datagram endpoint: a UD listener bound to {@code local} (answers SIDR requests) and a
     * UD id resolved on the same address that gets the UD QP. Waits (bounded) until the QP exists.
     */
    public DatagramEndpoint openDatagram(InetSocketAddress local, DatagramOptions options, DatagramHandler handler) {
        LibraryThread.refuseBlocking("openDatagram()");
        DatagramEndpointImpl ep = new DatagramEndpointImpl(this, handler, options);
        CmFuture<Object> f = new CmFuture<>();
        loop.submit(f, () -> {
            NativeId lid = null;
            NativeId mid;
            try {
                lid = port.createUdId();
                port.bind(lid, local);
                port.listen(lid, options.backlog());
                mid = port.createUdId();
            } catch (PortCallException e) {
                if (lid != null) {
                    port.destroyId(lid);
                }
                String why = "cannot open a datagram endpoint on " + local + ": " + e.getMessage();
                f.completeExceptionally(e.noDevice() ? new DeviceRemovedException(why, List.of(), e)
                        : new RdmaCmException(why, List.of(), e));
                return;
            }
            UdDriver l = newDriver(IdDriver.Kind.DATAGRAM_LISTENER,
                    new ListenerMachine(ListenOptions.defaults().listenerPolicy()), ListenerState.listening(), lid, ep);
            ep.listener = l;
            ep.local = port.localAddress(lid);
            UdDriver d = newDriver(IdDriver.Kind.DATAGRAM, new UdMachine(udPolicy(false, Deadlines.defaults())),
                    UdState.initial(), mid, ep);
            ep.main = d;
            d.source = new InetSocketAddress(local.getAddress(), 0);
            d.destination = new InetSocketAddress(local.getAddress(), 0);
            long req = engine.owe(d, f, x -> ep);
            engine.feed(d, new Input.Command.Connect(req, PrivateData.none(MessageKind.SIDR_REQUEST)));
        });
        // The machine's own connect deadline (address resolution, QP) is the real bound, typed and with
        // history; this wait only guards against a dispatcher that no longer runs. It is generous: the
        // first endpoint of a cold JVM loads the UD classes on the dispatcher, which took 7-15 s under
        // the QEMU/TCG guest with its class path on 9p.
        long waitMs = Math.max(listenTimeout.toMillis(), Deadlines.defaults().connect().toMillis() + 20_000);
        try {
            f.get(waitMs, TimeUnit.MILLISECONDS);
            return ep;
        } catch (ExecutionException e) {
            close(ep);
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new RdmaCmException("cannot open a datagram endpoint on " + local, List.of(), e.getCause());
        } catch (TimeoutException e) {
            close(ep);
            IdDriver m = ep.main;
            throw new RdmaCmException("open a datagram endpoint on " + local + ": not ready within " + waitMs + " ms",
                    m == null ? List.of() : m.historySnapshot(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close(ep);
            throw new RdmaCmException("open a datagram endpoint on " + local + " interrupted", List.of(), e);
        }
    }

    @Override
    public CompletableFuture<DatagramPeer> resolve(DatagramEndpointImpl ep, InetSocketAddress remote) {
        CmFuture<DatagramPeer> f = new CmFuture<>();
        loop.submit(f, () -> {
            if (f.isDone()) {
                return;
            }
            if (ep.main == null || ep.main.retired || ep.path == null) {
                f.completeExceptionally(new ConnectionClosedException(ep + " is closed", List.of()));
                return;
            }
            NativeId nid;
            try {
                nid = port.createUdId();
            } catch (PortCallException e) {
                f.completeExceptionally(new ConnectionFailedException("resolve " + remote + ": " + e.getMessage(),
                        List.of(), e));
                return;
            }
            Deadlines dd = Deadlines.defaults();
            Duration t = ep.options.resolveTimeout();
            Deadlines deadlines = new Deadlines(t, min(dd.resolveAddr(), t), min(dd.resolveRoute(), t), dd.decision(),
                    dd.accept(), dd.disconnect(), dd.timewait(), dd.drain(), dd.quiesce());
            UdDriver d = newDriver(IdDriver.Kind.SIDR_QUERY, new UdMachine(udPolicy(true, deadlines)),
                    UdState.initial(), nid, ep);
            d.source = new InetSocketAddress(ep.local.getAddress(), 0);
            d.destination = remote;
            long req = engine.owe(d, f, x -> x);
            f.onCancel(() -> loop.execute(() -> engine.feed(d, new Input.Command.Cancel())));
            engine.feed(d, new Input.Command.Connect(req, PrivateData.none(MessageKind.SIDR_REQUEST)));
        });
        return f;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public CompletableFuture<Membership> join(DatagramEndpointImpl ep, InetAddress group, JoinOptions options) {
        return memberships.join(ep, group, options);
    }

    @Override
    public CompletableFuture<Void> leave(DatagramEndpointImpl ep, MembershipImpl m) {
        return memberships.leave(ep, m);
    }

    /** Closes both ids of the endpoint; the future completes when both are retired. */
    @Override
    public CompletableFuture<Void> close(DatagramEndpointImpl ep) {
        if (loop.closedNormally()) {
            return CompletableFuture.completedFuture(null);
        }
        loop.execute(() -> {
            engine.closeQuietly(ep.main);
            engine.closeQuietly(ep.listener);
        });
        return ep.closed.copy();
    }

    /** Runs {@code work} (a peer's address handle destroy) on the dispatcher. Any thread. */
    @Override
    public void onDispatcher(Runnable work) {
        loop.submit(new CompletableFuture<>(), work);
    }

    @Override
    public void callbackFailed(DatagramEndpointImpl ep, Throwable t) {
        callbacks.failed(ep, t);
    }

    private ConnectionPolicy udPolicy(boolean sidr, Deadlines deadlines) {
        ConnectOptions o = ConnectOptions.defaults();
        // No re-joins in the machine: this role applies each membership's RejoinPolicy (backoff).
        return new ConnectionPolicy(defaultTransport, deadlines, RetryPolicy.never(), o.tuning(), false, false,
                sidr, 0);
    }

    // ------------------------------------------------------------------ the role (dispatcher thread)

    @Override
    public boolean runNative(IdDriver id, Action.NativeCall call) {
        UdDriver d = (UdDriver) id;
        switch (call.variant()) {
            case CREATE_QP -> {
                if (d.kind == IdDriver.Kind.DATAGRAM) {
                    DatagramPath p = port.createUdQp(d.nativeId, d.endpoint.options);
                    p.bind(d.endpoint);
                    d.endpoint.path = p;
                }
                // SIDR ids have no QP of their own: the reply names the endpoint's QP.
                return true;
            }
            case ACCEPT -> {
                if (d.kind != IdDriver.Kind.SIDR_ANSWER) {
                    return false;
                }
                DatagramPath p = d.endpoint.path;
                if (p == null) {
                    throw new PortCallException("rdma_accept", 11, "the endpoint has no QP (yet or any more)", null);
                }
                port.acceptSidr(d.nativeId, ((Action.Accept) call).privateData(), p.qpNumber());
                return true;
            }
            case JOIN_MULTICAST -> {
                if (d.kind != IdDriver.Kind.DATAGRAM) {
                    return false;
                }
                String group = ((Action.JoinMulticast) call).group();
                port.joinMulticast(d.nativeId, group, Memberships.joinOptions(d, group).sendOnly());
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    @Override
    public void leaveMulticast(IdDriver d, String group) {
        if (d.kind == IdDriver.Kind.DATAGRAM) {
            port.leaveMulticast(d.nativeId, group);
        } else {
            LOG.log(Level.WARNING, d.name() + ": LeaveMulticast on a UD id without memberships ignored");
        }
    }

    /** A SIDR request on an endpoint's listener: a UD machine for its id, answered at once. */
    @Override
    public void offer(IdDriver id, Input.CmEvent ev) {
        UdDriver listener = (UdDriver) id;
        NativeId nid = engine.takeOffered(ev.seq());
        if (nid == null) {
            LOG.log(Level.WARNING, listener.name() + ": OfferRequest for an unknown request " + ev.seq());
            return;
        }
        UdMachine machine = new UdMachine(udPolicy(false, Deadlines.defaults()));
        Transition<? extends MachineState<?>> opened = machine.openRequest(ev, port.deviceLimits(nid));
        UdDriver p = newDriver(IdDriver.Kind.SIDR_ANSWER, machine, opened.next(), nid, listener.endpoint);
        p.offeredBy = listener;
        p.history.add(engine.now(), p.phase(), "CONNECT_REQUEST (SIDR)");
        engine.runOpened(p, opened.actionList());
        long req = engine.owe(p, new CmFuture<Void>(), x -> null);
        engine.feed(p, new Input.Command.Accept(req, PrivateData.none(MessageKind.SIDR_REPLY)));
    }

    /** UD outcomes become the user's objects: a resolved peer, a membership (see {@link Memberships}). */
    @Override
    public Object value(IdDriver id, Outcome outcome) {
        UdDriver d = (UdDriver) id;
        if (d.kind == IdDriver.Kind.SIDR_QUERY && outcome instanceof Outcome.UdReady) {
            DatagramPath p = d.endpoint.path;
            if (p == null) {
                throw new PortCallException("ibv_create_ah", 19, "the endpoint closed during the resolution", null);
            }
            return port.peer(d.nativeId, p, d.destination);
        }
        if (d.kind == IdDriver.Kind.DATAGRAM && outcome instanceof Outcome.Joined j) {
            JoinOptions options = d.joining.remove(j.group());
            if (options == null) {
                options = JoinOptions.defaults();
            }
            MembershipImpl m = port.membership(d.nativeId, j.group(), d.endpoint.path, d.endpoint, options);
            if (options.noLoopback()) {
                d.endpoint.path.targets.noLoopback.add(m.group());
            }
            d.memberships.put(j.group(), m);
            return m;
        }
        return outcome;
    }

    /** A SIDR id has done its one job once its future is settled: close it (deferred). */
    @Override
    public void futureSettled(IdDriver d) {
        if ((d.kind == IdDriver.Kind.SIDR_QUERY || d.kind == IdDriver.Kind.SIDR_ANSWER) && !d.terminal()) {
            engine.closeQuietly(d);
        }
    }

    /** Notices of an endpoint's ids go to its DatagramHandler; those of SIDR ids are only logged. */
    @Override
    public void notice(IdDriver id, Notice n) {
        UdDriver d = (UdDriver) id;
        DatagramEndpointImpl ep = d.endpoint;
        if (ep == null || d.kind != IdDriver.Kind.DATAGRAM && d.kind != IdDriver.Kind.DATAGRAM_LISTENER) {
            LOG.log(Level.DEBUG, () -> d.name() + ": " + n);
            return;
        }
        switch (n.variant()) {
            case MULTICAST_REJOINED -> {
                Notice.MulticastRejoined m = (Notice.MulticastRejoined) n;
                MembershipImpl mem = d.memberships.get(m.group());
                if (mem != null) {
                    mem.rejoinAttempts = 0;
                    callbacks.call(ep, h -> h.onMembershipRejoined(ep, mem));
                }
            }
            case MULTICAST_LOST -> memberships.lost(ep, d, (Notice.MulticastLost) n);
            case ADDRESS_CHANGED -> callbacks.call(ep, h -> h.onAddressChanged(ep));
            case ERROR -> {
                Notice.Error e = (Notice.Error) n;
                var ex = Failures.forHandler(e.failure(), d.name(), d.historySnapshot());
                callbacks.call(ep, h -> h.onError(ep, ex));
            }
            case DEVICE_REMOVED -> {
                var ex = new DeviceRemovedException(d.name() + ": the RDMA device was removed", d.historySnapshot());
                callbacks.call(ep, h -> h.onError(ep, ex));
            }
            default -> LOG.log(Level.DEBUG, () -> d.name() + ": " + n);
        }
    }

    /** One of an endpoint's two ids ended: end the other too; the endpoint is closed once both are. */
    @Override
    public void retired(IdDriver id) {
        if (id.kind != IdDriver.Kind.DATAGRAM && id.kind != IdDriver.Kind.DATAGRAM_LISTENER) {
            return;   // SIDR ids: nothing of the endpoint ends with them
        }
        UdDriver d = (UdDriver) id;
        DatagramEndpointImpl ep = d.endpoint;
        if (d.kind == IdDriver.Kind.DATAGRAM) {
            for (String g : List.copyOf(d.memberships.keySet())) {
                Memberships.drop(d, g);
            }
        }
        IdDriver other = d == ep.main ? ep.listener : ep.main;
        if (other != null && !other.retired) {
            if (!loop.stopRequested()) {
                engine.closeQuietly(other);
            }
            return;
        }
        ep.main.callbacks.execute(() -> {
            ep.closed.complete(null);
            try {
                ep.handler.onClosed(ep);
            } catch (Throwable t) {
                callbacks.failed(ep, t);
            }
        });
    }
}
