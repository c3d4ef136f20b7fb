package org.rdmacm4j.cm.core.internal.id;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.core.internal.loop.EventLoop;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;
import org.rdmacm4j.cm.core.internal.loop.TimerQueue;
import org.rdmacm4j.cm.core.internal.port.CmPort;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.ActionList;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Transition;

/**
 * Drives every id's state machine, whatever its kind: feeds one input at a time to one machine, and runs the actions that mean the same for every
 * kind (native calls on the id, timers, futures, requests refused, teardown) with the CallFailed
 * contract; the kind's {@link IdRole} runs the rest. It owns the set of live ids and retires them.
 * The events reach it through {@link EventRouter}; futures are settled by {@link Completions}.
 *
 * <p>Dispatcher thread only, except {@link #command}, {@link #closeCommand} and the counters, which
 * only queue work or read.
 *
 * <p>Longer than 400 lines because its action switch names every {@link Action.Variant}, with a cast
 * per arm (an enum switch, not a pattern switch: see {@link Action#variant()}), and because what it
 * queues per command or action is a small named class here rather than a capturing lambda.
 */
public final class IdEngine {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");

    private final CmPort port;
    private final EventLoop loop;
    private final TimerQueue<IdDriver> timers;
    private final Executor callbackBase;
    private final int historySize;
    private final Stats stats = new Stats();
    private final IdRole[] roles = new IdRole[IdDriver.Kind.values().length];
    /** Per kind: whether its role overrides {@link IdRole#futureSettled} (see {@link #serve}). */
    private final boolean[] hearsFutureSettled = new boolean[IdDriver.Kind.values().length];
    private final LiveIds live = new LiveIds();
    private final OfferedRequests offered = new OfferedRequests();
    private final Completions completions;
    private final NativeCalls nativeCalls;

    /** An input for another id produced while an id's actions ran; fed once that step is done. */
    private record Deferred(IdDriver driver, Input input) { }

    // Inputs without a per-step value, made once: records, immutable, compared by value (and the
    // history describes them when read), so every step can share them.
    private static final Input CALLS_SUCCEEDED = new Input.CallsSucceeded();
    private static final Input QP_QUIESCED = new Input.Quiesced(Input.Resource.QP);
    private static final Input CQ_QUIESCED = new Input.Quiesced(Input.Resource.CQ);
    private static final Input REQUEST_SETTLED = new Input.RequestSettled();
    /** A Cancel command (it carries nothing): for the kinds' cancel hooks. */
    public static final Input.Command CANCEL = new Input.Command.Cancel();

    private final ArrayDeque<Deferred> deferred = new ArrayDeque<>();
    private boolean feeding;
    private long eventSeq;
    private long requestSeq;
    private long idSerial;

    public IdEngine(CmPort port, EventLoop loop, TimerQueue<IdDriver> timers, Executor callbackBase, int historySize) {
        this.port = port;
        this.loop = loop;
        this.timers = timers;
        this.callbackBase = callbackBase;
        this.historySize = historySize;
        this.completions = new Completions(stats);
        this.nativeCalls = new NativeCalls(port);
    }

    /**
     * Registers the role that runs the kind-specific actions of {@code kinds}. Before the loop starts.
     *
     * <p>Notes once whether the role overrides {@link IdRole#futureSettled} (only the datagram
     * kinds' does): the engine calls it on every CompleteFuture only then. The call was an
     * interface call to one of three roles (C1's itable stub, ~30-60 instructions) into an empty
     * default, four times per connection. A flag the role set, as {@link IdDriver#roleMayHold},
     * would have each role restate what its class already says.
     */
    public void serve(IdRole role, IdDriver.Kind... kinds) {
        boolean hears = overridesFutureSettled(role.getClass());
        for (IdDriver.Kind k : kinds) {
            roles[k.ordinal()] = role;
            hearsFutureSettled[k.ordinal()] = hears;
        }
    }

