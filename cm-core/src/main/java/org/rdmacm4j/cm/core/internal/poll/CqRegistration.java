package org.rdmacm4j.cm.core.internal.poll;

import org.rdmacm4j.verbs.ibv.CompletionChannel;
import org.rdmacm4j.verbs.ibv.CompletionQueue;

/**
 * One CQ's registration with its completion poller, made when work can first be posted on the CQ
 * rather than when the CQ is created. A CQ with nothing posted on it produces no completion and,
 * never armed, no channel event; so a connection on which no work is ever posted (a raw connection
 * without keepalive whose application never posts: a control connection, a connect/close
 * benchmark) costs its poller nothing: no register command (hand-off, {@code ibv_req_notify_cq},
 * {@code epoll_ctl ADD}), and at teardown no drain and no quiesce round trip (eventfd writes and
 * wake-ups both ways, {@code epoll_ctl DEL}): {@link #drain} and {@link #quiesce} answer at once.
 *
 * <p>Who starts it, before posting anything: the port at QP creation when a message channel posts
 * its receives then, and for a UD endpoint's receives; the dispatcher when a keepalive starts; the
 * first one-sided operation; the application's first {@code RdmaConnection.raw()}, which is the
 * only way to reach the queue pair, so the CQ is registered before the application can post.
 *
 * <p>The arm-then-poll race: the application may post the moment {@code raw()} returns, before the
 * poller ran the register command, so a completion can be in the CQ before it is first armed, and
 * arming does not raise an event for it. The poller's register command arms the CQ and then polls
 * it once ({@link CompletionPoller#register}); whatever completes after that poll raises an event.
 *
 * <p>Threads and ownership. The poller is chosen by the dispatcher when the CQ is created and never
 * changes. {@link #start} may come from any thread (the application's); {@link #drain},
 * {@link #startKeepalive}, {@link #quiesce} and {@link #mayDestroy} come from the dispatcher only.
 * The state (unregistered, registered, quiesced, or closed without ever having been registered)
 * and the token belong to this object and change only under its monitor, where a start racing a
 * close is decided: whichever takes the monitor
 * first wins. A start that wins queues its register command under the monitor, so the quiesce
 * that follows sees it registered and queues its command after it (each poller runs its commands
 * in order); a quiesce that wins leaves the CQ unregistered for good, and the start returns false
 * (the caller posts nothing, so the CQ and its channel can be destroyed without any poller having
 * touched them). The monitor is taken once per CQ on the way up (a volatile read after that) and
 * once at teardown, by two threads only in the race it decides.
 *
 * <p>Why not keep the state the dispatcher's alone. The application reaches the queue pair through
 * {@code raw()}, a synchronous accessor it may call from any thread, including a callback and the
 * poller ({@code onCompletion}); routing its first call through the dispatcher would block the
 * caller for a loop turn (behind a burst of CM events, for as long as the burst), needs a deadline
 * of its own and a special case for the dispatcher's own thread, where it would deadlock. Deciding
 * at connect time which connections need polling is not possible either: the API has no "I will
 * post" option, and the raw connections that never post are exactly the ones this saves. A monitor
 * on the one object both sides share costs nothing measurable and keeps one owner per decision.
 */
public final class CqRegistration implements CompletionWatch {
    private static final int UNREGISTERED = 0;
    private static final int REGISTERED = 1;
    private static final int QUIESCED = 2;
    /** Closed to registration without ever being registered: no poller saw it, it was never armed. */
    private static final int CLOSED_UNUSED = 3;

    private final PollerCommands poller;
    private final CompletionChannel channel;
    private final CompletionQueue cq;
    private final CompletionSink sink;
    /** Written under the monitor only; read without it by {@link #start}'s fast path. */
    private volatile int state = UNREGISTERED;
    /** The poller's name for the CQ; written under the monitor before {@code state} becomes REGISTERED. */
    private long token;

    /** The registration of {@code cq} (and its {@code channel}) with {@code poller}, not made yet. Dispatcher. */
    public CqRegistration(PollerCommands poller, CompletionChannel channel, CompletionQueue cq, CompletionSink sink) {
        this.poller = poller;
        this.channel = channel;
        this.cq = cq;
        this.sink = sink;
    }

    /** Registers the CQ with its poller unless it is already; false once it was quiesced. Any thread. */
    @Override
    public boolean start() {
        int s = state;
        if (s != UNREGISTERED) {
            return s == REGISTERED;
        }
        synchronized (this) {
            if (state == UNREGISTERED) {
                token = poller.register(channel, cq, sink);   // queued: ordered before any later command
                state = REGISTERED;
            }
            return state == REGISTERED;
        }
    }

    /** True once registered and until quiesced. Any thread. */
    public boolean registered() {
        return state == REGISTERED;
    }

    /**
     * The QP was moved to ERR: collects its flushes, then runs {@code drained}; at once (on this
     * thread) if the CQ was never registered: nothing was posted, so nothing flushes. Dispatcher.
     */
    public void drain(Runnable drained) {
        if (state == REGISTERED) {   // only the dispatcher leaves REGISTERED: still so below
            poller.drain(token, drained);
        } else {
            drained.run();
        }
    }

    /**
     * Registers the CQ if needed and starts ticking {@code keepalive} on its poller (whose probes are
     * posted there). False if the CQ was already quiesced. Dispatcher.
     */
    public boolean startKeepalive(Keepalive keepalive) {
        if (!start()) {
            return false;
        }
        poller.startKeepalive(token, keepalive);
        return true;
    }

    /**
     * No poller touches the CQ after {@code quiesced} runs: a registered CQ is quiesced by its poller
     * (every CQ event taken and acked); one never registered is closed to registration and
     * {@code quiesced} runs at once, on this thread. A second call runs it at once. Dispatcher.
     */
    public void quiesce(Runnable quiesced) {
        boolean wasRegistered;
        synchronized (this) {
            wasRegistered = state == REGISTERED;
            state = closed(state);
        }
        if (wasRegistered) {
            poller.quiesce(token, quiesced);
        } else {
            quiesced.run();
        }
    }

    /**
     * Whether the CQ may be destroyed now: true if it was quiesced or never registered (which closes
     * it to registration); false if a poller may still touch it. Dispatcher.
     */
    public boolean mayDestroy() {
        synchronized (this) {
            if (state == REGISTERED) {
                return false;
            }
            state = closed(state);
            return true;
        }
    }

    /**
     * Closes the CQ to registration if it was never registered, as {@link #mayDestroy} does; true if
     * so (or if it already was closed unused): nothing was posted on its QP and nothing can be now.
     * False if it is or was registered. Dispatcher.
     */
    public boolean closeIfUnused() {
        synchronized (this) {
            if (state == UNREGISTERED) {
                state = CLOSED_UNUSED;
            }
            return state == CLOSED_UNUSED;
        }
    }

    /**
     * True once the CQ was closed to registration ({@link #quiesce} or {@link #mayDestroy}) without
     * ever having been registered: no poller touched it, it was never armed, so it has no channel
     * event, and since every path that posts starts the registration first, nothing was posted on
     * it. What lets the port keep the CQ for a later QP ({@code CqSpares}). Dispatcher.
     */
    public boolean closedUnused() {
        synchronized (this) {
            return state == CLOSED_UNUSED;
        }
    }

    /** The state that closing to registration leaves: quiesced if it was ever registered. */
    private static int closed(int state) {
        return state == UNREGISTERED || state == CLOSED_UNUSED ? CLOSED_UNUSED : QUIESCED;
    }
}
