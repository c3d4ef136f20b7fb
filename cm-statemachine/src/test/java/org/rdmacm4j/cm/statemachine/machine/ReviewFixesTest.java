package org.rdmacm4j.cm.statemachine.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.CmTuning;
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
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;

/**
 * One scenario per item of the semantic review in issue 7 §0, each failing before its fix. Every
 * step also runs through the {@link CoreModel} invariants (via {@link Driver}).
 */
class ReviewFixesTest {
    private static final CmTuning RXE = new CmTuning(128, 128, 7, 7);
    private long seq = 1;

    private Input.CmEvent cm(CmEventType type, int status) {
        return new Input.CmEvent(seq++, type, status, new EventParams.None());
    }

    private Input.CmEvent cm(CmEventType type, int status, EventParams params) {
        return new Input.CmEvent(seq++, type, status, params);
    }

    private Input.AsyncEvent async(AsyncEventType type) {
        return new Input.AsyncEvent(seq++, type, 1);
    }

    private static Input.TimerExpired fire(Driver<?, ?> d, TimerKind kind) {
        assertThat(d.timers().isArmed(kind)).as("%s armed", kind).isTrue();
        return new Input.TimerExpired(kind, d.timers().generation(kind));
    }

    private static <T> T only(List<Action> actions, Class<T> type) {
        List<T> found = actions.stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(found).as("one %s in %s", type.getSimpleName(), actions).hasSize(1);
        return found.getFirst();
    }

    private Driver<ActivePhase, ActiveState> connecting(ConnectionPolicy policy) {
        var d = Driver.active(new ActiveConnectionMachine(policy));
        d.feed(new Command.Connect(1, PrivateData.encode(MessageKind.CONNECT_REQUEST, new byte[] {1})));
        d.feed(new Input.CallsSucceeded());
        d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        d.feed(new Input.CallsSucceeded());
        d.feed(cm(CmEventType.ROUTE_RESOLVED, 0));
        return d;
    }

    private Driver<ActivePhase, ActiveState> established(ConnectionPolicy policy) {
        var d = connecting(policy);
        d.feed(new Input.CallsSucceeded());
        d.feed(cm(CmEventType.ESTABLISHED, 0));
        assertThat(d.phase()).isEqualTo(ActivePhase.ESTABLISHED);
        return d;
    }

    private Input.CmEvent request(int responderResources, int initiatorDepth, byte... payload) {
        return cm(CmEventType.CONNECT_REQUEST, 0, new EventParams.Conn(
                PrivateData.encode(MessageKind.CONNECT_REQUEST, payload).wire(), responderResources, initiatorDepth,
                0, 7, 7, false, 0x42));
    }

    private static Driver<PassivePhase, PassiveState> passive(ConnectionPolicy policy, Input.CmEvent request,
                                                              CmTuning limits) {
        var m = new PassiveConnectionMachine(policy);
        return new Driver<>(m, m.open(request, limits));
    }

    // 1. REJECTED on an ESTABLISHED id: connection lost, the handler is told, teardown.
    @Test
    void item1RejectedAfterEstablishedIsAConnectionLoss() {
        var d = established(ConnectionPolicy.defaults(Transport.ROCE));
        List<Action> a = d.feed(cm(CmEventType.REJECTED, RejectReason.IB_TIMEOUT));
        assertThat(a).contains(new Action.CallHandler(new Notice.Error(new Failure.Rejected(new RejectReason.Timeout()))),
                new Action.DrainQp());
        assertThat(d.phase()).isEqualTo(ActivePhase.DRAINING);

        var p = passive(ConnectionPolicy.defaults(Transport.ROCE), request(1, 1), RXE);
        p.feed(new Command.Accept(2, PrivateData.encode(MessageKind.ACCEPT, new byte[0])));
        p.feed(new Input.CallsSucceeded());
        p.feed(cm(CmEventType.ESTABLISHED, 0));
        a = p.feed(cm(CmEventType.REJECTED, RejectReason.IB_TIMEOUT));
        assertThat(a).contains(new Action.CallHandler(new Notice.Error(new Failure.Rejected(new RejectReason.Timeout()))));
        assertThat(p.phase()).isEqualTo(PassivePhase.DRAINING);
    }