    /** Whether the role class (or a superclass) overrides {@link IdRole#futureSettled}'s empty default. */
    static boolean overridesFutureSettled(Class<? extends IdRole> role) {
        try {
            return role.getMethod("futureSettled", IdDriver.class).getDeclaringClass() != IdRole.class;
        } catch (NoSuchMethodException e) {
            throw new AssertionError("IdRole.futureSettled(IdDriver) is public", e);
        }
    }

    private IdRole role(IdDriver d) {
        return roles[d.kind.ordinal()];
    }

    // ------------------------------------------------------------------ what the kinds use

    public Stats stats() {
        return stats;
    }

    public EventLoop loop() {
        return loop;
    }

    /** The current turn's clock read. Dispatcher thread. */
    public long now() {
        return loop.turnNanos();
    }

    public int historySize() {
        return historySize;
    }

    /** The serial number of a new driver. Dispatcher thread. */
    public long nextSerial() {
        return ++idSerial;
    }

    /** A new request number, to key a future in a driver's {@link IdDriver#owed}. Dispatcher thread. */
    public long nextRequest() {
        return ++requestSeq;
    }

    /** A new id's own serial executor for its callbacks and future completions. */
    public SerialExecutor newCallbacks() {
        return new SerialExecutor(callbackBase);
    }

    /** A driver just made for {@code nid}: attach it and count it live. Dispatcher thread. */
    public <D extends IdDriver> D register(D d, NativeId nid) {
        nid.attach(d);
        d.nativeId = nid;
        live.add(d);
        stats.liveIds = live.size();
        return d;
    }

    /** The live ids, in creation order (a copy). Dispatcher thread. */
    public List<IdDriver> liveIds() {
        return live.snapshot();
    }

    /** Takes the native id of an offered CONNECT_REQUEST, or null if it was taken or refused. Dispatcher thread. */
    public NativeId takeOffered(long eventSeq) {
        return offered.take(eventSeq);
    }

    /** The CONNECT_REQUEST ids between their event and the listener's decision. Dispatcher thread. */
    OfferedRequests offered() {
        return offered;
    }

    /** The sequence number of the next event routed to an id. Dispatcher thread. */
    long nextEventSeq() {
        return ++eventSeq;
    }

    CmPort port() {
        return port;
    }

    /** Records a future owed by {@code d}'s machine under a new request number, which it returns. */
    @SuppressWarnings("unchecked")
    public long owe(IdDriver d, CmFuture<?> f, java.util.function.Function<Object, Object> value) {
        long req = ++requestSeq;
        d.owed.put(req, (CmFuture<Object>) f, value);
        return req;
    }

    // ------------------------------------------------------------------ commands (any thread)

    /** Close, abort or reject-like commands that complete with nothing. After shutdown: done at once. */
    public CompletableFuture<Void> closeCommand(IdDriver d, LongFunction<Input.Command> make) {
        if (loop.closedNormally()) {
            return CompletableFuture.completedFuture(null);
        }
        return command(d, make);
    }

    /** Queues a command for {@code d}'s machine whose future completes with nothing. Any thread. */
    public CompletableFuture<Void> command(IdDriver d, LongFunction<Input.Command> make) {
        CmFuture<Void> f = new CmFuture<>();
        loop.submit(f, new QueuedCommand(this, d, make, f));
        return f;
    }

    // Named classes, not capturing lambdas, for what is made per command, step or action: under C1
    // (the launchers' JIT) each capturing lambda made is a native VM call (docs/benchmarks.md,
    // "Capturing lambdas under C1").

    /** {@link #command}'s work on the dispatcher: owe its future and feed the command it makes. Its own queue node. */
    private static final class QueuedCommand extends EventLoop.QueuedWork {
        private final IdEngine engine;
        private final IdDriver d;
        private final LongFunction<Input.Command> make;
        private final CmFuture<Void> f;

        QueuedCommand(IdEngine engine, IdDriver d, LongFunction<Input.Command> make, CmFuture<Void> f) {
            this.engine = engine;
            this.d = d;
            this.make = make;
            this.f = f;
        }

        @Override
        public void run() {
            engine.feed(d, make.apply(engine.owe(d, f, x -> null)));
        }
    }

