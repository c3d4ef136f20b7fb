package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.cm.core.internal.Recorder.bytes;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;
import static org.rdmacm4j.cm.core.internal.Recorder.framedPadded;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.core.internal.Recorder;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;

/** Throwing callbacks never stop the dispatcher; blocking on a future from the dispatcher is refused. */
class CallbackAndBlockingTest extends OverFakePort {
    static final class Throwing extends Recorder {
        @Override
        public void onEstablished(RdmaConnection c) {
            super.onEstablished(c);
            throw new IllegalStateException("application bug in onEstablished");
        }

        @Override
        public void onClosed(RdmaConnection c) {
            super.onClosed(c);
            throw new Error("application bug in onClosed");
        }
    }

    @Test
    void throwingConnectionHandlerIsCountedAndIgnored() throws Exception {
        Throwing bad = new Throwing();
        RdmaConnection c1 = cm.connect(SERVER, bad).get(5, TimeUnit.SECONDS);
        bad.await("established");
        c1.close().get(5, TimeUnit.SECONDS);
        bad.await("closed");
        eventually("two callback failures", () -> cm.statistics().callbackFailures() == 2);

        // The dispatcher and the connection's callback queue keep going.
        Recorder good = new Recorder();
        RdmaConnection c2 = cm.connect(SERVER, good).get(5, TimeUnit.SECONDS);
        good.await("established");
        c2.close().get(5, TimeUnit.SECONDS);
        good.await("closed");
        assertThat(good.events()).containsExactly("established", "closed");
        assertThat(cm.statistics().connectsSucceeded()).isEqualTo(2);
        assertThat(cm.statistics().callbackFailures()).isEqualTo(2);
        assertThat(cm.isBroken()).isFalse();
        assertThat(cm.statistics().liveIds()).isZero();
    }

    @Test
    void throwingRequestHandlerRejectsThatRequestOnly() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        List<RdmaConnection> accepted = new CopyOnWriteArrayList<>();
        RdmaListener l = cm.listen(ANY, ListenOptions.defaults(), r -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("application bug in onRequest");
            }
            r.accept(ConnectionHandler.none()).thenAccept(accepted::add);
        });
        FakeId lid = port.ids().getFirst();
        EventParams.Conn req = new EventParams.Conn(framedPadded(MessageKind.CONNECT_REQUEST, bytes(4, 1)), 1, 1, 0,
                7, 7, false, 1);

        FakeId r1 = port.connectRequest(lid, req);
        port.wakeup();
        port.awaitCallOn(r1, "destroyId");
        assertThat(port.names(r1)).containsExactly("reject", "destroyId");
        eventually("counted", () -> cm.statistics().callbackFailures() == 1);

        FakeId r2 = port.connectRequest(lid, req);
        port.wakeup();
        eventually("second request accepted", () -> accepted.size() == 1);
        assertThat(port.names(r2)).containsExactly("createQp", "accept");
        // An active connect on the same RdmaCm still works.
        cm.connect(SERVER, ConnectionHandler.none()).get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
        l.close().get(5, TimeUnit.SECONDS);
        assertThat(cm.statistics().callbackFailures()).isEqualTo(1);
    }

    @Test
    void blockingOnAFutureFromTheDispatcherIsRefusedAndAllowedElsewhere() throws Exception {
        CompletableFuture<RdmaConnection> f1 = cm.connect(SERVER, ConnectionHandler.none());
        RdmaConnection c1 = f1.join();   // a user thread may block
        assertThat(f1.get()).isSameAs(c1);

        List<Throwable> refused = new CopyOnWriteArrayList<>();
        List<String> where = new CopyOnWriteArrayList<>();
        port.onCall("resolveAddr", id -> {
            where.add(Thread.currentThread().getName());
            recordRefusals(refused, f1::join, () -> uncheckedGet(f1, false), () -> uncheckedGet(f1, true),
                    () -> cm.listen(ANY, ListenOptions.defaults(), x -> { }), cm::close);
        });
        Recorder h = new Recorder();
        CompletableFuture<RdmaConnection> joinedInCallback = new CompletableFuture<>();
        RdmaConnection c2 = cm.connect(SERVER, new Recorder() {
            @Override
            public void onEstablished(RdmaConnection c) {
                joinedInCallback.complete(f1.join());   // a callback thread may block (on another future)
                h.onEstablished(c);
            }
        }).get(5, TimeUnit.SECONDS);
        port.onCall("resolveAddr", null);

        assertThat(where).singleElement().asString().startsWith("rdmacm4j-dispatcher");
        assertThat(refused).hasSize(5).allSatisfy(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deadlock"));
        assertThat(refused.get(0)).hasMessageContaining("join()");
        assertThat(joinedInCallback).succeedsWithin(Duration.ofSeconds(5)).isSameAs(c1);
        // The refused close() from the dispatcher must not have half-closed the RdmaCm.
        assertThat(cm.isClosed()).isFalse();
        cm.connect(SERVER, ConnectionHandler.none()).get(5, TimeUnit.SECONDS);
        c1.close().get(5, TimeUnit.SECONDS);
        c2.close().get(5, TimeUnit.SECONDS);
        cm.close();
        assertThat(port.isClosed()).isTrue();
        assertThat(cm.statistics().liveIds()).isZero();
    }

    private static void uncheckedGet(CompletableFuture<?> f, boolean timed) {
        try {
            if (timed) {
                f.get(1, TimeUnit.SECONDS);
            } else {
                f.get();
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