    // 2. The accept's resources are clamped to min(policy, request, device); rping asks for 1/1.
    @Test
    void item2AcceptTuningIsClampedToTheRequestAndTheDevice() {
        ConnectionPolicy policy = ConnectionPolicy.defaults(Transport.ROCE);
        var rping = passive(policy, request(1, 1), RXE);
        List<Action> a = rping.feed(new Command.Accept(1, PrivateData.encode(MessageKind.ACCEPT, new byte[0])));
        assertThat(only(a, Action.Accept.class).tuning()).isEqualTo(new CmTuning(1, 1, 7, 7));

        var smallDevice = passive(policy, request(64, 64), new CmTuning(4, 2, 0, 0));
        a = smallDevice.feed(new Command.Accept(1, PrivateData.encode(MessageKind.ACCEPT, new byte[0])));
        assertThat(only(a, Action.Accept.class).tuning()).isEqualTo(new CmTuning(4, 2, 7, 7));

        // A request with initiator depth 0 gets 0 (rdma_accept(3): never above the request's); no conn
        // params at all: initiator depth 0, responder resources up to policy and device.
        var zero = passive(policy, request(0, 0), RXE);
        a = zero.feed(new Command.Accept(1, PrivateData.encode(MessageKind.ACCEPT, new byte[0])));
        assertThat(only(a, Action.Accept.class).tuning()).isEqualTo(new CmTuning(16, 0, 7, 7));
        assertThat(Requests.acceptTuning(CmTuning.defaults(), new EventParams.None(), RXE))
                .isEqualTo(new CmTuning(16, 0, 7, 7));
    }

    // 3. UD teardown on device loss still leaves every joined group before the QP is destroyed.
    @Test
    void item3DeviceLossLeavesGroupsBeforeTheQpIsDestroyed() {
        var d = Driver.ud(new UdMachine(ConnectionPolicy.defaults(Transport.INFINIBAND)), false);
        d.feed(new Command.Connect(1, PrivateData.none(MessageKind.SIDR_REQUEST)));
        d.feed(new Input.CallsSucceeded());
        d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        d.feed(new Input.CallsSucceeded());
        String g = "239.0.0.7";
        d.feed(new Command.JoinMulticast(2, g));
        d.feed(new Input.CallsSucceeded());
        d.feed(cm(CmEventType.MULTICAST_JOIN, 0, EventParams.Ud.forGroup(g)));
        List<Action> a = d.feed(cm(CmEventType.DEVICE_REMOVAL, 0));
        assertThat(a).contains(new Action.LeaveMulticast(g)).doesNotContain(new Action.DestroyQp());
        a = d.feed(new Input.Quiesced(Input.Resource.CQ));
        assertThat(a).containsSubsequence(new Action.DestroyQp(), new Action.DestroyCq(), new Action.DestroyCompChannel(),
                new Action.DestroyId());
        assertThat(d.terminal()).isTrue();
    }

    // 4. The poller stops before anything is destroyed; if it does not stop in time, QP, CQ and channel leak together.
    @Test
    void item4QpIsDestroyedOnlyAfterTheCqIsQuiesced() {
        var d = established(ConnectionPolicy.defaults(Transport.ROCE));
        d.feed(new Command.Abort(2));
        List<Action> a = d.feed(new Input.Quiesced(Input.Resource.QP));
        assertThat(a).contains(new Action.QuiesceCq()).doesNotContain(new Action.DestroyQp());
        a = d.feed(new Input.Quiesced(Input.Resource.CQ));
        assertThat(a).containsSubsequence(new Action.DestroyQp(), new Action.DestroyCq(),
                new Action.DestroyCompChannel(), new Action.DestroyId());

        var stuck = established(ConnectionPolicy.defaults(Transport.ROCE));
        stuck.feed(new Command.Abort(2));
        stuck.feed(new Input.Quiesced(Input.Resource.QP));
        a = stuck.feed(fire(stuck, TimerKind.QUIESCE_DEADLINE));
        assertThat(a).doesNotContain(new Action.DestroyQp(), new Action.DestroyCq(), new Action.DestroyCompChannel())
                .contains(new Action.DestroyId());
        assertThat(stuck.terminal()).isTrue();
    }

