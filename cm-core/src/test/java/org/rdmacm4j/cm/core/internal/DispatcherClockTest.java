package org.rdmacm4j.cm.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.cm.core.internal.Recorder.bytes;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;
import static org.rdmacm4j.cm.core.internal.Recorder.framedPadded;
import static org.rdmacm4j.cm.core.internal.Recorder.pause;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectTimeoutException;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RequestExpiredException;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;

/** The dispatcher driven directly, with a fake clock: deadlines and backoffs without sleeping. */
class DispatcherClockTest extends DispatcherOnFakeClock {
    static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);
    static final InetSocketAddress ANY = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);


    @Test
    void aQuiesceNeverAnsweredEndsInALeakAtItsDeadlineNotAHang() throws Exception {
        port.holdQuiesce = true;
        RdmaConnection c = dispatcher.connect(SERVER, ConnectOptions.defaults(), new Recorder())
                .get(5, TimeUnit.SECONDS);
        FakeId id = port.ids().getFirst();

        CompletableFuture<Void> closed = c.close();
        port.awaitCall("quiesceCq");
        advance(Duration.ofMillis(999));   // the default quiesce deadline is 1 s
        pause(60);
        assertThat(closed).isNotDone();
        assertThat(port.names(id)).doesNotContain("destroyQp", "destroyCq", "destroyCompChannel");

        advance(Duration.ofMillis(2));
        assertThat(closed).succeedsWithin(Duration.ofSeconds(5));
        // Never destroy a QP or CQ the poller may still touch: they are given up with the id.
        assertThat(port.names(id)).doesNotContain("destroyQp", "destroyCq", "destroyCompChannel", "quiesced");
        assertThat(id.leaked()).isTrue();
        assertThat(id.destroyed()).isFalse();
        assertThat(c.isClosed()).isTrue();
        eventually("nothing live", () -> dispatcher.statistics().liveIds() == 0);
        // A late answer of the poller is harmless.
        port.releaseQuiesces();
    }

    /**
     * A deadline starts when it is armed, not when the turn that armed it began. In the one-vCPU
     * two-host guest a cold JVM spent over a second in one turn; the quiesce deadline armed from
     * the turn's start then fired before the poller could answer and the QP and CQ leaked.
     */
    @Test
    void aSlowTurnDoesNotEatIntoTheQuiesceDeadlineItArms() throws Exception {
        port.holdQuiesce = true;
        RdmaConnection c = dispatcher.connect(SERVER, ConnectOptions.defaults(), new Recorder())
                .get(5, TimeUnit.SECONDS);
        FakeId id = port.ids().getFirst();
        // The turn that quiesces the CQ is slow: 900 ms pass inside it, before the deadline is armed.
        port.onCall("quiesceCq", x -> ticker.advance(Duration.ofMillis(900)));

        CompletableFuture<Void> closed = c.close();
        port.awaitCall("quiesceCq");
        advance(Duration.ofMillis(500));   // 1.4 s after the turn began, 0.5 s after the deadline was armed
        pause(60);
        assertThat(closed).isNotDone();
        assertThat(id.leaked()).isFalse();

        port.releaseQuiesces();   // the poller answers within the deadline: a clean close, nothing leaked
        assertThat(closed).succeedsWithin(Duration.ofSeconds(5));
        assertThat(id.leaked()).isFalse();
        assertThat(port.names(id)).contains("destroyQp", "destroyCq");
    }

    @Test
    void noListenerIsRetriedAfterTheBackoffThenFailsTyped() {
        port.autoEstablish = false;
        port.onCall("connect", id -> port.cmEvent(id, CmEventType.REJECTED, 8, EventParams.Conn.withData(Bytes.empty())));
        RetryPolicy twice = new RetryPolicy(2, Duration.ofMillis(100), Duration.ofSeconds(1), 2,
                false, false, true, false, false);
        var f = dispatcher.connect(SERVER, ConnectOptions.builder().retries(twice).build(), new Recorder());

        port.awaitCall("destroyId", 1);
        FakeId first = port.ids().getFirst();
        // The rejected id is replaced in the teardown order, before the backoff.
        assertThat(port.names(first)).containsExactly("createId", "resolveAddr", "createQp", "resolveRoute", "connect",
                "drainQp", "quiesceCq", "quiesced", "destroyQp", "destroyCq", "destroyCompChannel", "destroyId");
        pause(60);
        assertThat(port.count("createId")).isEqualTo(1);   // waiting for the backoff (fake clock)
        advance(Duration.ofMillis(99));
        pause(60);
        assertThat(port.count("createId")).isEqualTo(1);

        advance(Duration.ofMillis(1));
        port.awaitCall("connect", 2);
        port.awaitCall("destroyId", 2);
        pause(60);
        assertThat(port.count("createId")).isEqualTo(2);
        advance(Duration.ofMillis(200));   // second backoff: 100 ms * 2
        port.awaitCall("connect", 3);

        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOfSatisfying(ConnectionRejectedException.class, e ->
                        assertThat(e.reason()).isEqualTo(ConnectionRejectedException.Reason.NO_LISTENER));
        assertThat(port.count("createId")).isEqualTo(3);
        assertThat(port.count("connect")).isEqualTo(3);
        eventually("every attempt's id freed", () -> port.liveIds().isEmpty());
        assertThat(port.ids()).allSatisfy(i -> assertThat(i.destroyed()).isTrue());
        assertThat(dispatcher.statistics().connectsFailed()).containsEntry("ConnectionRejectedException/NO_LISTENER", 1L);
        assertThat(dispatcher.statistics().connectsStarted()).isEqualTo(1);
    }

    @Test
    void theConnectDeadlineFailsAStuckResolve() {
        port.autoResolve = false;
        var f = dispatcher.connect(SERVER, ConnectOptions.builder().timeout(Duration.ofSeconds(3)).build(),
                new Recorder());
        port.awaitCall("resolveAddr");
        advance(Duration.ofMillis(2999));
        pause(60);
        assertThat(f).isNotDone();
        advance(Duration.ofMillis(1));
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(ConnectTimeoutException.class);
        FakeId id = port.ids().getFirst();
        eventually("id destroyed", id::destroyed);
        assertThat(port.names(id)).containsExactly("createId", "resolveAddr", "destroyId");
    }

    // ------------------------------------------------------------------ passive side

    record Offered(CompletableFuture<ConnectionRequest> first, List<CompletableFuture<ConnectionRequest>> all) { }

    private final List<CompletableFuture<ConnectionRequest>> requests = new java.util.concurrent.CopyOnWriteArrayList<>();

    private RdmaListener listen(ListenOptions options) {
        for (int i = 0; i < 4; i++) {
            requests.add(new CompletableFuture<>());
        }
        return dispatcher.listen(ANY, options, r -> {
            for (CompletableFuture<ConnectionRequest> f : requests) {
                if (f.complete(r)) {
                    return;
                }
            }
        });
    }

    private static EventParams.Conn request(byte[] data, int responder, int initiator) {
        return new EventParams.Conn(framedPadded(MessageKind.CONNECT_REQUEST, data), responder, initiator, 0, 7, 7,
                false, 0x42);
    }

    @Test
    void aRequestIsAcceptedWithTheRequestsDepthsAndItsExactData() throws Exception {
        RdmaListener l = listen(ListenOptions.defaults());
        FakeId lid = port.ids().getFirst();
        assertThat(port.names(lid)).containsExactly("createId", "bind", "listen");
        byte[] data = bytes(54, 9);
        byte[] reply = bytes(194, 4);

        FakeId rid = port.connectRequest(lid, request(data, 1, 1));
        port.wakeup();
        ConnectionRequest r = requests.getFirst().get(5, TimeUnit.SECONDS);
        assertThat(r.privateData()).isEqualTo(data);
        assertThat(r.privateDataFramed()).isTrue();
        assertThat(port.names(rid)).isEmpty();   // nothing native before the decision

        Recorder h = new Recorder();
        RdmaConnection c = r.accept(h, AcceptOptions.defaults().raw().privateData(reply)).get(5, TimeUnit.SECONDS);

        assertThat(port.names(rid)).containsExactly("createQp", "accept");
        CmTuning t = rid.acceptTuning();
        assertThat(t.initiatorDepth()).isLessThanOrEqualTo(1);
        assertThat(t.responderResources()).isLessThanOrEqualTo(1);
        byte[] wire = rid.acceptData().toArray();
        assertThat(wire[0] & 0xFF).isEqualTo(0xA1);
        assertThat(java.util.Arrays.copyOfRange(wire, 2, wire.length)).isEqualTo(reply);
        // The passive side's peer data is the request's, not the (empty) ESTABLISHED's.
        assertThat(c.peerPrivateData()).isEqualTo(data);
        h.await("established");
        assertThat(dispatcher.statistics().requestsReceived()).isEqualTo(1);
        assertThat(dispatcher.statistics().accepts()).isEqualTo(1);

        c.close().get(5, TimeUnit.SECONDS);
        assertThat(port.names(rid)).containsSubsequence("disconnect", "drainQp", "quiesceCq", "quiesced", "destroyQp",
                "destroyCq", "destroyCompChannel", "destroyId");
        l.close().get(5, TimeUnit.SECONDS);
        assertThat(lid.destroyed()).isTrue();
        eventually("nothing live", () -> dispatcher.statistics().liveIds() == 0);
    }

    @Test
    void anUndecidedRequestIsRejectedAtTheDecisionDeadlineAndExpires() throws Exception {
        RdmaListener l = listen(ListenOptions.defaults().withDecisionTimeout(Duration.ofSeconds(3))
                .withMaxPendingRequests(1));
        FakeId lid = port.ids().getFirst();
        FakeId rid = port.connectRequest(lid, request(bytes(5, 1), 1, 1));
        port.wakeup();
        ConnectionRequest r = requests.getFirst().get(5, TimeUnit.SECONDS);
        CompletableFuture<RequestExpiredException> expired = r.expired();

        advance(Duration.ofMillis(2999));
        pause(60);
        assertThat(expired).isNotDone();
        assertThat(port.names(rid)).isEmpty();

        advance(Duration.ofMillis(1));
        assertThat(expired).succeedsWithin(Duration.ofSeconds(5))
                .satisfies(e -> assertThat(e).hasMessageContaining("decision"));
        port.awaitCallOn(rid, "destroyId");
        assertThat(port.names(rid)).containsExactly("reject", "destroyId");
        // A system reject the peer's rdmacm4j decodes: 0xB1, DECISION_TIMEOUT (2).
        assertThat(rid.rejectData()).isEqualTo(Bytes.of((byte) 0xB1, (byte) 2));
        // A late decision fails with the expiry.
        assertThatThrownBy(() -> r.accept(new Recorder()).get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(RequestExpiredException.class);
        assertThat(port.count("accept")).isZero();

        // The expired request no longer counts against maxPendingRequests = 1: the next one is offered.
        FakeId rid2 = port.connectRequest(lid, request(bytes(3, 2), 1, 1));
        port.wakeup();
        ConnectionRequest r2 = requests.get(1).get(5, TimeUnit.SECONDS);
        assertThat(r2.privateData()).isEqualTo(bytes(3, 2));
        r2.reject(bytes(146, 5)).get(5, TimeUnit.SECONDS);   // completes once the reject is sent
        assertThat(port.names(rid2)).startsWith("reject");
        port.awaitCallOn(rid2, "destroyId");
        assertThat(port.names(rid2)).containsExactly("reject", "destroyId");
        assertThat(rid2.rejectData()).isEqualTo(org.rdmacm4j.cm.statemachine.privatedata.PrivateData
                .encode(MessageKind.REJECT, bytes(146, 5)).wire());
        l.close().get(5, TimeUnit.SECONDS);
    }

    @Test
    void beyondMaxPendingRequestsTheListenerAnswersBusy() throws Exception {
        RdmaListener l = listen(ListenOptions.defaults().withMaxPendingRequests(1));
        FakeId lid = port.ids().getFirst();
        port.connectRequest(lid, request(bytes(1, 1), 1, 1));
        FakeId second = port.connectRequest(lid, request(bytes(1, 2), 1, 1));
        port.wakeup();
        requests.getFirst().get(5, TimeUnit.SECONDS);
        port.awaitCallOn(second, "destroyId");
        assertThat(port.names(second)).containsExactly("reject", "destroyId");
        assertThat(second.rejectData()).isEqualTo(Bytes.of((byte) 0xB1, (byte) 1));   // BUSY
        pause(50);
        assertThat(requests.get(1)).isNotDone();
        assertThat(dispatcher.statistics().rejects()).isEqualTo(1);
        l.close().get(5, TimeUnit.SECONDS);
    }

    @Test
    void rejectPayloadOverTheLimitIsRefusedBeforeAnyCall() throws Exception {
        listen(ListenOptions.defaults());
        FakeId lid = port.ids().getFirst();
        FakeId rid = port.connectRequest(lid, request(bytes(1, 1), 1, 1));
        port.wakeup();
        ConnectionRequest r = requests.getFirst().get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> r.reject(new byte[147]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("146");
        assertThatThrownBy(() -> r.accept(new Recorder(), AcceptOptions.withPrivateData(new byte[195])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("194");
        pause(50);
        assertThat(port.names(rid)).isEmpty();
    }

    @Test
    void aRequestForAClosedListenerIsRefused() throws Exception {
        RdmaListener l = listen(ListenOptions.defaults());
        FakeId lid = port.ids().getFirst();
        l.close().get(5, TimeUnit.SECONDS);
        assertThat(l.isClosed()).isTrue();
        FakeId late = port.connectRequest(lid, request(bytes(1, 1), 1, 1));
        port.wakeup();
        port.awaitCallOn(late, "destroyId");
        assertThat(port.names(late)).containsExactly("reject", "destroyId");
        assertThat(late.rejectData()).isEqualTo(Bytes.of((byte) 0xB1, (byte) 3));   // LISTENER_CLOSED
    }
}