    /**
     * Run on another thread, queues the feed of {@code input} to {@code d} for the dispatcher: as an
     * answer ({@link EventLoop#answer}: a poller's drained or quiesced callback) or as a task
     * ({@link EventLoop#execute}: a future's cancel). The kinds use it too.
     *
     * <p>One object for both hops: its first run (the port's or the future's thread) queues itself,
     * its second (the dispatcher, from the queue) feeds. It used to queue a second object made for
     * the feed, four times per connection (a drain and a quiesce at each end). Run once by whoever
     * it is given to; {@code queued} is written before the queue's hand-off (a CAS) and read by the
     * dispatcher after it, so it needs no volatile. As an answer it is its own queue node
     * ({@link EventLoop.QueuedWork}); a cancel's task (rare) is wrapped as any Runnable.
     */
    public static final class FeedLater extends EventLoop.QueuedWork {
        private final IdEngine engine;
        private final IdDriver d;
        private final Input input;
        private final boolean asAnswer;
        private boolean queued;

        public FeedLater(IdEngine engine, IdDriver d, Input input, boolean asAnswer) {
            this.engine = engine;
            this.d = d;
            this.input = input;
            this.asAnswer = asAnswer;
        }

        @Override
        public void run() {
            if (queued) {
                engine.feed(d, input);   // the dispatcher, from the queue
                return;
            }
            queued = true;
            if (asAnswer) {
                engine.loop.answer(this);
            } else {
                engine.loop.execute(this);
            }
        }
    }

    /** The debug line of a native call that failed, built only if logged. */
    private record CallFailedLine(IdDriver d, PortCallException e) implements Supplier<String> {
        @Override
        public String get() {
            return d.name() + ": " + e.getMessage();
        }
    }

    /** Feeds Close to a live id with a future nobody waits for. Dispatcher thread. */
    public void closeQuietly(IdDriver d) {
        if (d == null || d.retired) {
            return;
        }
        feed(d, new Input.Command.Close(owe(d, new CmFuture<Void>(), x -> null)));
    }

    /** Fires the machine timers due at {@code now}. Dispatcher thread. */
    public void fireTimers(long now) {
        TimerQueue.Expiry<IdDriver> e;
        while ((e = timers.pollDue(now)) != null) {
            feed(e.owner(), new Input.TimerExpired(e.kind(), e.generation()));
        }
    }

    // ------------------------------------------------------------------ stepping

    /**
     * Feeds one input to one id and runs its actions; then the follow-up CallFailed or
     * CallsSucceeded the contract requires, before any other input of that id. Not re-entrant:
     * inputs produced for other ids while actions run are queued and fed afterwards, in order.
     */
    public void feed(IdDriver d, Input first) {
        if (feeding) {
            deferred.add(new Deferred(d, first));
            return;
        }
        feeding = true;
        try {
            step(d, first);
            Deferred next;
            while ((next = deferred.poll()) != null) {
                step(next.driver(), next.input());
            }
        } finally {
            feeding = false;
        }
    }

    /**
     * Steps {@code in} on {@code d} now, even inside another step (a role releasing inputs it held:
     * they happened before the input being fed). Dispatcher thread.
     */
    public void step(IdDriver d, Input first) {
        try {
            if (d.roleMayHold && role(d).holds(d, first)) {
                return;
            }
            Input in = first;
            while (in != null) {
                Transition<? extends MachineState<?>> t = d.step(in, loop.turnNanos());
                if (d.terminal() && live.remove(d)) {   // uncounted before its last futures go out (RejectStormIT)
                    stats.liveIds = live.size();
                }
                in = run(d, t.actionList());
            }
            if (d.terminal() && !d.retired) {
                retire(d);
            }
        } catch (RuntimeException | LinkageError | AssertionError e) {
            crash(d, e);
        }
    }

    /**
     * Runs the actions of a machine's open() on an id just made (a request's passive or SIDR id),
     * and feeds the follow-up input, if any (deferred: this runs inside the listener's step).
     */
    public void runOpened(IdDriver d, ActionList actions) {
        Input follow = run(d, actions);
        if (follow != null) {
            feed(d, follow);
        }
    }

