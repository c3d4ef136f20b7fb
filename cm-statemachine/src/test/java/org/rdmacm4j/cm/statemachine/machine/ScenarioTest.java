package org.rdmacm4j.cm.statemachine.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Input.Command;
import org.rdmacm4j.cm.statemachine.ListenerPolicy;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.RejectReason;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.cm.statemachine.TimerKind;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;

/** Whole conversations, step by step, each checked by the same invariant model as the properties. */
class ScenarioTest {
    private long seq = 1;

    private Input.CmEvent cm(CmEventType type, int status) {
        return new Input.CmEvent(seq++, type, status, new EventParams.None());
    }

    private Input.CmEvent cm(CmEventType type, int status, EventParams params) {
        return new Input.CmEvent(seq++, type, status, params);
    }

    private static Input.TimerExpired fire(Driver<?, ?> d, TimerKind kind) {
        assertThat(d.timers().isArmed(kind)).as("%s armed", kind).isTrue();
        return new Input.TimerExpired(kind, d.timers().generation(kind));
    }

    private static Command.Connect connect(long request, byte... payload) {
        return new Command.Connect(request, PrivateData.encode(MessageKind.CONNECT_REQUEST, payload));
    }

    @Test
    void serverNotListeningYetIsRetriedWithAFreshIdAndThenConnects() {
        var d = Driver.active(new ActiveConnectionMachine(ConnectionPolicy.defaults(Transport.ROCE)));
        d.feed(connect(1, (byte) 'h', (byte) 'i'));
        d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        List<Action> a = d.feed(cm(CmEventType.ROUTE_RESOLVED, 0));
        assertThat(a).containsExactly(new Action.AckCmEvent(seq - 1), new Action.Connect(
                PrivateData.encode(MessageKind.CONNECT_REQUEST, new byte[] {'h', 'i'}).wire(),
                d.machine instanceof ActiveConnectionMachine m ? m.policy().tuning() : null));
        // Item 4: the rejected id is replaced in the teardown order: drain, quiesce, then destroy all.
        a = d.feed(cm(CmEventType.REJECTED, RejectReason.IB_INVALID_SERVICE_ID));
        assertThat(d.phase()).isEqualTo(ActivePhase.RETRY_DRAINING);
        assertThat(a).containsExactly(new Action.AckCmEvent(seq - 1), new Action.DrainQp(),
                new Action.ArmTimer(TimerKind.DRAIN_DEADLINE, 2, 1_000_000_000));
        a = d.feed(new Input.Quiesced(Input.Resource.QP));
        assertThat(d.phase()).isEqualTo(ActivePhase.RETRY_RELEASING);
        assertThat(a).containsExactly(new Action.CancelTimer(TimerKind.DRAIN_DEADLINE, 2), new Action.QuiesceCq(),
                new Action.ArmTimer(TimerKind.QUIESCE_DEADLINE, 3, 1_000_000_000));
        a = d.feed(new Input.Quiesced(Input.Resource.CQ));
        assertThat(d.phase()).isEqualTo(ActivePhase.BACKOFF);
        assertThat(a).containsExactly(new Action.CancelTimer(TimerKind.QUIESCE_DEADLINE, 3), new Action.DestroyQp(),
                new Action.DestroyCq(), new Action.DestroyCompChannel(), new Action.DestroyId(),
                new Action.ArmTimer(TimerKind.RETRY_BACKOFF, 4, 10_000_000));
        a = d.feed(fire(d, TimerKind.RETRY_BACKOFF));
        assertThat(a).containsExactly(new Action.CreateId(), new Action.ResolveAddr(2000));
        d.feed(new Input.CallsSucceeded());
        a = d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        assertThat(a).containsSubsequence(new Action.CreateQp(), new Action.ResolveRoute(2000));
        d.feed(cm(CmEventType.ROUTE_RESOLVED, 0));
        Bytes rep = PrivateData.encode(MessageKind.ACCEPT, new byte[] {'o', 'k'}).wire();
        byte[] padded = java.util.Arrays.copyOf(rep.toArray(), 196);
        a = d.feed(cm(CmEventType.ESTABLISHED, 0, EventParams.Conn.withData(Bytes.of(padded))));
        assertThat(d.phase()).isEqualTo(ActivePhase.ESTABLISHED);
        Outcome.Connected connected = a.stream().filter(x -> x instanceof Action.CompleteFuture)
                .map(x -> (Outcome.Connected) ((Action.CompleteFuture) x).outcome()).findFirst().orElseThrow();
        assertThat(connected.peerData()).isEqualTo(new PrivateData.Received(Bytes.of((byte) 'o', (byte) 'k'), true));
    }

