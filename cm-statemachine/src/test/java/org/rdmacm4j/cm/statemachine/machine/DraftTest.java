package org.rdmacm4j.cm.statemachine.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.Timers;
import org.rdmacm4j.cm.statemachine.doc.Catalog;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.RetryFrom;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * The Draft shares its context's references (one RarelySet value) until a step sets one that differs,
 * and build() answers the context itself when nothing changed; ConnectionContext keeps List.of's
 * small waiter lists as they are and copies any other.
 */
class DraftTest {
    private static final PrivateData PAYLOAD = PrivateData.encode(MessageKind.CONNECT_REQUEST, new byte[] {1});

    /** A context whose every reference is set (none is the fresh default). */
    private static ConnectionContext full() {
        return new ConnectionContext(7, PAYLOAD, List.of(1L), List.of(2L, 3L), 1, RetryFrom.NEW_ID, true, true,
                true, true, false, false, true, Timers.none(), Map.of(), PrivateData.decode(Catalog.request().params()
                .privateData()), Catalog.request().params(), new CmTuning(1, 2, 3, 4), true,
                new Failure.Expired("late"), new Outcome.Done(), true, false);
    }

    @Test
    void aStepThatSetsNothingGetsItsContextBack() {
        ConnectionContext c = full();
        ConnectionContext.Draft d = c.draft();
        assertThat(d.openPayload()).isSameAs(c.openPayload());
        assertThat(d.retryFrom()).isSameAs(c.retryFrom());
        assertThat(d.peerData()).isSameAs(c.peerData());
        assertThat(d.requestParams()).isSameAs(c.requestParams());
        assertThat(d.acceptTuning()).isSameAs(c.acceptTuning());
        assertThat(d.expired()).isSameAs(c.expired());
        assertThat(d.pendingOutcome()).isSameAs(c.pendingOutcome());
        assertThat(d.build()).isSameAs(c);
    }

    @Test
    void settingAReferenceToTheSameObjectChangesNothing() {
        ConnectionContext c = full();
        ConnectionContext.Draft d = c.draft();
        d.openPayload(c.openPayload());
        d.retryFrom(c.retryFrom());
        d.expired(c.expired());
        d.pendingOutcome(c.pendingOutcome());
        assertThat(d.build()).isSameAs(c);
    }

    @Test
    void oneReferenceSetKeepsEveryOtherFromTheContext() {
        ConnectionContext c = full();
        ConnectionContext.Draft d = c.draft();
        PrivateData other = PrivateData.encode(MessageKind.ACCEPT, new byte[] {2});
        d.openPayload(other);
        assertThat(d.openPayload()).isSameAs(other);
        ConnectionContext b = d.build();
        assertThat(b).isNotSameAs(c).isEqualTo(new ConnectionContext(7, other, List.of(1L), List.of(2L, 3L), 1,
                RetryFrom.NEW_ID, true, true, true, true, false, false, true, Timers.none(), Map.of(), c.peerData(),
                c.requestParams(), c.acceptTuning(), true, c.expired(), c.pendingOutcome(), true, false));
        assertThat(b.peerData()).isSameAs(c.peerData());
        assertThat(b.closeWaiters()).isEqualTo(c.closeWaiters());
        assertThat(b.disconnectWaiters()).isSameAs(c.disconnectWaiters());
    }

    @Test
    void clearingAnAbsentOutcomeAndTakingNoWaitersChangeNothing() {
        ConnectionContext c = ConnectionContext.fresh();
        ConnectionContext.Draft d = c.draft();
        d.pendingOutcome(null);
        d.completeCloseWaiters(d);
        assertThat(d.list()).isEmpty();
        assertThat(d.takeDisconnectWaiters()).isEmpty();
        assertThat(d.hasGroups()).isFalse();
        assertThat(d.build()).isSameAs(c);
    }

    @Test
    void waitersAreTakenFromTheContextAndAppendedInOrder() {
        ConnectionContext c = full();
        ConnectionContext.Draft d = c.draft();
        d.addDisconnectWaiter(4);
        d.completeCloseWaiters(d);
        assertThat(d.list()).containsExactly(new Action.CompleteFuture(1, Singletons.DONE));
        ConnectionContext b = d.build();
        assertThat(b.closeWaiters()).isEmpty();
        assertThat(b.disconnectWaiters()).containsExactly(2L, 3L, 4L);
    }