    // 5. Crossing disconnects: the peer's DREQ while ours is out is answered (the DREP) at once.
    @Test
    void item5CrossingDisconnectsAreAnsweredAndEndTheWaitAtOnce() {
        var d = established(ConnectionPolicy.defaults(Transport.INFINIBAND).withAwaitTimewaitExit(true));
        List<Action> a = d.feed(new Command.Close(2));
        assertThat(a).contains(new Action.Disconnect());
        a = d.feed(cm(CmEventType.DISCONNECTED, 0));
        assertThat(a).contains(new Action.Disconnect())
                .anyMatch(x -> x instanceof Action.CancelTimer c && c.kind() == TimerKind.DISCONNECT_DEADLINE);
        assertThat(d.phase()).isEqualTo(ActivePhase.TIMEWAIT);
        assertThat(d.timers().isArmed(TimerKind.DISCONNECT_DEADLINE)).isFalse();
        // Answered once per id.
        d.feed(cm(CmEventType.TIMEWAIT_EXIT, 0));
        a = d.feed(cm(CmEventType.DISCONNECTED, 0));
        assertThat(a).doesNotContain(new Action.Disconnect());

        // An abort does not wait for the peer; its DISCONNECTED arriving later is still answered.
        var aborted = established(ConnectionPolicy.defaults(Transport.ROCE));
        aborted.feed(new Command.Abort(2));
        a = aborted.feed(cm(CmEventType.DISCONNECTED, 0));
        assertThat(a).containsExactly(new Action.AckCmEvent(seq - 1), new Action.Disconnect());
    }

    // 6. The listener treats DEVICE_FATAL like DEVICE_REMOVAL, policy included.
    @Test
    void item6ListenerDeviceFatalHonoursTheRelistenPolicy() {
        var noRelisten = Driver.listener(new ListenerMachine(new ListenerPolicy(RetryPolicy.never(), true, false, 0)));
        List<Action> a = noRelisten.feed(async(AsyncEventType.DEVICE_FATAL));
        assertThat(noRelisten.phase()).isEqualTo(ListenerPhase.CLOSED);
        assertThat(a).contains(new Action.DestroyId());
        var relisten = Driver.listener(new ListenerMachine(ListenerPolicy.defaults()));
        relisten.feed(async(AsyncEventType.DEVICE_FATAL));
        assertThat(relisten.phase()).isEqualTo(ListenerPhase.RELISTEN_BACKOFF);
    }

    // 7. A failed CreateQp was rolled back by the core with its CQ: nothing to quiesce.
    @Test
    void item7NoCqIsAwaitedAfterAFailedCreateQp() {
        var d = Driver.active(new ActiveConnectionMachine(ConnectionPolicy.defaults(Transport.ROCE)));
        d.feed(new Command.Connect(1, PrivateData.encode(MessageKind.CONNECT_REQUEST, new byte[0])));
        d.feed(new Input.CallsSucceeded());
        d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        List<Action> a = d.feed(new Input.CallFailed(new Action.CreateQp(), 12));
        assertThat(a).doesNotContain(new Action.QuiesceCq()).contains(new Action.DestroyId());
        assertThat(d.terminal()).isTrue();
        assertThat(d.state.context().hasCq()).isFalse();

        var p = passive(ConnectionPolicy.defaults(Transport.ROCE), request(1, 1), RXE);
        p.feed(new Command.Accept(2, PrivateData.encode(MessageKind.ACCEPT, new byte[0])));
        a = p.feed(new Input.CallFailed(new Action.CreateQp(), 12));
        assertThat(a).doesNotContain(new Action.QuiesceCq()).contains(new Action.DestroyId());
        assertThat(p.terminal()).isTrue();
    }