    @Test
    void retriesAreBoundedByTheBudget() {
        RetryPolicy two = new RetryPolicy(2, Duration.ofMillis(1), Duration.ofMillis(1), 1, true, true, true, true);
        var d = Driver.active(new ActiveConnectionMachine(ConnectionPolicy.defaults(Transport.ROCE).withRetry(two)));
        d.feed(connect(1));
        for (int i = 0; i < 2; i++) {
            d.feed(cm(CmEventType.ADDR_ERROR, -110));
            assertThat(d.phase()).isEqualTo(ActivePhase.BACKOFF);
            d.feed(fire(d, TimerKind.RETRY_BACKOFF));
        }
        List<Action> a = d.feed(cm(CmEventType.ADDR_ERROR, -110));
        assertThat(a).contains(new Action.FailFuture(1, new Failure.AddressError(-110)), new Action.DestroyId());
        assertThat(d.terminal()).isTrue();
    }

    @Test
    void iwarpConsumerRejectIsNotRetriedButARefusalIs() {
        var d = Driver.active(new ActiveConnectionMachine(ConnectionPolicy.defaults(Transport.IWARP)));
        d.feed(connect(1));
        d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        d.feed(cm(CmEventType.ROUTE_RESOLVED, 0));
        d.feed(cm(CmEventType.REJECTED, RejectReason.NEG_ECONNREFUSED));
        assertThat(d.phase()).isEqualTo(ActivePhase.RETRY_DRAINING);
        d.feed(new Input.Quiesced(Input.Resource.QP));
        d.feed(new Input.Quiesced(Input.Resource.CQ));
        assertThat(d.phase()).isEqualTo(ActivePhase.BACKOFF);
        d.feed(fire(d, TimerKind.RETRY_BACKOFF));
        d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        d.feed(cm(CmEventType.ROUTE_RESOLVED, 0));
        Bytes payload = PrivateData.encode(MessageKind.REJECT, new byte[] {9}).wire();
        List<Action> a = d.feed(cm(CmEventType.REJECTED, RejectReason.NEG_ECONNREFUSED, EventParams.Conn.withData(payload)));
        assertThat(a).contains(new Action.FailFuture(1, new Failure.Rejected(new RejectReason.ConsumerReject(
                new PrivateData.Received(Bytes.of((byte) 9), true)))));
        assertThat(d.phase()).isEqualTo(ActivePhase.DRAINING);
    }

    @Test
    void aPeerThatNeverAnswersTheDisconnectCannotHangTheClose() {
        var d = Driver.active(new ActiveConnectionMachine(ConnectionPolicy.defaults(Transport.INFINIBAND)));
        d.feed(connect(1));
        d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        d.feed(cm(CmEventType.ROUTE_RESOLVED, 0));
        d.feed(cm(CmEventType.ESTABLISHED, 0));
        d.feed(new Command.Close(2));
        assertThat(d.phase()).isEqualTo(ActivePhase.DISCONNECTING);
        d.feed(fire(d, TimerKind.DISCONNECT_DEADLINE));
        d.feed(fire(d, TimerKind.DRAIN_DEADLINE));
        List<Action> a = d.feed(fire(d, TimerKind.QUIESCE_DEADLINE));
        assertThat(d.terminal()).isTrue();
        assertThat(a).doesNotContain(new Action.DestroyCq()).contains(new Action.DestroyId(),
                new Action.CompleteFuture(2, new Outcome.Done()));
        // TIMEWAIT_EXIT after destroy began (ldms #556): acked and logged, nothing native.
        a = d.feed(cm(CmEventType.TIMEWAIT_EXIT, 0));
        assertThat(a).hasSize(2).first().isInstanceOf(Action.AckCmEvent.class);
    }

