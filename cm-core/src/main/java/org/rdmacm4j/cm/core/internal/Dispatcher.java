package org.rdmacm4j.cm.core.internal;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.rdmacm4j.cm.core.CmStatistics;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.DatagramEndpoint;
import org.rdmacm4j.cm.core.DatagramHandler;
import org.rdmacm4j.cm.core.DatagramOptions;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RequestHandler;
import org.rdmacm4j.cm.core.internal.connection.Connections;
import org.rdmacm4j.cm.core.internal.datagram.Datagrams;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.EventRouter;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.id.IdEngine;
import org.rdmacm4j.cm.core.internal.listener.Listeners;
import org.rdmacm4j.cm.core.internal.listener.Passives;
import org.rdmacm4j.cm.core.internal.loop.EventLoop;
import org.rdmacm4j.cm.core.internal.loop.LibraryThread;
import org.rdmacm4j.cm.core.internal.loop.TimerQueue;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Transport;

/**
 * The CM dispatcher of one RdmaCm, assembled: the {@link EventLoop} (one thread that owns every
 * rdma_cm_id and every native control call), the {@link IdEngine} that steps each id's machine,
 * and one role per kind of id ({@link Connections}, {@link Listeners}, {@link Datagrams}). It
 * wires them, hands the API's calls to the role they belong to, and runs the RdmaCm's shutdown.
 * What a turn of the loop does is here too ({@link #turn}): drain the port's events into the
 * engine, fire the step barriers' and the machines' timers, retire what is left at the end.
 *
 * <p>Threads: every public method may be called from any thread (listen, openDatagram and
 * shutdown block, bounded, and refuse to run on a library thread); they only queue work.
 */
public final class Dispatcher {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    /** See {@link EventLoop#TASKS_PER_TURN}. */
    static final int TASKS_PER_TURN = EventLoop.TASKS_PER_TURN;
    /** See {@link Connections#FLUSH_GRACE_NANOS}. */
    static final long FLUSH_GRACE_NANOS = Connections.FLUSH_GRACE_NANOS;

    /** Tunables of one dispatcher (from RdmaCm.Builder). */
    public record Config(int historySize, Transport defaultTransport, Duration listenTimeout) { }

    private final NativePort port;
    private final EventLoop loop;
    private final IdEngine engine;
    private final EventRouter events;
    private final Connections connections;
    private final Listeners listeners;
    private final Datagrams datagrams;

    public Dispatcher(NativePort port, Executor callbackBase, LongSupplier clock, Config config) {
        this.port = port;
        TimerQueue<IdDriver> timers = new TimerQueue<>();
        this.loop = new EventLoop(port, clock, timers);
        this.engine = new IdEngine(port, loop, timers, callbackBase, config.historySize());
        this.events = new EventRouter(engine);
        this.connections = new Connections(engine, port, config.defaultTransport());
        Passives passives = new Passives() {
            @Override
            public IdDriver open(org.rdmacm4j.cm.core.internal.port.NativeId nid,
                                 org.rdmacm4j.cm.statemachine.machine.PassiveConnectionMachine machine,
                                 org.rdmacm4j.cm.statemachine.MachineState<?> opened, IdDriver offeredBy,
                                 org.rdmacm4j.cm.core.KeepaliveOptions keepalive,
                                 CompletableFuture<org.rdmacm4j.cm.core.RequestExpiredException> expired) {
                return connections.openPassive(nid, machine, opened, offeredBy, keepalive, expired);
            }

            @Override
            public CompletableFuture<RdmaConnection> accept(IdDriver passive, InetSocketAddress peer,
                                                            InetSocketAddress local, ConnectionHandler handler,
                                                            org.rdmacm4j.cm.core.AcceptOptions options) {
                return connections.accept(passive, peer, local, handler, options);
            }
        };
        this.listeners = new Listeners(engine, port, passives, config.listenTimeout());
        this.datagrams = new Datagrams(engine, port, config.defaultTransport(), config.listenTimeout());
    }

    public void start() {
        loop.start(turn);
    }

    /** What each loop turn does besides queued work. Dispatcher thread. */
    private final EventLoop.Turn turn = new EventLoop.Turn() {
        @Override
        public void events() {
            port.drainEvents(events);
        }

        @Override
        public void timers(long now) {
            connections.expireStepBarrierWaits(now);
            engine.fireTimers(now);
        }

        @Override
        public void stopped(Throwable cause) {
            engine.retireAllForShutdown(cause);
        }

        @Override
        public void close() {
            port.close();
        }
    };

    // ------------------------------------------------------------------ API entry points (any thread)

    /** Starts an active connect. The arguments are validated by the caller. */
    public CompletableFuture<RdmaConnection> connect(InetSocketAddress destination, ConnectOptions options,
                                                     ConnectionHandler handler) {
        return connections.connect(destination, options, handler);
    }

    /** Creates, binds and listens on a new id; waits (bounded) for the dispatcher to do it. */
    public RdmaListener listen(InetSocketAddress address, ListenOptions options, RequestHandler handler) {
        return listeners.listen(address, options, handler);
    }

    /**
     * Opens a datagram endpoint: a UD listener bound to {@code local} (answers SIDR requests) and a
     * UD id resolved on the same address that gets the UD QP. Waits (bounded) until the QP exists.
     */
    public DatagramEndpoint openDatagram(InetSocketAddress local, DatagramOptions options, DatagramHandler handler) {
        return datagrams.openDatagram(local, options, handler);
    }

    public CmStatistics statistics() {
        return engine.stats().snapshot();
    }

    /** Null while healthy; the cause once the dispatcher died. */
    public Throwable brokenCause() {
        return loop.brokenCause();
    }

    /** The dispatcher thread's id (for per-thread CPU and allocation figures). */
    public long threadId() {
        return loop.threadId();
    }

    /**
     * Closes (or aborts) every id, waits for them up to {@code deadline}, stops the thread and
     * frees the port. Any thread but a library thread. Idempotent.
     */
    public void shutdown(boolean graceful, Duration deadline) {
        LibraryThread.refuseBlocking("RdmaCm.close()");
        long end = System.nanoTime() + deadline.toNanos();
        CompletableFuture<List<CompletableFuture<Void>>> closing = new CompletableFuture<>();
        boolean queued = loop.submit(closing, () -> {
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (IdDriver d : engine.liveIds()) {
                CmFuture<Void> f = new CmFuture<>();
                long req = engine.owe(d, f, x -> null);
                all.add(f);
                engine.feed(d, graceful ? new Input.Command.Close(req) : new Input.Command.Abort(req));
            }
            closing.complete(all);
        });
        if (queued) {
            try {
                List<CompletableFuture<Void>> all = closing.get(remaining(end), TimeUnit.NANOSECONDS);
                CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                        .get(remaining(end), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                LOG.log(Level.WARNING, "RdmaCm close: ids still open after " + deadline + ": ("
                        + engine.stats().liveIds + " ids)");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                LOG.log(Level.WARNING, "RdmaCm close: " + e.getCause());
            }
        }
        loop.requestStop();
        try {
            loop.stoppedFuture().get(Math.max(remaining(end), TimeUnit.SECONDS.toNanos(5)), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            LOG.log(Level.ERROR, "RdmaCm close: the dispatcher thread did not stop; leaving it");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            LOG.log(Level.WARNING, "RdmaCm close: " + e.getCause());
        }
    }

    private static long remaining(long end) {
        return Math.max(0, end - System.nanoTime());
    }
}