    // 8. Futures that depend on fallible calls complete only after CallsSucceeded.
    @Test
    void item8MulticastConnectAndSidrAcceptCompleteAfterTheirCallsSucceeded() {
        var d = Driver.ud(new UdMachine(ConnectionPolicy.defaults(Transport.INFINIBAND)), false);
        d.feed(new Command.Connect(1, PrivateData.none(MessageKind.SIDR_REQUEST)));
        d.feed(new Input.CallsSucceeded());
        List<Action> a = d.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        assertThat(a).noneMatch(x -> x instanceof Action.CompleteFuture).endsWith(new Action.CreateQp());
        a = d.feed(new Input.CallsSucceeded());
        assertThat(a).containsExactly(new Action.CompleteFuture(1,
                new Outcome.UdReady(PrivateData.Received.nothing(), new EventParams.None())));

        var failing = Driver.ud(new UdMachine(ConnectionPolicy.defaults(Transport.INFINIBAND)), false);
        failing.feed(new Command.Connect(1, PrivateData.none(MessageKind.SIDR_REQUEST)));
        failing.feed(new Input.CallsSucceeded());
        failing.feed(cm(CmEventType.ADDR_RESOLVED, 0));
        a = failing.feed(new Input.CallFailed(new Action.CreateQp(), 12));
        assertThat(a).contains(new Action.FailFuture(1, new Failure.NativeCallFailed("rdma_create_qp", 12)))
                .noneMatch(x -> x instanceof Action.CallHandler);
        assertThat(failing.terminal()).isTrue();

        var m = new UdMachine(ConnectionPolicy.defaults(Transport.INFINIBAND));
        Input.CmEvent sidrReq = cm(CmEventType.CONNECT_REQUEST, 0, new EventParams.Ud(
                PrivateData.encode(MessageKind.SIDR_REQUEST, new byte[] {4}).wire(), Bytes.empty(), 9, 7, ""));
        var server = new Driver<>(m, m.openRequest(sidrReq, RXE));
        a = server.feed(new Command.Accept(2, PrivateData.encode(MessageKind.SIDR_REPLY, new byte[0])));
        assertThat(a).noneMatch(x -> x instanceof Action.CompleteFuture);
        a = server.feed(new Input.CallsSucceeded());
        assertThat(a).containsExactly(new Action.CompleteFuture(2, new Outcome.UdReady(
                new PrivateData.Received(Bytes.of((byte) 4), true), sidrReq.params())));
        // CallsSucceeded anywhere else: silent.
        assertThat(server.feed(new Input.CallsSucceeded())).isEmpty();
    }

    // 9. The passive side's peer data is the request's; a request that dies undecided expires.
    @Test
    void item9PeerDataIsTheRequestsAndAnAbandonedRequestExpires() {
        var p = passive(ConnectionPolicy.defaults(Transport.ROCE), request(1, 1, (byte) 'h', (byte) 'i'), RXE);
        p.feed(new Command.Accept(2, PrivateData.encode(MessageKind.ACCEPT, new byte[0])));
        p.feed(new Input.CallsSucceeded());
        List<Action> a = p.feed(cm(CmEventType.ESTABLISHED, 0, EventParams.Conn.withData(Bytes.of(new byte[196]))));
        Outcome.Connected connected = (Outcome.Connected) only(a, Action.CompleteFuture.class).outcome();
        assertThat(connected.peerData()).isEqualTo(new PrivateData.Received(Bytes.of((byte) 'h', (byte) 'i'), true));
        assertThat(a).contains(new Action.CallHandler(new Notice.Established(connected)));

        var gaveUp = passive(ConnectionPolicy.defaults(Transport.ROCE), request(1, 1), RXE);
        a = gaveUp.feed(cm(CmEventType.REJECTED, RejectReason.IB_TIMEOUT));
        Notice.RequestExpired expired = (Notice.RequestExpired) only(a, Action.CallHandler.class).notice();
        assertThat(a).contains(new Action.SettleRequest(), new Action.DestroyId());
        assertThat(gaveUp.terminal()).isTrue();
        assertThat(gaveUp.feed(new Command.Accept(3, PrivateData.encode(MessageKind.ACCEPT, new byte[0]))))
                .containsExactly(new Action.FailFuture(3, expired.failure()));
        assertThat(gaveUp.feed(new Command.Reject(4, PrivateData.encode(MessageKind.REJECT, new byte[0]))))
                .containsExactly(new Action.FailFuture(4, expired.failure()));
        assertThat(gaveUp.feed(new Command.Close(5))).containsExactly(new Action.FailFuture(5, expired.failure()));
    }

    // 10. RequestSettled is an explicit action, exactly once, before the step's fallible calls.
    @Test
    void item10SettleRequestIsEmittedOnceWhenTheRequestIsDecided() {
        var p = passive(ConnectionPolicy.defaults(Transport.ROCE), request(1, 1), RXE);
        List<Action> a = p.feed(new Command.Accept(2, PrivateData.encode(MessageKind.ACCEPT, new byte[0])));
        assertThat(a).containsSubsequence(new Action.SettleRequest(), new Action.CreateQp(),
                new Action.Accept(PrivateData.encode(MessageKind.ACCEPT, new byte[0]).wire(), new CmTuning(1, 1, 7, 7)));
        assertThat(a.indexOf(new Action.SettleRequest())).isLessThan(a.indexOf(new Action.CreateQp()));
        p.feed(new Input.CallsSucceeded());
        p.feed(cm(CmEventType.ESTABLISHED, 0));
        p.feed(new Command.Abort(3));
        p.feed(new Input.Quiesced(Input.Resource.QP));
        p.feed(new Input.Quiesced(Input.Resource.CQ));
        assertThat(p.model.settles).isEqualTo(1);
        assertThat(p.terminal()).isTrue();
    }

