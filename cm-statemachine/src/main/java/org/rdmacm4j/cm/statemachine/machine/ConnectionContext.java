package org.rdmacm4j.cm.statemachine.machine;

import com.google.common.collect.ImmutableSortedMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.Timers;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * The data an active, passive or UD id carries besides its phase: which native objects exist,
 * which futures are owed, which timers are armed. Immutable; a step works on a {@link Draft} and
 * freezes it.
 *
 * <p>Held as the fields nearly every step writes (the flags, the open's request number, the
 * timers) and one {@link RarelySet} value for the values few steps write (the references and the
 * retry count), shared from context to context until a step changes one of them. Why: every step
 * of every id makes a context and a draft on the dispatcher thread; with all twenty-three values
 * in each, the two were about a third of the bytes StepCostHarness counts per connection. The
 * accessors and the constructor of all twenty-three values stay as they were.
 *
 * @param pendingOpen     request number of the connect/accept future still owed, 0 if none
 * @param closeRequest    request number of the first close (or abort) waiter when {@link #CLOSE_WAITED}
 *                        is set, 0 otherwise; later close waiters are the RarelySet's. Why here and not
 *                        all in the RarelySet: every close has one, and as a {@code List<Long>} there it
 *                        cost a Long, a list and two RarelySet copies (one to add it, one to take it)
 *                        per close; as a scalar it costs none (see {@link #closeWaiters()})
 * @param flags           the ten flags below, one bit each ({@link #HAS_ID} ...), read by their
 *                        accessors: one int for the draft to copy and compare, and for a new context
 *                        to store, where ten booleans were ten of each per step; and
 *                        {@link #CLOSE_WAITED}
 *
 * <p>The flags (each an accessor; the constructor of the record this was takes them one by one):
 * <ul>
 * <li>{@code hasId}: the rdma_cm_id exists
 * <li>{@code hasQp}: the QP exists
 * <li>{@code hasCq}: the CQ(s) and completion channel exist
 * <li>{@code connectSent}: rdma_connect/rdma_accept was issued (a connection may exist to disconnect)
 * <li>{@code connectionLost}: the CM already ended the connection (DISCONNECTED, REJECTED, UNREACHABLE...)
 * <li>{@code disconnectSent}: rdma_disconnect was issued
 * <li>{@code established}: ESTABLISHED was seen (the handler is live)
 * <li>{@code settleOwed}: opened from a request and still in REQUEST_RECEIVED: SettleRequest is owed
 * <li>{@code connectOutstanding}: rdma_connect was issued and its result event (ESTABLISHED, REJECTED,
 *     CONNECT_ERROR, UNREACHABLE, DISCONNECTED) has not arrived; on iWARP a disconnect or destroy
 *     would block until it does
 * <li>{@code disconnectAnswered}: the peer's DISCONNECTED was answered with rdma_disconnect (the DREP
 *     of a crossing disconnect), once per id
 * </ul>
 *
 * @param timers          the armed timers
 * @param rarelySet       the values few steps write (see {@link RarelySet})
 */
public record ConnectionContext(long pendingOpen, long closeRequest, int flags, Timers timers, RarelySet rarelySet) {
    /** Bit of {@link #flags}: {@link #hasId()}. */
    static final int HAS_ID = 1 << 0;
    /** Bit of {@link #flags}: {@link #hasQp()}. */
    static final int HAS_QP = 1 << 1;
    /** Bit of {@link #flags}: {@link #hasCq()}. */
    static final int HAS_CQ = 1 << 2;
    /** Bit of {@link #flags}: {@link #connectSent()}. */
    static final int CONNECT_SENT = 1 << 3;
    /** Bit of {@link #flags}: {@link #connectionLost()}. */
    static final int CONNECTION_LOST = 1 << 4;
    /** Bit of {@link #flags}: {@link #disconnectSent()}. */
    static final int DISCONNECT_SENT = 1 << 5;
    /** Bit of {@link #flags}: {@link #established()}. */
    static final int ESTABLISHED = 1 << 6;
    /** Bit of {@link #flags}: {@link #settleOwed()}. */
    static final int SETTLE_OWED = 1 << 7;
    /** Bit of {@link #flags}: {@link #connectOutstanding()}. */
    static final int CONNECT_OUTSTANDING = 1 << 8;
    /** Bit of {@link #flags}: {@link #disconnectAnswered()}. */
    static final int DISCONNECT_ANSWERED = 1 << 9;
    /**
     * Bit of {@link #flags}: a close waits, the first in {@link #closeRequest} (not one of the ten
     * flags: part of {@link #closeWaiters()}). A bit, not {@code closeRequest != 0}: any request
     * number, 0 too, is a waiter to complete.
     */
    static final int CLOSE_WAITED = 1 << 10;

    /** Where a retry resumes. */
    public enum RetryFrom {
        /** ADDR_ERROR: the kernel put the id back to ADDR_BOUND; resolve the address again. */
        RESOLVE_ADDR,
        /** ROUTE_ERROR: the id is back in ADDR_RESOLVED; resolve the route again. */
        RESOLVE_ROUTE,
        /** REJECTED: a rejected id cannot connect again; create a fresh id and start over. */
        NEW_ID
    }

    /** A multicast group: {@code request} is the join future still owed (0 if none or a re-join). */
    public record Group(long request, boolean joined, int rejoins) { }

    /**
     * The values of a context that few steps write (its references and the retry count), one value
     * shared by every context until a step changes one of them (then a new value, copied once:
     * {@code with...}).
     *
     * @param openPayload     private data to send with (re)connects or the accept
     * @param attempts        retries used by the current connect
     * @param closeWaiters    close (and abort) requests to complete when the id is closed, in order,
     *                        after the context's {@link ConnectionContext#closeRequest} (the first; none
     *                        here unless there is one)
     * @param disconnectWaiters disconnect requests to complete when the connection ends, in order
     * @param retryFrom       where the next retry starts
     * @param groups          UD: multicast groups joined or being joined, by group
     * @param peerData        passive/UD server: the decoded private data of the request (what the
     *                        application and the Connected outcome see); otherwise nothing
     * @param requestParams   passive/UD server: the request's copied params; otherwise None
     * @param acceptTuning    passive: the CmTuning rdma_accept uses, clamped to the request and the
     *                        device at open; null for ids not opened from a request
     * @param expired         the request expired before a decision; later accept/reject/close fail with it
     * @param pendingOutcome  the outcome of {@code pendingOpen}, completed on CallsSucceeded (the open's
     *                        last fallible calls ran in the previous step); null if none is deferred
     */
    public record RarelySet(PrivateData openPayload, int attempts, List<Long> closeWaiters,
                            List<Long> disconnectWaiters, RetryFrom retryFrom, Map<String, Group> groups,
                            PrivateData.Received peerData, EventParams requestParams, CmTuning acceptTuning,
                            Failure.Expired expired, Outcome pendingOutcome) {
        public RarelySet {
            closeWaiters = waiters(closeWaiters);
            disconnectWaiters = waiters(disconnectWaiters);
            Objects.requireNonNull(retryFrom, "retryFrom");
            // RC ids never have groups: no sorted copy per step for them. Guava's ImmutableSortedMap
            // returns an unchanged immutable map as it is, so a step that leaves the groups alone
            // copies nothing either (a TreeMap and its unmodifiable wrapper were made per step before).
            // The identity check first: Map.isEmpty is an interface call, once per value made.
            groups = groups == NO_GROUPS || groups.isEmpty() ? NO_GROUPS : ImmutableSortedMap.copyOf(groups);
            Objects.requireNonNull(peerData, "peerData");
            Objects.requireNonNull(requestParams, "requestParams");
        }

        RarelySet withOpenPayload(PrivateData payload) {
            return new RarelySet(payload, attempts, closeWaiters, disconnectWaiters, retryFrom, groups, peerData,
                    requestParams, acceptTuning, expired, pendingOutcome);
        }

        RarelySet withAttempts(int n) {
            return new RarelySet(openPayload, n, closeWaiters, disconnectWaiters, retryFrom, groups, peerData,
                    requestParams, acceptTuning, expired, pendingOutcome);
        }

        RarelySet withCloseWaiters(List<Long> waiters) {
            return new RarelySet(openPayload, attempts, waiters, disconnectWaiters, retryFrom, groups, peerData,
                    requestParams, acceptTuning, expired, pendingOutcome);
        }

        RarelySet withDisconnectWaiters(List<Long> waiters) {
            return new RarelySet(openPayload, attempts, closeWaiters, waiters, retryFrom, groups, peerData,
                    requestParams, acceptTuning, expired, pendingOutcome);
        }

        RarelySet withRetryFrom(RetryFrom from) {
            return new RarelySet(openPayload, attempts, closeWaiters, disconnectWaiters, from, groups, peerData,
                    requestParams, acceptTuning, expired, pendingOutcome);
        }

        RarelySet withGroups(Map<String, Group> newGroups) {
            return new RarelySet(openPayload, attempts, closeWaiters, disconnectWaiters, retryFrom, newGroups,
                    peerData, requestParams, acceptTuning, expired, pendingOutcome);
        }

        RarelySet withRequest(PrivateData.Received data, EventParams params, CmTuning tuning) {
            return new RarelySet(openPayload, attempts, closeWaiters, disconnectWaiters, retryFrom, groups, data,
                    params, tuning, expired, pendingOutcome);
        }

        RarelySet withExpired(Failure.Expired why) {
            return new RarelySet(openPayload, attempts, closeWaiters, disconnectWaiters, retryFrom, groups, peerData,
                    requestParams, acceptTuning, why, pendingOutcome);
        }

        RarelySet withPendingOutcome(Outcome outcome) {
            return new RarelySet(openPayload, attempts, closeWaiters, disconnectWaiters, retryFrom, groups, peerData,
                    requestParams, acceptTuning, expired, outcome);
        }
    }

    public ConnectionContext {
        Objects.requireNonNull(timers, "timers");
        Objects.requireNonNull(rarelySet, "rarelySet");
        // One form per value (equals compares it): no first close waiter, no number and no later ones.
        // Tested here, not with checkArgument, whose arguments would be boxed on every context made.
        if ((flags & CLOSE_WAITED) == 0 && (closeRequest != 0 || rarelySet.closeWaiters != NO_WAITERS)) {
            throw new IllegalArgumentException("close waiters without the first: closeRequest " + closeRequest
                    + ", later " + rarelySet.closeWaiters);
        }
    }

    /**
     * A context from its scalars one by one (the canonical constructor before the flags became bits),
     * with every close waiter in {@code rarelySet}'s list (the first moves to {@link #closeRequest}).
     */
    public ConnectionContext(long pendingOpen, boolean hasId, boolean hasQp, boolean hasCq,
                             boolean connectSent, boolean connectionLost, boolean disconnectSent,
                             boolean established, boolean settleOwed, boolean connectOutstanding,
                             boolean disconnectAnswered, Timers timers, RarelySet rarelySet) {
        this(pendingOpen, firstOf(rarelySet.closeWaiters), flags(hasId, hasQp, hasCq, connectSent, connectionLost,
                disconnectSent, established, settleOwed, connectOutstanding, disconnectAnswered)
                | (rarelySet.closeWaiters.isEmpty() ? 0 : CLOSE_WAITED), timers, laterCloseWaiters(rarelySet));
    }

    private static long firstOf(List<Long> waiters) {
        return waiters.isEmpty() ? 0 : waiters.getFirst();
    }

    /** {@code r} with its close waiters after the first only. */
    private static RarelySet laterCloseWaiters(RarelySet r) {
        List<Long> all = r.closeWaiters;
        return all.isEmpty() ? r : r.withCloseWaiters(all.subList(1, all.size()));
    }

    private static int flags(boolean hasId, boolean hasQp, boolean hasCq, boolean connectSent,
                             boolean connectionLost, boolean disconnectSent, boolean established,
                             boolean settleOwed, boolean connectOutstanding, boolean disconnectAnswered) {
        return (hasId ? HAS_ID : 0) | (hasQp ? HAS_QP : 0) | (hasCq ? HAS_CQ : 0)
                | (connectSent ? CONNECT_SENT : 0) | (connectionLost ? CONNECTION_LOST : 0)
                | (disconnectSent ? DISCONNECT_SENT : 0) | (established ? ESTABLISHED : 0)
                | (settleOwed ? SETTLE_OWED : 0) | (connectOutstanding ? CONNECT_OUTSTANDING : 0)
                | (disconnectAnswered ? DISCONNECT_ANSWERED : 0);
    }

    /**
     * As the record of ten boolean components printed itself (tests and documents read it), with
     * every close waiter after the open's request (the RarelySet prints the later ones again).
     */
    @Override
    public String toString() {
        return "ConnectionContext[pendingOpen=" + pendingOpen + ", closeWaiters=" + closeWaiters() + ", hasId="
                + hasId() + ", hasQp=" + hasQp() + ", hasCq=" + hasCq() + ", connectSent=" + connectSent()
                + ", connectionLost=" + connectionLost() + ", disconnectSent=" + disconnectSent() + ", established="
                + established() + ", settleOwed=" + settleOwed() + ", connectOutstanding=" + connectOutstanding()
                + ", disconnectAnswered=" + disconnectAnswered() + ", timers=" + timers + ", rarelySet=" + rarelySet
                + "]";
    }

    public boolean hasId() {
        return (flags & HAS_ID) != 0;
    }

    public boolean hasQp() {
        return (flags & HAS_QP) != 0;
    }

    public boolean hasCq() {
        return (flags & HAS_CQ) != 0;
    }

    public boolean connectSent() {
        return (flags & CONNECT_SENT) != 0;
    }

    public boolean connectionLost() {
        return (flags & CONNECTION_LOST) != 0;
    }

    public boolean disconnectSent() {
        return (flags & DISCONNECT_SENT) != 0;
    }

    public boolean established() {
        return (flags & ESTABLISHED) != 0;
    }

    public boolean settleOwed() {
        return (flags & SETTLE_OWED) != 0;
    }

    public boolean connectOutstanding() {
        return (flags & CONNECT_OUTSTANDING) != 0;
    }

    public boolean disconnectAnswered() {
        return (flags & DISCONNECT_ANSWERED) != 0;
    }

    /**
     * A context from every value (the constructor of the record this was before those few steps
     * write moved to {@link RarelySet}).
     */
    public ConnectionContext(long pendingOpen, PrivateData openPayload, List<Long> closeWaiters,
                             List<Long> disconnectWaiters, int attempts, RetryFrom retryFrom, boolean hasId,
                             boolean hasQp, boolean hasCq, boolean connectSent, boolean connectionLost,
                             boolean disconnectSent, boolean established, Timers timers,
                             Map<String, Group> groups, PrivateData.Received peerData, EventParams requestParams,
                             CmTuning acceptTuning, boolean settleOwed, Failure.Expired expired,
                             Outcome pendingOutcome, boolean connectOutstanding, boolean disconnectAnswered) {
        this(pendingOpen, hasId, hasQp, hasCq, connectSent, connectionLost, disconnectSent, established,
                settleOwed, connectOutstanding, disconnectAnswered, timers, new RarelySet(openPayload, attempts,
                        closeWaiters, disconnectWaiters, retryFrom, groups, peerData, requestParams, acceptTuning,
                        expired, pendingOutcome));
    }

    /** Retries used by the current connect. */
    public int attempts() {
        return rarelySet.attempts;
    }

    /** Private data to send with (re)connects or the accept. */
    public PrivateData openPayload() {
        return rarelySet.openPayload;
    }

    /**
     * Close (and abort) requests to complete when the id is closed, in order: {@link #closeRequest}
     * and the RarelySet's. A new list when there is one (the machines never call this: tests and
     * documents do).
     */
    public List<Long> closeWaiters() {
        if ((flags & CLOSE_WAITED) == 0) {
            return NO_WAITERS;
        }
        List<Long> later = rarelySet.closeWaiters;
        if (later.isEmpty()) {
            return List.of(closeRequest);
        }
        Long[] all = new Long[later.size() + 1];
        all[0] = closeRequest;
        for (int i = 1; i < all.length; i++) {
            all[i] = later.get(i - 1);
        }
        return List.of(all);
    }

    /** Disconnect requests to complete when the connection ends, in order. */
    public List<Long> disconnectWaiters() {
        return rarelySet.disconnectWaiters;
    }

    /** Where the next retry starts. */
    public RetryFrom retryFrom() {
        return rarelySet.retryFrom;
    }

    /** UD: multicast groups joined or being joined, by group. */
    public Map<String, Group> groups() {
        return rarelySet.groups;
    }

    /** Passive/UD server: the decoded private data of the request; otherwise nothing. */
    public PrivateData.Received peerData() {
        return rarelySet.peerData;
    }

    /** Passive/UD server: the request's copied params; otherwise None. */
    public EventParams requestParams() {
        return rarelySet.requestParams;
    }

    /** Passive: the CmTuning rdma_accept uses; null for ids not opened from a request. */
    public CmTuning acceptTuning() {
        return rarelySet.acceptTuning;
    }

    /** The request expired before a decision (null if not). */
    public Failure.Expired expired() {
        return rarelySet.expired;
    }

    /** The outcome of {@code pendingOpen}, completed on CallsSucceeded; null if none is deferred. */
    public Outcome pendingOutcome() {
        return rarelySet.pendingOutcome;
    }

    /** List.of(): one instance, whatever the element type. */
    private static final List<Long> NO_WAITERS = List.of();
    /** Map.of(): one instance; every RarelySet without groups holds it (the constructor sees to that). */
    private static final Map<String, Group> NO_GROUPS = Map.of();
    /** The class of List.of's one- and two-element lists, which never hold null and never change. */
    private static final Class<?> LIST12 = List.of(0L).getClass();

    /**
     * {@code waiters}, immutable. List.copyOf keeps an immutable list as it is, but first casts it
     * to the List interface, a slow type check under C1 (see ActionList), on every value made
     * while a close or disconnect waits. The empty list (nearly every value) and the one- or
     * two-waiter lists Draft makes (List.of's List12, immutable and null-free) are recognised by
     * identity and by exact class instead.
     */
    private static List<Long> waiters(List<Long> waiters) {
        return waiters == NO_WAITERS || waiters.getClass() == LIST12 ? waiters : List.copyOf(waiters);
    }

    private static final ConnectionContext FRESH = new ConnectionContext(0, 0, HAS_ID, Timers.none(),
            new RarelySet(null, 0, NO_WAITERS, NO_WAITERS, RetryFrom.RESOLVE_ADDR, NO_GROUPS,
                    PrivateData.Received.nothing(), new EventParams.None(), null, null, null));

    /** A fresh id that exists natively and owns nothing else yet. */
    public static ConnectionContext fresh() {
        return FRESH;
    }

    Draft draft() {
        return new Draft(this);
    }

    /**
     * The mutable working copy of one step; only its actions outlive the step (the draft is the
     * step's {@link Emitter}, so its ActionList: the Transition keeps it, frozen, and nothing sets
     * the draft's values after the step). Every step of every id makes
     * one on the dispatcher thread, so it copies little: the scalars and the timers (which most
     * steps change) and the context's {@link RarelySet}, which a step that sets one of its references
     * replaces by a changed copy (a step sets one or two, and few steps set any; the retry count,
     * a field here, goes into it at {@link #build}). A step that changed
     * nothing gets its old context back from {@link #build} instead of an equal new one. The draft
     * is the step's {@link Emitter} as well, and so its action list (one object per step, not three).
     */
    static final class Draft extends Emitter {
        private final ConnectionContext base;
        long pendingOpen;
        /** The first close waiter while {@link #CLOSE_WAITED} is set in the flags (see the context's). */
        private long closeRequest;
        int attempts;
        /** The context's flags, one bit each (see {@link ConnectionContext#flags}): read and set by the methods below. */
        private int flags;
        Timers timers;
        /** base's until a step sets a reference that differs; then a new value. Never changed in place. */
        private RarelySet rarelySet;
        private TreeMap<String, Group> groups;  // null: rarelySet's, untouched

        Draft(ConnectionContext c) {
            base = c;
            pendingOpen = c.pendingOpen;
            closeRequest = c.closeRequest;
            attempts = c.rarelySet.attempts;
            flags = c.flags;
            timers = c.timers;
            rarelySet = c.rarelySet;
        }

        // The flags, each a getter and a setter small enough for C1 to inline (the machines set
        // them with constants, which C1 folds: one or, or one and).

        boolean hasId() {
            return (flags & HAS_ID) != 0;
        }

        void hasId(boolean value) {
            flags = value ? flags | HAS_ID : flags & ~HAS_ID;
        }

        boolean hasQp() {
            return (flags & HAS_QP) != 0;
        }

        void hasQp(boolean value) {
            flags = value ? flags | HAS_QP : flags & ~HAS_QP;
        }

        boolean hasCq() {
            return (flags & HAS_CQ) != 0;
        }

        void hasCq(boolean value) {
            flags = value ? flags | HAS_CQ : flags & ~HAS_CQ;
        }

        boolean connectSent() {
            return (flags & CONNECT_SENT) != 0;
        }

        void connectSent(boolean value) {
            flags = value ? flags | CONNECT_SENT : flags & ~CONNECT_SENT;
        }

        boolean connectionLost() {
            return (flags & CONNECTION_LOST) != 0;
        }

        void connectionLost(boolean value) {
            flags = value ? flags | CONNECTION_LOST : flags & ~CONNECTION_LOST;
        }

        boolean disconnectSent() {
            return (flags & DISCONNECT_SENT) != 0;
        }

        void disconnectSent(boolean value) {
            flags = value ? flags | DISCONNECT_SENT : flags & ~DISCONNECT_SENT;
        }

        boolean established() {
            return (flags & ESTABLISHED) != 0;
        }

        void established(boolean value) {
            flags = value ? flags | ESTABLISHED : flags & ~ESTABLISHED;
        }

        boolean settleOwed() {
            return (flags & SETTLE_OWED) != 0;
        }

        void settleOwed(boolean value) {
            flags = value ? flags | SETTLE_OWED : flags & ~SETTLE_OWED;
        }

        boolean connectOutstanding() {
            return (flags & CONNECT_OUTSTANDING) != 0;
        }

        void connectOutstanding(boolean value) {
            flags = value ? flags | CONNECT_OUTSTANDING : flags & ~CONNECT_OUTSTANDING;
        }

        boolean disconnectAnswered() {
            return (flags & DISCONNECT_ANSWERED) != 0;
        }

        void disconnectAnswered(boolean value) {
            flags = value ? flags | DISCONNECT_ANSWERED : flags & ~DISCONNECT_ANSWERED;
        }

        PrivateData openPayload() {
            return rarelySet.openPayload;
        }

        void openPayload(PrivateData payload) {
            if (payload != rarelySet.openPayload) {
                rarelySet = rarelySet.withOpenPayload(payload);
            }
        }

        RetryFrom retryFrom() {
            return rarelySet.retryFrom;
        }

        void retryFrom(RetryFrom from) {
            if (from != rarelySet.retryFrom) {
                rarelySet = rarelySet.withRetryFrom(from);
            }
        }

        PrivateData.Received peerData() {
            return rarelySet.peerData;
        }

        EventParams requestParams() {
            return rarelySet.requestParams;
        }

        CmTuning acceptTuning() {
            return rarelySet.acceptTuning;
        }

        /** What the id remembers of the request it was opened from. */
        void request(PrivateData.Received data, EventParams params, CmTuning tuning) {
            rarelySet = rarelySet.withRequest(data, params, tuning);
        }

        Failure.Expired expired() {
            return rarelySet.expired;
        }

        void expired(Failure.Expired why) {
            if (why != rarelySet.expired) {
                rarelySet = rarelySet.withExpired(why);
            }
        }

        Outcome pendingOutcome() {
            return rarelySet.pendingOutcome;
        }

        /** Sets the deferred outcome; clearing one that is not there (every teardown does) copies nothing. */
        void pendingOutcome(Outcome outcome) {
            if (outcome != rarelySet.pendingOutcome) {
                rarelySet = rarelySet.withPendingOutcome(outcome);
            }
        }

        /**
         * A close (or abort) waits for the id to close: its request completes when it does. The first
         * is a scalar (no box, no list, no RarelySet copy); a second or later one is the RarelySet's.
         */
        void addCloseWaiter(long request) {
            if ((flags & CLOSE_WAITED) == 0) {
                closeRequest = request;
                flags |= CLOSE_WAITED;
            } else {
                rarelySet = rarelySet.withCloseWaiters(append(rarelySet.closeWaiters, request));
            }
        }

        /** A disconnect waits for the connection to end. */
        void addDisconnectWaiter(long request) {
            rarelySet = rarelySet.withDisconnectWaiters(append(rarelySet.disconnectWaiters, request));
        }

        /**
         * Completes the close waiters now, in order, on {@code out}; none are left. Nothing is made
         * for the one close a connection usually has (a scalar and a bit, cleared).
         */
        void completeCloseWaiters(Emitter out) {
            if ((flags & CLOSE_WAITED) == 0) {
                return;
            }
            out.complete(closeRequest, Singletons.DONE);
            closeRequest = 0;
            flags &= ~CLOSE_WAITED;
            List<Long> later = rarelySet.closeWaiters;
            if (later != NO_WAITERS) {
                for (int i = 0; i < later.size(); i++) {
                    out.complete(later.get(i), Singletons.DONE);
                }
                rarelySet = rarelySet.withCloseWaiters(NO_WAITERS);
            }
        }

        /** The disconnect waiters, in order, to complete now; none are left. */
        List<Long> takeDisconnectWaiters() {
            List<Long> waiters = rarelySet.disconnectWaiters;
            if (waiters != NO_WAITERS) {
                rarelySet = rarelySet.withDisconnectWaiters(NO_WAITERS);
            }
            return waiters;
        }

        /** {@code waiters} and then {@code request}, immutable; an id rarely has more than one. */
        private static List<Long> append(List<Long> waiters, long request) {
            int n = waiters.size();
            if (n == 0) {
                return List.of(request);
            }
            if (n == 1) {
                return List.of(waiters.get(0), request);
            }
            Long[] more = waiters.toArray(new Long[n + 1]);
            more[n] = request;
            return List.of(more);
        }

        /** The multicast groups, to read or change (copied from the context on first use). */
        TreeMap<String, Group> groups() {
            if (groups == null) {
                groups = new TreeMap<>(rarelySet.groups);
            }
            return groups;
        }

        /** Whether there is any group, without copying them. */
        boolean hasGroups() {
            // A RarelySet's empty groups are always NO_GROUPS: no interface call for RC ids.
            return groups == null ? rarelySet.groups != NO_GROUPS : !groups.isEmpty();
        }

        ConnectionContext build() {
            RarelySet r = groups == null || groups.equals(rarelySet.groups) ? rarelySet : rarelySet.withGroups(groups);
            if (attempts != r.attempts) {
                r = r.withAttempts(attempts);
            }
            if (r == base.rarelySet && unchangedScalars()) {
                return base;
            }
            return new ConnectionContext(pendingOpen, closeRequest, flags, timers, r);
        }

        /**
         * Every scalar (and the timers) still holds the base's value (the same object, for the timers);
         * the retry count is in the RarelySet by then (see build).
         * The timers first: nearly every step that changes anything arms or cancels one.
         */
        private boolean unchangedScalars() {
            ConnectionContext c = base;
            return timers == c.timers && pendingOpen == c.pendingOpen && flags == c.flags
                    && closeRequest == c.closeRequest;
        }
    }
}