    @Test
    void aStepThatChangesOnlyScalarsSharesTheReferences() {
        ConnectionContext c = full();
        ConnectionContext.Draft d = c.draft();
        d.pendingOpen = 9;
        d.hasQp(false);
        d.takeDisconnectWaiters();   // the context has some: a changed copy
        ConnectionContext b = d.build();
        assertThat(b.pendingOpen()).isEqualTo(9);
        assertThat(b.rarelySet()).isNotSameAs(c.rarelySet());
        ConnectionContext.Draft e = b.draft();
        e.hasId(false);
        e.takeDisconnectWaiters();   // none left: nothing to copy
        e.pendingOutcome(b.pendingOutcome());
        ConnectionContext f = e.build();
        assertThat(f.rarelySet()).isSameAs(b.rarelySet());
        assertThat(f).isEqualTo(new ConnectionContext(9, PAYLOAD, List.of(1L), List.of(), 1, RetryFrom.NEW_ID, false,
                false, true, true, false, false, true, Timers.none(), Map.of(), c.peerData(), c.requestParams(),
                c.acceptTuning(), true, c.expired(), c.pendingOutcome(), true, false));
    }

    @Test
    void theRetryCountIsARarelySetValue() {
        ConnectionContext c = full();
        ConnectionContext.Draft d = c.draft();
        assertThat(d.attempts).isEqualTo(1);
        d.attempts++;
        d.attempts--;
        assertThat(d.build()).isSameAs(c);
        ConnectionContext.Draft e = c.draft();
        e.attempts = 2;
        ConnectionContext b = e.build();
        assertThat(b.attempts()).isEqualTo(2);
        assertThat(b.rarelySet().attempts()).isEqualTo(2);
        assertThat(b.openPayload()).isSameAs(c.openPayload());
        assertThat(b.draft().build()).isSameAs(b);
    }

    @Test
    void everyValueReadsBackAsGiven() {
        ConnectionContext c = full();
        assertThat(c).isEqualTo(full()).hasSameHashCodeAs(full());
        assertThat(c.pendingOpen()).isEqualTo(7);
        assertThat(c.openPayload()).isEqualTo(PAYLOAD);
        assertThat(c.closeWaiters()).containsExactly(1L);
        assertThat(c.disconnectWaiters()).containsExactly(2L, 3L);
        assertThat(c.attempts()).isEqualTo(1);
        assertThat(c.retryFrom()).isEqualTo(RetryFrom.NEW_ID);
        assertThat(c.hasId() && c.hasQp() && c.hasCq() && c.connectSent() && c.established()).isTrue();
        assertThat(c.connectionLost() || c.disconnectSent() || c.disconnectAnswered()).isFalse();
        assertThat(c.groups()).isEmpty();
        assertThat(c.acceptTuning()).isEqualTo(new CmTuning(1, 2, 3, 4));
        assertThat(c.settleOwed() && c.connectOutstanding()).isTrue();
        assertThat(c.expired()).isEqualTo(new Failure.Expired("late"));
        assertThat(c.pendingOutcome()).isEqualTo(new Outcome.Done());
    }

    @Test
    void smallListOfWaitersAreKeptAndAnyOtherListIsCopied() {
        List<Long> one = List.of(5L);
        List<Long> mutable = new ArrayList<>(List.of(6L, 7L, 8L));
        ConnectionContext c = new ConnectionContext(0, null, one, mutable, 0, RetryFrom.RESOLVE_ADDR, true, false,
                false, false, false, false, false, Timers.none(), Map.of(), PrivateData.Received.nothing(),
                new EventParams.None(), null, false, null, null, false, false);
        assertThat(c.closeWaiters()).isEqualTo(one);
        assertThat(new ConnectionContext(0, null, mutable, one, 0, RetryFrom.RESOLVE_ADDR, true, false, false, false,
                false, false, false, Timers.none(), Map.of(), PrivateData.Received.nothing(), new EventParams.None(),
                null, false, null, null, false, false).disconnectWaiters()).isSameAs(one);
        mutable.clear();
        assertThat(c.disconnectWaiters()).containsExactly(6L, 7L, 8L);
    }

    /** Each flag is its own bit: set and cleared through the draft, it changes that flag alone. */
    @Test
    void eachFlagIsItsOwnBit() {
        String[] names = {"hasId", "hasQp", "hasCq", "connectSent", "connectionLost", "disconnectSent", "established",
                "settleOwed", "connectOutstanding", "disconnectAnswered"};
        for (int i = 0; i < names.length; i++) {
            boolean[] on = new boolean[names.length];
            on[i] = true;
            ConnectionContext.Draft d = ConnectionContext.fresh().draft();
            d.hasId(false);
            set(d, i, true);
            ConnectionContext c = d.build();
            assertThat(flags(c)).as(names[i]).containsExactly(on);
            assertThat(c).as(names[i]).isEqualTo(new ConnectionContext(0, on[0], on[1], on[2], on[3], on[4], on[5],
                    on[6], on[7], on[8], on[9], Timers.none(), ConnectionContext.fresh().rarelySet()));
            assertThat(c.toString()).contains(names[i] + "=true");
            ConnectionContext.Draft e = c.draft();
            assertThat(get(e, i)).isTrue();
            set(e, i, false);
            ConnectionContext cleared = e.build();
            assertThat(flags(cleared)).as(names[i]).containsExactly(new boolean[names.length]);
            assertThat(cleared.flags()).isZero();
            set(e, i, false);   // clearing a clear flag leaves it clear
            assertThat(e.build()).isEqualTo(cleared);
        }
    }