    // 11. Library rejects carry a system reason; an rdmacm4j client retries BUSY and fails on the others.
    @Test
    void item11SystemRejectsAreFramedAndBusyIsRetried() {
        var listener = Driver.listener(new ListenerMachine(new ListenerPolicy(RetryPolicy.never(), true, true, 1)));
        listener.feed(cm(CmEventType.CONNECT_REQUEST, 0));
        Input.CmEvent second = cm(CmEventType.CONNECT_REQUEST, 0);
        Bytes busy = PrivateData.systemReject(SystemReject.BUSY).wire();
        assertThat(listener.feed(second)).containsExactly(new Action.AckCmEvent(second.seq()),
                new Action.RefuseRequest(second, busy));

        var decision = passive(ConnectionPolicy.defaults(Transport.ROCE), request(1, 1), RXE);
        List<Action> a = decision.feed(fire(decision, TimerKind.DECISION_DEADLINE));
        assertThat(a).contains(new Action.Reject(PrivateData.systemReject(SystemReject.DECISION_TIMEOUT).wire()));
        var closed = passive(ConnectionPolicy.defaults(Transport.ROCE), request(1, 1), RXE);
        assertThat(closed.feed(new Command.Close(2)))
                .contains(new Action.Reject(PrivateData.systemReject(SystemReject.LISTENER_CLOSED).wire()));
        var acceptFailed = passive(ConnectionPolicy.defaults(Transport.ROCE), request(1, 1), RXE);
        acceptFailed.feed(new Command.Accept(2, PrivateData.encode(MessageKind.ACCEPT, new byte[0])));
        assertThat(acceptFailed.feed(new Input.CallFailed(new Action.Accept(Bytes.empty(), CmTuning.defaults()), 22)))
                .contains(new Action.Reject(PrivateData.systemReject(SystemReject.ACCEPT_FAILED).wire()));

        // The client side: busy (padded, as the REJ delivers it) is retried, a decision timeout is not.
        byte[] padded = java.util.Arrays.copyOf(busy.toArray(), 148);
        var client = connecting(ConnectionPolicy.defaults(Transport.ROCE));
        client.feed(new Input.CallsSucceeded());
        client.feed(cm(CmEventType.REJECTED, RejectReason.IB_CONSUMER_DEFINED, EventParams.Conn.withData(Bytes.of(padded))));
        assertThat(client.phase()).isEqualTo(ActivePhase.RETRY_DRAINING);
        var refused = connecting(ConnectionPolicy.defaults(Transport.ROCE));
        refused.feed(new Input.CallsSucceeded());
        a = refused.feed(cm(CmEventType.REJECTED, RejectReason.IB_CONSUMER_DEFINED,
                EventParams.Conn.withData(PrivateData.systemReject(SystemReject.DECISION_TIMEOUT).wire())));
        assertThat(a).contains(new Action.FailFuture(1,
                new Failure.Rejected(new RejectReason.Refused(SystemReject.DECISION_TIMEOUT))));
    }