    /** Runs actions in order; returns the follow-up input (CallFailed, CallsSucceeded) or null. */
    private Input run(IdDriver d, ActionList actions) {
        boolean nativeCallRan = false;
        // Indexed, on the final ActionList (a Transition's, frozen): no iterator per step, and get and
        // size are direct calls that return Action, not List's interface calls and a cast to Action.
        for (int i = 0, n = actions.size(); i < n; i++) {
            Action a = actions.get(i);
            // Read once, handed on: variant() is an interface call to one of ~30 records (an itable
            // stub under C1); the switch that runs the action used to call it a second time.
            Action.Variant v = a.variant();
            if (v.nativeCall()) {   // not instanceof, no cast: see NativeCalls#run
                try {
                    nativeCalls.run(d, a, v, role(d));
                    nativeCallRan = true;
                } catch (PortCallException e) {
                    LOG.log(Level.DEBUG, new CallFailedLine(d, e));
                    return new Input.CallFailed((Action.NativeCall) a, e.errno());
                }
            } else {
                runAction(d, a, v);
            }
        }
        return nativeCallRan ? CALLS_SUCCEEDED : null;
    }

    /** Runs one action that is not a native call; {@code v} is its {@code variant()}. */
    private void runAction(IdDriver d, Action a, Action.Variant v) {
        switch (v) {
            // Bookkeeping only: verbs acked each event when it copied it (CmEventChannel, DeviceContext).
            case ACK_CM_EVENT, ACK_ASYNC_EVENT -> { }
            case REJECT -> {
                Action.Reject r = (Action.Reject) a;
                port.reject(d.nativeId, r.privateData());
                stats.rejects.increment();
            }
            case NOTIFY -> port.notifyEstablished(d.nativeId);
            case DISCONNECT -> port.disconnect(d.nativeId);
            case DRAIN_QP -> port.drainQp(d.nativeId,
                    new FeedLater(this, d, QP_QUIESCED, true));
            case QUIESCE_CQ -> port.quiesceCq(d.nativeId,
                    new FeedLater(this, d, CQ_QUIESCED, true));
            case DESTROY_QP -> port.destroyQp(d.nativeId);
            case DESTROY_CQ -> port.destroyCq(d.nativeId);
            case DESTROY_COMP_CHANNEL -> port.destroyCompChannel(d.nativeId);
            case DESTROY_ID -> {
                if (d.idDestroyed) {
                    LOG.log(Level.WARNING, d.name() + ": a second DestroyId ignored");
                } else {
                    port.destroyId(d.nativeId);
                    d.idDestroyed = true;
                }
            }
            case LEAK_ID -> {
                Action.LeakId x = (Action.LeakId) a;
                port.leak(d.nativeId, x.why());
                d.leaked = true;
                d.idDestroyed = true;
                LOG.log(Level.WARNING, d.name() + ": native objects given up (" + x.why() + ")\n"
                        + d.historySnapshot());
            }
            case LEAVE_MULTICAST -> role(d).leaveMulticast(d, ((Action.LeaveMulticast) a).group());
            case OFFER_REQUEST -> role(d).offer(d, ((Action.OfferRequest) a).request());
            case REFUSE_REQUEST -> {
                Action.RefuseRequest r = (Action.RefuseRequest) a;
                refuse(r.request(), r.rejectData());
            }
            case SETTLE_REQUEST -> settle(d);
            case ARM_TIMER -> {
                Action.ArmTimer t = (Action.ArmTimer) a;
                timers.arm(d, t.kind(), t.generation(), loop.freshNanos() + t.delayNanos());
            }
            case CANCEL_TIMER -> timers.cancel(d, ((Action.CancelTimer) a).kind());
            case COMPLETE_FUTURE -> {
                Action.CompleteFuture c = (Action.CompleteFuture) a;
                completions.complete(d, role(d), hearsFutureSettled[d.kind.ordinal()], c.request(), c.outcome());
            }
            case FAIL_FUTURE -> {
                Action.FailFuture f = (Action.FailFuture) a;
                completions.fail(d, f.request(), f.failure());
            }
            case CALL_HANDLER -> role(d).notice(d, ((Action.CallHandler) a).notice());
            case LOG_UNEXPECTED -> logUnexpected(d, (Action.LogUnexpected) a);
            case CREATE_ID, RESOLVE_ADDR, RESOLVE_ROUTE, CREATE_QP, CONNECT, ACCEPT, JOIN_MULTICAST, RELISTEN ->
                    throw new AssertionError("native calls run in NativeCalls: " + a);
        }
    }