    /**
     * The first close waiter is the context's closeRequest and a bit, not a boxed Long in a list of the
     * RarelySet: adding it copies no RarelySet, nor does completing it; later ones follow it in order.
     */
    @Test
    void theFirstCloseWaiterIsAScalarAndLaterOnesFollowInOrder() {
        ConnectionContext c = ConnectionContext.fresh();
        ConnectionContext.Draft d = c.draft();
        d.addCloseWaiter(0);   // request 0 is a waiter like any other
        ConnectionContext one = d.build();
        assertThat(one.rarelySet()).isSameAs(c.rarelySet());
        assertThat(one.closeWaiters()).containsExactly(0L);
        assertThat(one.closeRequest()).isZero();
        assertThat(one.flags() & ConnectionContext.CLOSE_WAITED).isNotZero();
        ConnectionContext.Draft e = one.draft();
        e.addCloseWaiter(8);
        e.addCloseWaiter(9);
        ConnectionContext three = e.build();
        assertThat(three.closeWaiters()).containsExactly(0L, 8L, 9L);
        assertThat(three.rarelySet().closeWaiters()).containsExactly(8L, 9L);
        assertThat(three).isEqualTo(new ConnectionContext(0, null, List.of(0L, 8L, 9L), List.of(), 0,
                RetryFrom.RESOLVE_ADDR, true, false, false, false, false, false, false, Timers.none(), Map.of(),
                PrivateData.Received.nothing(), new EventParams.None(), null, false, null, null, false, false));
        ConnectionContext.Draft f = three.draft();
        f.completeCloseWaiters(f);
        assertThat(f.list()).containsExactly(new Action.CompleteFuture(0, Singletons.DONE),
                new Action.CompleteFuture(8, Singletons.DONE), new Action.CompleteFuture(9, Singletons.DONE));
        ConnectionContext none = f.build();
        assertThat(none.closeWaiters()).isEmpty();
        assertThat(none).isEqualTo(c);
        ConnectionContext.Draft g = one.draft();
        g.completeCloseWaiters(g);
        assertThat(g.build()).isEqualTo(c);
        assertThat(g.build().rarelySet()).isSameAs(c.rarelySet());
    }

    /** A context has one form: later close waiters or a close request without the bit are refused. */
    @Test
    void closeWaitersWithoutTheFirstAreRefused() {
        ConnectionContext.RarelySet later = new ConnectionContext(0, null, List.of(1L, 2L), List.of(), 0,
                RetryFrom.RESOLVE_ADDR, true, false, false, false, false, false, false, Timers.none(), Map.of(),
                PrivateData.Received.nothing(), new EventParams.None(), null, false, null, null, false, false)
                .rarelySet();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ConnectionContext(0, 0, 0, Timers.none(), later))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ConnectionContext(0, 5, 0, Timers.none(),
                ConnectionContext.fresh().rarelySet())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void toStringNamesEveryFlagAsTheBooleanRecordDid() {
        assertThat(ConnectionContext.fresh().toString()).startsWith("ConnectionContext[pendingOpen=0, closeWaiters=[], hasId=true, "
                + "hasQp=false, hasCq=false, connectSent=false, connectionLost=false, disconnectSent=false, "
                + "established=false, settleOwed=false, connectOutstanding=false, disconnectAnswered=false, timers=");
    }

    private static boolean[] flags(ConnectionContext c) {
        return new boolean[] {c.hasId(), c.hasQp(), c.hasCq(), c.connectSent(), c.connectionLost(), c.disconnectSent(),
                c.established(), c.settleOwed(), c.connectOutstanding(), c.disconnectAnswered()};
    }

    private static boolean get(ConnectionContext.Draft d, int i) {
        return switch (i) {
            case 0 -> d.hasId();
            case 1 -> d.hasQp();
            case 2 -> d.hasCq();
            case 3 -> d.connectSent();
            case 4 -> d.connectionLost();
            case 5 -> d.disconnectSent();
            case 6 -> d.established();
            case 7 -> d.settleOwed();
            case 8 -> d.connectOutstanding();
            default -> d.disconnectAnswered();
        };
    }

    private static void set(ConnectionContext.Draft d, int i, boolean v) {
        switch (i) {
            case 0 -> d.hasId(v);
            case 1 -> d.hasQp(v);
            case 2 -> d.hasCq(v);
            case 3 -> d.connectSent(v);
            case 4 -> d.connectionLost(v);
            case 5 -> d.disconnectSent(v);
            case 6 -> d.established(v);
            case 7 -> d.settleOwed(v);
            case 8 -> d.connectOutstanding(v);
            default -> d.disconnectAnswered(v);
        }
    }
}
