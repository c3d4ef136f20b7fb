package org.rdmacm4j.cm.core.internal.listener;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.DeviceRemovedException;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RequestExpiredException;
import org.rdmacm4j.cm.core.RequestHandler;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.id.IdEngine;
import org.rdmacm4j.cm.core.internal.id.IdRole;
import org.rdmacm4j.cm.core.internal.id.Stats;
import org.rdmacm4j.cm.core.internal.loop.EventLoop;
import org.rdmacm4j.cm.core.internal.loop.LibraryThread;
import org.rdmacm4j.cm.core.internal.port.CmPort;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Deadlines;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.machine.ListenerMachine;
import org.rdmacm4j.cm.statemachine.machine.PassiveConnectionMachine;
import org.rdmacm4j.cm.statemachine.machine.PassiveState;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * Listeners and the requests they offer: listen, re-listen after the device came back, hand each
 * request to the application (its RequestHandler, or the pull queue of {@code next()}), take its
 * decision, and refuse what nobody will decide. The {@link IdRole} of {@link IdDriver.Kind#LISTENER}
 * ids. A request's passive id is an RC connection: {@link Passives} makes and accepts it.
 *
 * <p>Threads: {@link #listen} (blocking, bounded) and the {@link ListenerImpl.Control} and
 * {@link RequestImpl.Decider} methods may be called from any thread and only queue work;
 * everything else runs on the dispatcher thread.
 */
public final class Listeners implements IdRole, ListenerImpl.Control, RequestImpl.Decider {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");

    private final IdEngine engine;
    private final EventLoop loop;
    private final CmPort port;
    private final Stats stats;
    private final Passives passives;
    private final Duration listenTimeout;

    public Listeners(IdEngine engine, CmPort port, Passives passives, Duration listenTimeout) {
        this.engine = engine;
        this.loop = engine.loop();
        this.port = port;
        this.stats = engine.stats();
        this.passives = passives;
        this.listenTimeout = listenTimeout;
        engine.serve(this, IdDriver.Kind.LISTENER);
    }

    // ------------------------------------------------------------------ API entry points (any thread)

    /** Creates, binds and listens on a new id; waits (bounded) for the dispatcher to do it. */
    public RdmaListener listen(InetSocketAddress address, ListenOptions options, RequestHandler handler) {
        LibraryThread.refuseBlocking("listen()");
        CompletableFuture<ListenerImpl> f = new CompletableFuture<>();
        loop.submit(f, () -> {
            NativeId nid = null;
            try {
                nid = port.createId();
                port.bind(nid, address);
                port.listen(nid, options.backlog());
            } catch (PortCallException e) {
                if (nid != null) {
                    port.destroyId(nid);
                }
                String why = "cannot listen on " + address + ": " + e.getMessage();
                f.completeExceptionally(e.noDevice() ? new DeviceRemovedException(why, List.of(), e)
                        : new RdmaCmException(why, List.of(), e));
                return;
            }
            ListenerDriver d = engine.register(new ListenerDriver(engine.nextSerial(),
                    new ListenerMachine(options.listenerPolicy()), engine.historySize(), engine.now(),
                    engine.newCallbacks()), nid);
            ListenerImpl l = new ListenerImpl(this, d, handler, options);
            l.local = port.localAddress(nid);
            d.listener = l;
            f.complete(l);
        });
        try {
            return f.get(listenTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new RdmaCmException("cannot listen on " + address, List.of(), e.getCause());
        } catch (TimeoutException e) {
            throw new RdmaCmException("listen on " + address + ": the dispatcher did not answer within "
                    + listenTimeout, List.of(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RdmaCmException("listen on " + address + " interrupted", List.of(), e);
        }
    }

    @Override
    public CompletableFuture<RdmaConnection> accept(RequestImpl r, ConnectionHandler handler, AcceptOptions options) {
        return passives.accept(r.driver, r.peerAddress(), r.localAddress(), handler, options);
    }

    @Override
    public CompletableFuture<Void> reject(RequestImpl r, PrivateData payload) {
        return engine.command(r.driver, req -> new Input.Command.Reject(req, payload));
    }

    @Override
    public CompletableFuture<Void> close(IdDriver driver) {
        return engine.closeCommand(driver, Input.Command.Close::new);
    }

    /** A pull-form request nobody will take (the listener is closing): refuse it. Any thread. */
    @Override
    public void refuseQueued(RequestImpl r) {
        loop.execute(() -> engine.feed(r.driver,
                new Input.Command.Close(engine.owe(r.driver, new CmFuture<Void>(), x -> null))));
    }

    // ------------------------------------------------------------------ the role (dispatcher thread)

    @Override
    public boolean runNative(IdDriver d, Action.NativeCall call) {
        if (call instanceof Action.Relisten) {
            relisten((ListenerDriver) d);
            return true;
        }
        return false;
    }

    private void relisten(ListenerDriver d) {
        ListenerImpl l = d.listener;
        NativeId nid = port.createId();
        try {
            port.bind(nid, l.local);
            port.listen(nid, l.options.backlog());
        } catch (PortCallException e) {
            port.destroyId(nid);
            throw e;
        }
        nid.attach(d);
        d.nativeId = nid;
        d.idDestroyed = false;
    }

    /** OfferRequest: the passive id of the request, its public face, and the application's turn to decide. */
    @Override
    public void offer(IdDriver id, Input.CmEvent ev) {
        ListenerDriver listener = (ListenerDriver) id;
        NativeId nid = engine.takeOffered(ev.seq());
        if (nid == null) {
            LOG.log(Level.WARNING, listener.name() + ": OfferRequest for an unknown request " + ev.seq());
            return;
        }
        ListenerImpl l = listener.listener;
        Transport transport = port.transport(nid);
        PassiveConnectionMachine machine = listener.passiveMachine;
        if (machine == null || machine.policy().transport() != transport) {
            machine = listener.passiveMachine = new PassiveConnectionMachine(passivePolicy(l.options, transport));
        }
        Transition<PassiveState> opened = machine.open(ev, port.deviceLimits(nid));
        CompletableFuture<RequestExpiredException> expired = new CompletableFuture<>();
        IdDriver p = passives.open(nid, machine, opened.next(), listener, l.options.keepalive(), expired);
        p.history.add(engine.now(), p.phase(), "CONNECT_REQUEST");
        RequestImpl r = new RequestImpl(this, p, port.peerAddress(nid), port.localAddress(nid),
                opened.next().context().peerData(), expired);   // decoded once, by the machine's open
        engine.runOpened(p, opened.actionList());
        if (l.handler != null && l.options.decideOnDispatcher()) {
            decide(l.handler, r);   // asked for (ListenOptions.decideOnDispatcher): here, no hand-off
        } else if (l.handler != null) {
            p.callbacks.execute(new Decide(this, l.handler, r));
        } else {
            l.enqueue(r, p.callbacks);
        }
    }

    /**
     * The application's decision on {@code r}: on the callback executor, or on the dispatcher when the
     * listener asked for it. Either way a throwing handler rejects the request and cannot reach the loop.
     */
    private void decide(RequestHandler h, RequestImpl r) {
        try {
            h.onRequest(r);
        } catch (Throwable t) {
            stats.callbackFailures.increment();
            LOG.log(Level.WARNING, "RequestHandler threw for " + r + "; rejecting the request", t);
            r.reject();
        }
    }

    /**
     * {@link #decide} on the callback executor. A named class, not a capturing lambda: one is made per
     * request, and under C1 each capturing lambda made is a native VM call (docs/benchmarks.md,
     * "Capturing lambdas under C1"). The rare paths here (listen, reject, a queued request refused,
     * a listener's notices) keep their lambdas.
     */
    private record Decide(Listeners listeners, RequestHandler h, RequestImpl r) implements Runnable {
        @Override
        public void run() {
            listeners.decide(h, r);
        }
    }

    @Override
    public void notice(IdDriver id, Notice n) {
        ListenerImpl l = ((ListenerDriver) id).listener;
        switch (n.variant()) {
            case ADDRESS_CHANGED -> listenerNotice(l, "ADDR_CHANGE", h -> h.onAddressChanged(l));
            case DEVICE_REMOVED -> listenerNotice(l, "DEVICE_REMOVAL", h -> h.onDeviceRemoved(l));
            case MULTICAST_REJOINED -> LOG.log(Level.DEBUG, id.name() + ": rejoined " + ((Notice.MulticastRejoined) n).group());
            case MULTICAST_LOST -> LOG.log(Level.WARNING, id.name() + ": lost multicast group " + ((Notice.MulticastLost) n).group());
            // A listener has no connection: what a connection's handler would hear has nobody to hear it.
            case ESTABLISHED -> { }
            case DISCONNECTED -> { }
            case ERROR -> { }
            case ASYNC -> { }
            case REQUEST_EXPIRED -> { }
        }
    }

    /** A listener's ADDR_CHANGE or DEVICE_REMOVAL goes to its RequestHandler (pull-form listeners have none: history only). */
    private void listenerNotice(ListenerImpl l, String what, Consumer<RequestHandler> call) {
        LOG.log(Level.INFO, () -> l.driver.name() + ": " + what);
        if (l.handler == null) {
            return;
        }
        l.driver.callbacks.execute(() -> {
            try {
                call.accept(l.handler);
            } catch (Throwable t) {
                stats.callbackFailures.increment();
                LOG.log(Level.WARNING, "the RequestHandler of " + l + " threw on " + what + "; ignored", t);
            }
        });
    }

    @Override
    public CompletableFuture<Void> closedFuture(IdDriver d) {
        return ((ListenerDriver) d).listener.closed;
    }

    @Override
    public void retired(IdDriver d) {
        ListenerImpl l = ((ListenerDriver) d).listener;
        if (l == null) {
            return;
        }
        for (RequestImpl untaken : l.closeQueue()) {
            refuseQueued(untaken);
        }
        l.closed.completeThrough(d.callbacks, null);
    }

    private static ConnectionPolicy passivePolicy(ListenOptions o, Transport transport) {
        Deadlines d = Deadlines.defaults();
        Deadlines deadlines = new Deadlines(d.connect(), d.resolveAddr(), d.resolveRoute(), o.decisionTimeout(),
                o.acceptTimeout(), d.disconnect(), d.timewait(), d.drain(), d.quiesce());
        return new ConnectionPolicy(transport, deadlines, RetryPolicy.never(), o.tuning(), false, true, false, 3);
    }
}
