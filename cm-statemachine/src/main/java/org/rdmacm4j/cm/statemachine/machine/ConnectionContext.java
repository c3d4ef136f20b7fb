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
 * @param pendingOpen     request number of the connect/accept future still owed, 0 if none
 * @param openPayload     private data to send with (re)connects or the accept
 * @param attempts        retries used by the current connect
 * @param retryFrom       where the next retry starts
 * @param connectSent     rdma_connect/rdma_accept was issued (a connection may exist to disconnect)
 * @param connectionLost  the CM already ended the connection (DISCONNECTED, REJECTED, UNREACHABLE...)
 * @param disconnectSent  rdma_disconnect was issued
 * @param established     ESTABLISHED was seen (the handler is live)
 * @param groups          UD: multicast groups joined or being joined, by group
 * @param peerData        passive/UD server: the decoded private data of the request (what the
 *                        application and the Connected outcome see); otherwise nothing
 * @param requestParams   passive/UD server: the request's copied params; otherwise None
 * @param acceptTuning    passive: the CmTuning rdma_accept uses, clamped to the request and the
 *                        device at open; null for ids not opened from a request
 * @param settleOwed      opened from a request and still in REQUEST_RECEIVED: SettleRequest is owed
 * @param expired         the request expired before a decision; later accept/reject/close fail with it
 * @param pendingOutcome  the outcome of {@code pendingOpen}, completed on CallsSucceeded (the open's
 *                        last fallible calls ran in the previous step); null if none is deferred
 * @param connectOutstanding rdma_connect was issued and its result event (ESTABLISHED, REJECTED,
 *                        CONNECT_ERROR, UNREACHABLE, DISCONNECTED) has not arrived; on iWARP a
 *                        disconnect or destroy would block until it does
 * @param disconnectAnswered the peer's DISCONNECTED was answered with rdma_disconnect (the DREP of
 *                        a crossing disconnect), once per id
 */