    @Test
    void unreachableOnAnEstablishedConnectionTearsItDown() {
        var d = Driver.active(new ActiveConnectionMachine(ConnectionPolicy.defaults(Transport.ROCE)));
        d.feed(connect(1));
        d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        d.feed(cm(CmEventType.ROUTE_RESOLVED, 0));
        d.feed(cm(CmEventType.ESTABLISHED, 0));
        List<Action> a = d.feed(cm(CmEventType.UNREACHABLE, -110));
        assertThat(a).contains(new Action.CallHandler(new Notice.Error(new Failure.Unreachable(-110))),
                new Action.Disconnect(), new Action.DrainQp());
        d.feed(new Input.Quiesced(Input.Resource.QP));
        d.feed(new Input.Quiesced(Input.Resource.CQ));
        assertThat(d.terminal()).isTrue();
    }

    @Test
    void rejectedDuringCloseDoesNotHang() {
        var d = Driver.active(new ActiveConnectionMachine(ConnectionPolicy.defaults(Transport.ROCE)));
        d.feed(connect(1));
        d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        d.feed(cm(CmEventType.ROUTE_RESOLVED, 0));
        d.feed(new Command.Close(2));
        List<Action> a = d.feed(cm(CmEventType.REJECTED, RejectReason.IB_CONSUMER_DEFINED));
        assertThat(a).containsExactly(new Action.AckCmEvent(seq - 1));
        d.feed(new Input.Quiesced(Input.Resource.QP));
        d.feed(new Input.Quiesced(Input.Resource.CQ));
        assertThat(d.terminal()).isTrue();
    }

    @Test
    void passiveSideAnswersCommEstWithNotifyAndDecisionTimeoutRejects() {
        var m = new PassiveConnectionMachine(ConnectionPolicy.defaults(Transport.ROCE));
        var d = Driver.passive(m);
        d.feed(new Command.Accept(1, PrivateData.encode(MessageKind.ACCEPT, new byte[] {1})));
        List<Action> a = d.feed(new Input.AsyncEvent(seq++, org.rdmacm4j.cm.statemachine.AsyncEventType.COMM_EST, 1));
        assertThat(a).containsExactly(new Action.AckAsyncEvent(seq - 1), new Action.Notify());
        d.feed(cm(CmEventType.ESTABLISHED, 0));
        assertThat(d.phase()).isEqualTo(PassivePhase.ESTABLISHED);

        var idle = Driver.passive(m);
        a = idle.feed(fire(idle, TimerKind.DECISION_DEADLINE));
        Failure.Expired expired = new Failure.Expired(
                "no decision within the decision deadline (PT10S); the request was rejected");
        assertThat(a).containsExactly(new Action.Reject(PrivateData.systemReject(SystemReject.DECISION_TIMEOUT).wire()),
                new Action.CallHandler(new Notice.RequestExpired(expired)), new Action.DestroyId(),
                new Action.SettleRequest());
        assertThat(idle.terminal()).isTrue();
        // Item 9: a late accept of an expired request fails as Expired, not Closed.
        a = idle.feed(new Command.Accept(2, PrivateData.encode(MessageKind.ACCEPT, new byte[0])));
        assertThat(a).containsExactly(new Action.FailFuture(2, expired));
    }

