package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.core.internal.FakeCmPort;
import org.rdmacm4j.cm.core.internal.Recorder;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.CmEventType;

/** Async events and device removal on a live connection; a dispatcher that dies. */
class EventsAndDeathTest {
    static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);

    final FakeCmPort port = new FakeCmPort();

    @Test
    void informationalAsyncEventReachesTheHandlerAndQpFatalTearsDown() throws Exception {
        try (RdmaCm cm = RdmaCm.builder().port(port).build()) {
            Recorder h = new Recorder();
            RdmaConnection c = cm.connect(SERVER, h).get(5, TimeUnit.SECONDS);
            FakeId id = port.ids().getFirst();

            port.asyncEvent(id, AsyncEventType.PATH_MIG, 1);
            port.wakeup();
            h.await("async:PATH_MIG");
            assertThat(c.isClosed()).isFalse();

            port.autoDisconnect = false;   // the QP is dead: no waiting for the peer's answer
            port.asyncEvent(id, AsyncEventType.QP_FATAL, 1);
            port.wakeup();
            assertThat(c.closeFuture()).succeedsWithin(Duration.ofSeconds(5));
            h.await("closed");
            assertThat(h.events()).containsExactly("established", "async:PATH_MIG", "error", "closed");
            assertThat(h.lastError).isInstanceOf(ConnectionFailedException.class).hasMessageContaining("QP_FATAL");
            assertThat(port.names(id)).endsWith("disconnect", "drainQp", "quiesceCq", "quiesced", "destroyQp",
                    "destroyCq", "destroyCompChannel", "destroyId");
            assertThat(cm.statistics().asyncEvents()).isEqualTo(2);
            assertThat(port.violations()).isEmpty();
        }
    }

    @Test
    void deviceRemovalSkipsDisconnectAndFlushButStillQuiescesFirst() throws Exception {
        try (RdmaCm cm = RdmaCm.builder().port(port).build()) {
            Recorder h = new Recorder();
            RdmaConnection c = cm.connect(SERVER, h).get(5, TimeUnit.SECONDS);
            FakeId id = port.ids().getFirst();
            int before = port.names(id).size();

            port.cmEvent(id, CmEventType.DEVICE_REMOVAL);
            port.wakeup();

            assertThat(c.closeFuture()).succeedsWithin(Duration.ofSeconds(5));
            h.await("closed");
            assertThat(h.lastError).isInstanceOf(DeviceRemovedException.class);
            assertThat(port.names(id).subList(before, port.names(id).size())).containsExactly("quiesceCq", "quiesced",
                    "destroyQp", "destroyCq", "destroyCompChannel", "destroyId");
            assertThat(port.violations()).isEmpty();
        }
    }

    @Test
    void addrChangeOnAListenerReachesItsRequestHandlerAndTheListenerListensAgain() throws Exception {
        listenerEventReachesItsHandlerAndTheListenerListensAgain(CmEventType.ADDR_CHANGE, "address changed");
    }

    @Test
    void deviceRemovalOnAListenerReachesItsRequestHandlerAndTheListenerListensAgain() throws Exception {
        listenerEventReachesItsHandlerAndTheListenerListensAgain(CmEventType.DEVICE_REMOVAL, "device removed");
    }

    private void listenerEventReachesItsHandlerAndTheListenerListensAgain(CmEventType event, String expected)
            throws Exception {
        try (RdmaCm cm = RdmaCm.builder().port(port).build()) {
            var heard = new CompletableFuture<String>();
            var self = new CompletableFuture<RdmaListener>();
            RdmaListener l = cm.listen(SERVER, ListenOptions.defaults(), new RequestHandler() {
                @Override
                public void onRequest(ConnectionRequest r) {
                    r.reject();
                }

                @Override
                public void onAddressChanged(RdmaListener listener) {
                    self.complete(listener);
                    heard.complete("address changed");
                }

                @Override
                public void onDeviceRemoved(RdmaListener listener) {
                    self.complete(listener);
                    heard.complete("device removed");
                }
            });
            FakeId id = port.ids().getFirst();
            int listens = port.count("listen");

            port.cmEvent(id, event);
            port.wakeup();

            assertThat(heard).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(expected);
            assertThat(self.get()).isSameAs(l);
            // the policy (relisten on both, by default): a fresh id, bound and listening again
            eventually("re-listened", () -> port.count("listen") == listens + 1);
            assertThat(id.destroyed()).isTrue();
            assertThat(l.isClosed()).isFalse();
            assertThat(l.history().toString()).contains(event.name());
            assertThat(port.violations()).isEmpty();
        }
    }

    @Test
    void aDeadDispatcherFailsEveryPendingFutureAndReportsItselfBroken() throws Exception {
        RdmaCm cm = RdmaCm.builder().port(port).closeTimeout(Duration.ofSeconds(2)).build();
        RdmaConnection live = cm.connect(SERVER, new Recorder()).get(5, TimeUnit.SECONDS);
        port.autoResolve = false;
        CompletableFuture<RdmaConnection> pending = cm.connect(SERVER, new Recorder());
        port.awaitCall("resolveAddr", 2);

        port.drainFailure = new IllegalStateException("a bug outside any one id");
        port.wakeup();

        assertThat(pending).failsWithin(Duration.ofSeconds(5)).withThrowableThat().havingCause()
                .isInstanceOf(ConnectionFailedException.class).withMessageContaining("dispatcher died");
        eventually("broken", cm::isBroken);
        assertThat(live.closeFuture()).succeedsWithin(Duration.ofSeconds(5));
        // Nothing hangs: new work fails at once, the port was closed, every id given up.
        assertThat(cm.connect(SERVER, new Recorder())).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
                .havingCause().isInstanceOf(ConnectionFailedException.class);
        assertThatThrownBy(() -> cm.listen(SERVER, ListenOptions.defaults())).isInstanceOf(RdmaCmException.class);
        eventually("port closed", port::isClosed);
        assertThat(port.liveIds()).isEmpty();   // every id given up (leaked) before the port closed
        assertThat(port.count("leak")).isEqualTo(2);
        assertThat(cm.statistics().liveIds()).isZero();
        long t0 = System.nanoTime();
        cm.close();
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(3));
    }
}