public record ConnectionContext(long pendingOpen, PrivateData openPayload, List<Long> closeWaiters,
                                List<Long> disconnectWaiters, int attempts, RetryFrom retryFrom, boolean hasId,
                                boolean hasQp, boolean hasCq, boolean connectSent, boolean connectionLost,
                                boolean disconnectSent, boolean established, Timers timers,
                                Map<String, Group> groups, PrivateData.Received peerData, EventParams requestParams,
                                CmTuning acceptTuning, boolean settleOwed, Failure.Expired expired,
                                Outcome pendingOutcome, boolean connectOutstanding, boolean disconnectAnswered) {

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

    public ConnectionContext {
        closeWaiters = waiters(closeWaiters);
        disconnectWaiters = waiters(disconnectWaiters);
        Objects.requireNonNull(retryFrom, "retryFrom");
        Objects.requireNonNull(timers, "timers");
        // RC ids never have groups: no sorted copy per step for them. Guava's ImmutableSortedMap
        // returns an unchanged immutable map as it is, so a step that leaves the groups alone copies
        // nothing either (a TreeMap and its unmodifiable wrapper were made per step before).
        // The identity check first: Map.isEmpty is an interface call, once per context made.
        groups = groups == NO_GROUPS || groups.isEmpty() ? NO_GROUPS : ImmutableSortedMap.copyOf(groups);
        Objects.requireNonNull(peerData, "peerData");
        Objects.requireNonNull(requestParams, "requestParams");
    }

    /** List.of(): one instance, whatever the element type. */
    private static final List<Long> NO_WAITERS = List.of();
    /** Map.of(): one instance; every context without groups holds it (the constructor sees to that). */
    private static final Map<String, Group> NO_GROUPS = Map.of();
    /** The class of List.of's one- and two-element lists, which never hold null and never change. */
    private static final Class<?> LIST12 = List.of(0L).getClass();

    /**
     * {@code waiters}, immutable. List.copyOf keeps an immutable list as it is, but first casts it
     * to the List interface, a slow type check under C1 (see ActionList), on every context made
     * while a close or disconnect waits. The empty list (nearly every context) and the one- or
     * two-waiter lists Draft makes (List.of's List12, immutable and null-free) are recognised by
     * identity and by exact class instead.
     */
    private static List<Long> waiters(List<Long> waiters) {
        return waiters == NO_WAITERS || waiters.getClass() == LIST12 ? waiters : List.copyOf(waiters);
    }

    private static final ConnectionContext FRESH = new ConnectionContext(0, null, List.of(), List.of(), 0,
            RetryFrom.RESOLVE_ADDR, true, false, false, false, false, false, false, Timers.none(), Map.of(),
            PrivateData.Received.nothing(), new EventParams.None(), null, false, null, null, false, false);

    /** A fresh id that exists natively and owns nothing else yet. */
    public static ConnectionContext fresh() {
        return FRESH;
    }

    Draft draft() {
        return new Draft(this);
    }

    /**
     * The mutable working copy of one step; never escapes the step. Every step of every id makes
     * one on the dispatcher thread, so it copies little up front: the scalars and the timers (which
     * most steps change), not the references few steps write. Those (the open's payload, retry
     * point and deferred outcome, the request's data, params, tuning and expiry, the waiter lists,
     * the groups) are read from the context until a step first sets one. Why: under C1 every
     * reference stored into a new object that points into another heap region (an enum constant,
     * a shared empty list, the request's params) calls G1's post-barrier stub; perf of
     * StepCostHarness put a quarter of those calls in this constructor when it copied all eleven.
     * A step that changed nothing gets its old context back from {@link #build} instead of an
     * equal new one. The draft is the step's {@link Emitter} as well (one object per step, not two).
     */
    static final class Draft extends Emitter {
        private final ConnectionContext base;
        long pendingOpen;
        int attempts;
        boolean hasId;
        boolean hasQp;
        boolean hasCq;
        boolean connectSent;
        boolean connectionLost;
        boolean disconnectSent;
        boolean established;
        Timers timers;
        boolean settleOwed;
        boolean connectOutstanding;
        boolean disconnectAnswered;
        private List<Long> closeWaiters;        // null: base's; else immutable, replaced, never changed in place
        private List<Long> disconnectWaiters;   // null: base's; as closeWaiters
        private TreeMap<String, Group> groups;  // null: base's, untouched
        /** False until a step sets one of the references below: until then they are base's. */
        private boolean ownRefs;
        private PrivateData openPayload;
        private RetryFrom retryFrom;
        private PrivateData.Received peerData;
        private EventParams requestParams;
        private CmTuning acceptTuning;
        private Failure.Expired expired;
        private Outcome pendingOutcome;

        Draft(ConnectionContext c) {
            base = c;
            pendingOpen = c.pendingOpen;
            attempts = c.attempts;
            hasId = c.hasId;
            hasQp = c.hasQp;
            hasCq = c.hasCq;
            connectSent = c.connectSent;
            connectionLost = c.connectionLost;
            disconnectSent = c.disconnectSent;
            established = c.established;
            timers = c.timers;
            settleOwed = c.settleOwed;
            connectOutstanding = c.connectOutstanding;
            disconnectAnswered = c.disconnectAnswered;
        }

        /** Copies base's rarely written references, before the first of them is set. */
        private void ownRefs() {
            if (!ownRefs) {
                ConnectionContext c = base;
                openPayload = c.openPayload;
                retryFrom = c.retryFrom;
                peerData = c.peerData;
                requestParams = c.requestParams;
                acceptTuning = c.acceptTuning;
                expired = c.expired;
                pendingOutcome = c.pendingOutcome;
                ownRefs = true;
            }
        }

        PrivateData openPayload() {
            return ownRefs ? openPayload : base.openPayload;
        }

        void openPayload(PrivateData payload) {
            ownRefs();
            openPayload = payload;
        }

        RetryFrom retryFrom() {
            return ownRefs ? retryFrom : base.retryFrom;
        }

        void retryFrom(RetryFrom from) {
            ownRefs();
            retryFrom = from;
        }

        PrivateData.Received peerData() {
            return ownRefs ? peerData : base.peerData;
        }

        EventParams requestParams() {
            return ownRefs ? requestParams : base.requestParams;
        }

        CmTuning acceptTuning() {
            return ownRefs ? acceptTuning : base.acceptTuning;
        }

        /** What the id remembers of the request it was opened from. */
        void request(PrivateData.Received data, EventParams params, CmTuning tuning) {
            ownRefs();
            peerData = data;
            requestParams = params;
            acceptTuning = tuning;
        }

        Failure.Expired expired() {
            return ownRefs ? expired : base.expired;
        }

        void expired(Failure.Expired why) {
            ownRefs();
            expired = why;
        }

        Outcome pendingOutcome() {
            return ownRefs ? pendingOutcome : base.pendingOutcome;
        }

        /** Sets the deferred outcome; clearing one that is not there (every teardown does) copies nothing. */
        void pendingOutcome(Outcome outcome) {
            if (outcome != pendingOutcome()) {
                ownRefs();
                pendingOutcome = outcome;
            }
        }

        private List<Long> closeWaiters() {
            return closeWaiters == null ? base.closeWaiters : closeWaiters;
        }

        private List<Long> disconnectWaiters() {
            return disconnectWaiters == null ? base.disconnectWaiters : disconnectWaiters;
        }

        /** A close (or abort) waits for the id to close: its request completes when it does. */
        void addCloseWaiter(long request) {
            closeWaiters = append(closeWaiters(), request);
        }

        /** A disconnect waits for the connection to end. */
        void addDisconnectWaiter(long request) {
            disconnectWaiters = append(disconnectWaiters(), request);
        }

        /** The close waiters, in order, to complete now; none are left. No copy, none made if empty. */
        List<Long> takeCloseWaiters() {
            List<Long> waiters = closeWaiters();
            closeWaiters = NO_WAITERS;
            return waiters;
        }

        /** The disconnect waiters, in order, to complete now; none are left. */
        List<Long> takeDisconnectWaiters() {
            List<Long> waiters = disconnectWaiters();
            disconnectWaiters = NO_WAITERS;
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
                groups = new TreeMap<>(base.groups);
            }
            return groups;
        }

        /** Whether there is any group, without copying them. */
        boolean hasGroups() {
            // A context's empty groups are always NO_GROUPS: no interface call for RC ids.
            return groups == null ? base.groups != NO_GROUPS : !groups.isEmpty();
        }

        ConnectionContext build() {
            // The waiter lists are replaced, never changed in place: the same list is unchanged.
            List<Long> cw = closeWaiters();
            List<Long> dw = disconnectWaiters();
            Map<String, Group> g = groups == null || groups.equals(base.groups) ? base.groups : groups;
            if (unchangedScalars() && cw == base.closeWaiters && dw == base.disconnectWaiters && g == base.groups
                    && (!ownRefs || unchangedRefs())) {
                return base;
            }
            return new ConnectionContext(pendingOpen, openPayload(), cw, dw, attempts, retryFrom(), hasId, hasQp,
                    hasCq, connectSent, connectionLost, disconnectSent, established, timers, g, peerData(),
                    requestParams(), acceptTuning(), settleOwed, expired(), pendingOutcome(), connectOutstanding,
                    disconnectAnswered);
        }

        /**
         * Every scalar (and the timers) still holds the base's value (the same object, for the timers).
         * The timers first: nearly every step that changes anything arms or cancels one.
         */
        private boolean unchangedScalars() {
            ConnectionContext c = base;
            return timers == c.timers && pendingOpen == c.pendingOpen && attempts == c.attempts && hasId == c.hasId
                    && hasQp == c.hasQp && hasCq == c.hasCq && connectSent == c.connectSent
                    && connectionLost == c.connectionLost && disconnectSent == c.disconnectSent
                    && established == c.established && settleOwed == c.settleOwed && connectOutstanding == c.connectOutstanding
                    && disconnectAnswered == c.disconnectAnswered;
        }

        /** The references a step set are the base's (the same objects). */
        private boolean unchangedRefs() {
            ConnectionContext c = base;
            return openPayload == c.openPayload && retryFrom == c.retryFrom && peerData == c.peerData
                    && requestParams == c.requestParams && acceptTuning == c.acceptTuning && expired == c.expired
                    && pendingOutcome == c.pendingOutcome;
        }
    }
}