    // 12. iWARP: a Close while rdma_connect awaits its MPA reply must not disconnect or destroy yet.
    @Test
    void item12IwarpAbandonedConnectWaitsForItsResult() {
        ConnectionPolicy iwarp = ConnectionPolicy.defaults(Transport.IWARP);
        var d = connecting(iwarp);
        d.feed(new Input.CallsSucceeded());
        List<Action> a = d.feed(new Command.Close(2));
        assertThat(a).contains(new Action.FailFuture(1, new Failure.Closed()))
                .doesNotContain(new Action.Disconnect(), new Action.DestroyId(), new Action.DrainQp());
        assertThat(d.phase()).isEqualTo(ActivePhase.CONNECT_ABANDONED);
        assertThat(d.timers().isArmed(TimerKind.CONNECT_RESULT_DEADLINE)).isTrue();
        // The peer's MPA reply arrives: now the teardown runs (and no longer blocks).
        a = d.feed(cm(CmEventType.ESTABLISHED, 0));
        assertThat(a).contains(new Action.Disconnect(), new Action.DrainQp());
        d.feed(new Input.Quiesced(Input.Resource.QP));
        d.feed(new Input.Quiesced(Input.Resource.CQ));
        assertThat(d.terminal()).isTrue();

        // No result before the deadline: the id is leaked rather than blocking the dispatcher.
        var silent = connecting(iwarp);
        silent.feed(new Input.CallsSucceeded());
        silent.feed(fire(silent, TimerKind.CONNECT_DEADLINE));
        assertThat(silent.phase()).isEqualTo(ActivePhase.CONNECT_ABANDONED);
        a = silent.feed(fire(silent, TimerKind.CONNECT_RESULT_DEADLINE));
        assertThat(a).anyMatch(x -> x instanceof Action.LeakId).doesNotContain(new Action.DestroyId());
        assertThat(silent.terminal()).isTrue();

        // On IB the same Close disconnects at once.
        var ib = connecting(ConnectionPolicy.defaults(Transport.INFINIBAND));
        ib.feed(new Input.CallsSucceeded());
        assertThat(ib.feed(new Command.Close(2))).contains(new Action.Disconnect());
    }

    @Test
    void item12IwarpRefusalsAreDecoded() {
        // siw: nobody listens = a synchronous ECONNREFUSED from rdma_connect: NoListener, retried per policy.
        var d = connecting(ConnectionPolicy.defaults(Transport.IWARP));
        d.feed(new Input.CallFailed(d.lastCalls().getFirst(), RejectReason.ECONNREFUSED));
        assertThat(d.phase()).isEqualTo(ActivePhase.RETRY_DRAINING);
        var never = connecting(ConnectionPolicy.defaults(Transport.IWARP).withRetry(RetryPolicy.never()));
        List<Action> a = never.feed(new Input.CallFailed(never.lastCalls().getFirst(), RejectReason.ECONNREFUSED));
        assertThat(a).contains(new Action.FailFuture(1, new Failure.Rejected(new RejectReason.NoListener())));
        // siw: an MPA reject is REJECTED -ECONNRESET: a consumer reject.
        var rejected = connecting(ConnectionPolicy.defaults(Transport.IWARP));
        rejected.feed(new Input.CallsSucceeded());
        a = rejected.feed(cm(CmEventType.REJECTED, RejectReason.NEG_ECONNRESET,
                EventParams.Conn.withData(PrivateData.encode(MessageKind.REJECT, new byte[] {7}).wire())));
        assertThat(a).contains(new Action.FailFuture(1, new Failure.Rejected(new RejectReason.ConsumerReject(
                new PrivateData.Received(Bytes.of((byte) 7), true)))));
    }

    @Test
    void aRetryIsBoundedByTheConnectDeadlineEvenWhileTheOldIdDrains() {
        var d = connecting(ConnectionPolicy.defaults(Transport.ROCE));
        d.feed(new Input.CallsSucceeded());
        d.feed(cm(CmEventType.REJECTED, RejectReason.IB_STALE_CONN));
        assertThat(d.phase()).isEqualTo(ActivePhase.RETRY_DRAINING);
        List<Action> a = d.feed(fire(d, TimerKind.CONNECT_DEADLINE));
        assertThat(a).contains(new Action.FailFuture(1, new Failure.TimedOut(TimerKind.CONNECT_DEADLINE)));
        assertThat(d.phase()).isEqualTo(ActivePhase.DRAINING);
        d.feed(new Input.Quiesced(Input.Resource.QP));
        d.feed(new Input.Quiesced(Input.Resource.CQ));
        assertThat(d.terminal()).isTrue();
    }

    @Test
    void openRecordsTheRequest() {
        var m = new PassiveConnectionMachine(ConnectionPolicy.defaults(Transport.ROCE));
        Input.CmEvent req = request(2, 3, (byte) 1);
        Transition<PassiveState> t = m.open(req, RXE);
        assertThat(t.next().context().requestParams()).isEqualTo(req.params());
        assertThat(t.next().context().acceptTuning()).isEqualTo(new CmTuning(2, 3, 7, 7));
        assertThat(t.actions()).containsExactly(new Action.ArmTimer(TimerKind.DECISION_DEADLINE, 1,
                Duration.ofSeconds(10).toNanos()));
    }
}