    @Test
    void multicastGroupsAreRejoinedAfterAnErrorUpToTheLimit() {
        var d = Driver.ud(new UdMachine(ConnectionPolicy.defaults(Transport.INFINIBAND)), false);
        d.feed(new Command.Connect(1, PrivateData.none(MessageKind.SIDR_REQUEST)));
        List<Action> a = d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        assertThat(d.phase()).isEqualTo(UdPhase.READY);
        assertThat(a.getLast()).isEqualTo(new Action.CreateQp());
        String g = "239.0.0.9";
        d.feed(new Command.JoinMulticast(2, g));
        a = d.feed(cm(CmEventType.MULTICAST_JOIN, 0, EventParams.Ud.forGroup(g)));
        assertThat(a).contains(new Action.CompleteFuture(2, new Outcome.Joined(g, EventParams.Ud.forGroup(g))));
        for (int i = 0; i < 3; i++) {
            a = d.feed(cm(CmEventType.MULTICAST_ERROR, -102, EventParams.Ud.forGroup(g)));
            assertThat(a).containsSubsequence(new Action.LeaveMulticast(g), new Action.JoinMulticast(g));
        }
        a = d.feed(cm(CmEventType.MULTICAST_JOIN, 0, EventParams.Ud.forGroup(g)));
        assertThat(a).contains(new Action.CallHandler(new Notice.MulticastRejoined(g)));
        for (int i = 0; i < 3; i++) {
            d.feed(cm(CmEventType.MULTICAST_ERROR, -102, EventParams.Ud.forGroup(g)));
        }
        a = d.feed(cm(CmEventType.MULTICAST_ERROR, -102, EventParams.Ud.forGroup(g)));
        assertThat(a).contains(new Action.CallHandler(new Notice.MulticastLost(g, -102)));
        d.feed(new Command.Close(3));
        d.feed(new Input.Quiesced(Input.Resource.QP));
        d.feed(new Input.Quiesced(Input.Resource.CQ));
        assertThat(d.terminal()).isTrue();
    }

    @Test
    void listenerRelistensAfterDeviceRemovalAndGivesUpAfterItsBudget() {
        RetryPolicy two = new RetryPolicy(2, Duration.ofMillis(5), Duration.ofMillis(5), 1, false, false, false, false);
        var d = Driver.listener(new ListenerMachine(new ListenerPolicy(two, true, true, 0)));
        List<Action> a = d.feed(cm(CmEventType.DEVICE_REMOVAL, 0));
        assertThat(a).containsSubsequence(new Action.AckCmEvent(seq - 1), new Action.DestroyId());
        a = d.feed(fire(d, TimerKind.RELISTEN_BACKOFF));
        assertThat(a).containsExactly(new Action.Relisten());
        d.feed(new Input.CallFailed(new Action.Relisten(), 19));
        d.feed(fire(d, TimerKind.RELISTEN_BACKOFF));
        a = d.feed(new Input.CallFailed(new Action.Relisten(), 19));
        assertThat(a).contains(new Action.CallHandler(new Notice.Error(new Failure.ListenerFailed(19))));
        assertThat(d.terminal()).isTrue();
    }

    @Test
    void listenerRefusesRequestsBeyondTheUndecidedLimit() {
        var d = Driver.listener(new ListenerMachine(new ListenerPolicy(RetryPolicy.never(), true, true, 2)));
        Input.CmEvent r1 = cm(CmEventType.CONNECT_REQUEST, 0);
        Input.CmEvent r2 = cm(CmEventType.CONNECT_REQUEST, 0);
        Input.CmEvent r3 = cm(CmEventType.CONNECT_REQUEST, 0);
        assertThat(d.feed(r1)).containsExactly(new Action.AckCmEvent(r1.seq()), new Action.OfferRequest(r1));
        assertThat(d.feed(r2)).containsExactly(new Action.AckCmEvent(r2.seq()), new Action.OfferRequest(r2));
        assertThat(d.feed(r3)).containsExactly(new Action.AckCmEvent(r3.seq()), new Action.RefuseRequest(r3, PrivateData.systemReject(SystemReject.BUSY).wire()));
        assertThat(d.feed(new Input.RequestSettled())).isEmpty();
        Input.CmEvent r4 = cm(CmEventType.CONNECT_REQUEST, 0);
        assertThat(d.feed(r4)).containsExactly(new Action.AckCmEvent(r4.seq()), new Action.OfferRequest(r4));
        d.feed(new Command.Close(1));
        // Children settle after their listener closed: expected, silent.
        assertThat(d.feed(new Input.RequestSettled())).isEmpty();
    }

    @Test
    void phaseCodesAreStable() {
        assertThat(ActivePhase.CLOSED.code()).isEqualTo(10);
        assertThat(ActivePhase.ESTABLISHED.code()).isEqualTo(5);
        assertThat(PassivePhase.CLOSED.code()).isEqualTo(7);
        assertThat(ListenerPhase.RELISTEN_BACKOFF.code()).isEqualTo(1);
        assertThat(UdPhase.READY.code()).isEqualTo(6);
    }
}