    /** An input the machine did not expect (a race it tolerates, or a bug): a debug line. */
    private static void logUnexpected(IdDriver d, Action.LogUnexpected u) {
        LOG.log(Level.DEBUG, () -> d.name() + ": unexpected " + u.input() + " in " + u.phase() + ": " + u.why());
    }

    // ------------------------------------------------------------------ requests

    private void refuse(Input.CmEvent request, org.rdmacm4j.cm.statemachine.Bytes rejectData) {
        NativeId nid = offered.take(request.seq());
        if (nid == null) {
            LOG.log(Level.WARNING, "RefuseRequest for an unknown request " + request.seq());
            return;
        }
        port.reject(nid, rejectData);
        port.destroyId(nid);
        stats.rejects.increment();
    }

    private void settle(IdDriver d) {
        if (d.offeredBy != null && !d.requestSettled) {
            d.requestSettled = true;
            IdDriver l = d.offeredBy;
            feed(l, REQUEST_SETTLED);
        }
    }

    // ------------------------------------------------------------------ the end of an id

    /** The machine reached its terminal phase: settle what is left and tell the application. */
    private void retire(IdDriver d) {
        if (d.retired) {
            return;
        }
        d.retired = true;
        timers.cancelAll(d);
        // Usually uncounted already, by the step that made it terminal: no second volatile write then.
        if (live.remove(d)) {
            stats.liveIds = live.size();
        }
        if (!d.owed.isEmpty()) {
            completions.failAll(d, new ConnectionClosedException(d.name() + " closed", d.historySnapshot()));
        }
        if (d.offeredBy != null) {
            settle(d);
        }
        role(d).retired(d);
    }

    /**
     * An unexpected exception while driving one id (a bug): log it with the id's history, fail that
     * id's futures, free what can be freed without blocking, and keep the dispatcher going.
     */
    private void crash(IdDriver d, Throwable e) {
        LOG.log(Level.ERROR, d.name() + " failed inside the dispatcher; only this id is affected\n"
                + d.historySnapshot(), e);
        ConnectionFailedException ex = new ConnectionFailedException(d.name() + ": internal error: " + e,
                d.historySnapshot(), e);
        completions.failAll(d, ex);
        role(d).crashed(d, ex);
        NativeId nid = d.nativeId;
        if (nid != null && !d.idDestroyed) {
            d.idDestroyed = true;
            try {
                port.quiesceCq(nid, () -> loop.answer(() -> {
                    port.destroyQp(nid);
                    port.destroyCq(nid);
                    port.destroyCompChannel(nid);
                    port.destroyId(nid);
                }));
            } catch (RuntimeException again) {
                port.leak(nid, "crashed and could not be quiesced: " + again);
                d.leaked = true;
            }
        }
        retire(d);
    }

    /** After the loop: whatever is still live (close deadline passed, or the loop died) is given up. */
    public void retireAllForShutdown(Throwable cause) {
        for (IdDriver d : liveIds()) {
            RuntimeException ex = cause == null
                    ? new ConnectionClosedException(d.name() + ": the RdmaCm closed before it did", d.historySnapshot())
                    : new ConnectionFailedException(d.name() + ": the rdmacm4j dispatcher died", d.historySnapshot(),
                    cause);
            completions.failAll(d, ex);
            if (!d.idDestroyed && d.nativeId != null) {
                port.leak(d.nativeId, "still open when its RdmaCm stopped");
                d.leaked = true;
            }
            retire(d);
        }
    }
}
