package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.cm.core.internal.Recorder.bytes;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;
import static org.rdmacm4j.cm.core.internal.Recorder.framedPadded;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;

/**
 * {@link ListenOptions#withDecisionOnDispatcher}: the request handler runs on the dispatcher thread,
 * inline with CONNECT_REQUEST, and its accept or reject works from there; a throwing handler still
 * rejects only its request; blocking calls inside it are refused; without the option the handler
 * runs on the callback executor as before; the pull form refuses the option before any native call.
 */
class DecisionOnDispatcherTest extends OverFakePort {
    private static final EventParams.Conn REQUEST = new EventParams.Conn(
            framedPadded(MessageKind.CONNECT_REQUEST, bytes(4, 1)), 1, 1, 0, 7, 7, false, 1);

    @Test
    void theOptionIsOffByDefaultAndSurvivesTheOtherWithers() {
        assertThat(ListenOptions.defaults().decideOnDispatcher()).isFalse();
        ListenOptions on = ListenOptions.defaults().withDecisionOnDispatcher(true);
        assertThat(on.withBacklog(7).withKeepalive(null).withMaxPendingRequests(3).decideOnDispatcher()).isTrue();
        assertThat(on.withDecisionOnDispatcher(false)).isEqualTo(ListenOptions.defaults());
    }

    @Test
    void theHandlerRunsOnTheDispatcherAndItsAcceptCompletes() throws Exception {
        List<String> where = new CopyOnWriteArrayList<>();
        List<RdmaConnection> accepted = new CopyOnWriteArrayList<>();
        RdmaListener l = cm.listen(ANY, ListenOptions.defaults().withDecisionOnDispatcher(true), r -> {
            where.add(Thread.currentThread().getName());
            r.accept(ConnectionHandler.none()).thenAccept(accepted::add);
        });
        FakeId lid = port.ids().getFirst();
        for (int i = 0; i < 3; i++) {
            FakeId id = port.connectRequest(lid, REQUEST);
            port.wakeup();
            int n = i + 1;
            eventually("request " + n + " accepted", () -> accepted.size() == n);
            assertThat(port.names(id)).containsExactly("createQp", "accept");
        }
        assertThat(where).hasSize(3).allSatisfy(t -> assertThat(t).startsWith("rdmacm4j-dispatcher"));
        for (RdmaConnection c : accepted) {
            c.close().get(5, TimeUnit.SECONDS);
        }
        l.close().get(5, TimeUnit.SECONDS);
        assertThat(cm.statistics().callbackFailures()).isZero();
    }

    @Test
    void withoutTheOptionTheHandlerRunsOffTheDispatcher() throws Exception {
        List<String> where = new CopyOnWriteArrayList<>();
        RdmaListener l = cm.listen(ANY, ListenOptions.defaults(), r -> {
            where.add(Thread.currentThread().getName());
            r.reject();
        });
        FakeId id = port.connectRequest(port.ids().getFirst(), REQUEST);
        port.wakeup();
        port.awaitCallOn(id, "destroyId");
        assertThat(where).singleElement().asString().doesNotStartWith("rdmacm4j-dispatcher");
        l.close().get(5, TimeUnit.SECONDS);
    }

    @Test
    void aThrowingHandlerOnTheDispatcherRejectsThatRequestOnly() throws Exception {
        List<RdmaConnection> accepted = new CopyOnWriteArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        RdmaListener l = cm.listen(ANY, ListenOptions.defaults().withDecisionOnDispatcher(true), r -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("application bug in onRequest");
            }
            r.accept(ConnectionHandler.none()).thenAccept(accepted::add);
        });
        FakeId lid = port.ids().getFirst();
        FakeId r1 = port.connectRequest(lid, REQUEST);
        port.wakeup();
        port.awaitCallOn(r1, "destroyId");
        assertThat(port.names(r1)).containsExactly("reject", "destroyId");
        assertThat(cm.statistics().callbackFailures()).isEqualTo(1);

        FakeId r2 = port.connectRequest(lid, REQUEST);
        port.wakeup();
        eventually("second request accepted", () -> accepted.size() == 1);
        assertThat(port.names(r2)).containsExactly("createQp", "accept");
        assertThat(cm.isBroken()).isFalse();
        accepted.getFirst().close().get(5, TimeUnit.SECONDS);
        l.close().get(5, TimeUnit.SECONDS);
    }

    @Test
    void blockingCallsInsideTheHandlerAreRefusedAndTheRequestIsStillDecided() throws Exception {
        // An rdmacm4j future (done already: the refusal comes before any wait, so a bug here fails, not hangs).
        CompletableFuture<RdmaConnection> connected = cm.connect(SERVER, ConnectionHandler.none());
        RdmaConnection c = connected.get(5, TimeUnit.SECONDS);
        List<Throwable> refused = new CopyOnWriteArrayList<>();
        RdmaListener l = cm.listen(ANY, ListenOptions.defaults().withDecisionOnDispatcher(true), r -> {
            recordRefusals(refused, connected::join, () -> cm.listen(ANY, ListenOptions.defaults(), x -> { }),
                    cm::close);
            r.reject();
        });
        FakeId id = port.connectRequest(port.ids().getLast(), REQUEST);
        port.wakeup();
        port.awaitCallOn(id, "destroyId");
        assertThat(port.names(id)).containsExactly("reject", "destroyId");
        assertThat(refused).hasSize(3).allSatisfy(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deadlock"));
        assertThat(cm.isClosed()).isFalse();
        c.close().get(5, TimeUnit.SECONDS);
        l.close().get(5, TimeUnit.SECONDS);
    }

    @Test
    void thePullFormRefusesTheOptionBeforeAnyNativeCall() {
        assertThatThrownBy(() -> cm.listen(ANY, ListenOptions.defaults().withDecisionOnDispatcher(true)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("decideOnDispatcher needs a RequestHandler");
        assertThat(port.ids()).isEmpty();
    }
}
