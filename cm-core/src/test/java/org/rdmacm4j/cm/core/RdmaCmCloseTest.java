package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.core.internal.FakeCmPort;
import org.rdmacm4j.cm.core.internal.Recorder;

/** RdmaCm.close() with live connections, listeners and pending connects. */
class RdmaCmCloseTest {
    static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);
    static final InetSocketAddress ANY = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    void closeFreesEveryIdWithinItsTimeoutAndIsIdempotent() throws Exception {
        FakeCmPort port = new FakeCmPort();
        RdmaCm cm = RdmaCm.builder().port(port).closeTimeout(Duration.ofSeconds(5)).build();
        List<RdmaConnection> conns = new ArrayList<>();
        List<Recorder> handlers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Recorder h = new Recorder();
            handlers.add(h);
            conns.add(cm.connect(SERVER, h).get(5, TimeUnit.SECONDS));
        }
        RdmaListener l = cm.listen(ANY, ListenOptions.defaults());
        CompletableFuture<ConnectionRequest> next = l.next();
        port.autoResolve = false;
        CompletableFuture<RdmaConnection> pending = cm.connect(SERVER, new Recorder());
        port.awaitCall("resolveAddr", 4);
        assertThat(cm.statistics().liveIds()).isEqualTo(5);

        long t0 = System.nanoTime();
        cm.close();
        long took = System.nanoTime() - t0;

        assertThat(took).isLessThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(port.isClosed()).isTrue();
        assertThat(port.ids()).hasSize(5).allSatisfy(id -> assertThat(id.destroyed()).as("%s destroyed", id).isTrue());
        assertThat(port.count("leak")).isZero();
        assertThat(port.violations()).isEmpty();
        for (int i = 0; i < 3; i++) {
            assertThat(conns.get(i).isClosed()).isTrue();
            handlers.get(i).await("closed");
            // Graceful: each connection disconnected, flushed and quiesced before its QP and CQ went.
            FakeId id = port.ids().get(i);
            assertThat(port.names(id)).containsSubsequence("disconnect", "drainQp", "quiesceCq", "quiesced",
                    "destroyQp", "destroyCq", "destroyCompChannel", "destroyId");
        }
        assertThat(l.isClosed()).isTrue();
        assertThat(next).failsWithin(Duration.ofSeconds(5));
        assertThat(pending).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
                .havingCause().isInstanceOf(RdmaCmException.class);
        assertThat(cm.statistics().liveIds()).isZero();
        assertThat(cm.isClosed()).isTrue();

        int calls = port.calls().size();
        long t1 = System.nanoTime();
        cm.close();
        assertThat(System.nanoTime() - t1).isLessThan(TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(port.calls()).hasSize(calls);
        assertThatThrownBy(() -> cm.connect(SERVER, ConnectionHandler.none()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(cm.toString().replace(" [closed]", ""));
        assertThatThrownBy(() -> cm.listen(ANY, ListenOptions.defaults())).isInstanceOf(IllegalStateException.class);
        // Objects of a closed RdmaCm: close is done at once, next() fails.
        assertThat(conns.getFirst().close()).succeedsWithin(Duration.ofSeconds(1));
        assertThat(l.close()).succeedsWithin(Duration.ofSeconds(1));
        assertThat(l.next()).failsWithin(Duration.ofSeconds(1));
        assertThat(port.calls()).hasSize(calls);
    }

    @Test
    void closeWithAStuckPollerLeaksAfterItsDeadlineInsteadOfHanging() throws Exception {
        FakeCmPort port = new FakeCmPort();
        RdmaCm cm = RdmaCm.builder().port(port).closeTimeout(Duration.ofMillis(300)).gracefulClose(false).build();
        List<RdmaConnection> conns = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            conns.add(cm.connect(SERVER, new Recorder()).get(5, TimeUnit.SECONDS));
        }
        port.holdQuiesce = true;   // the poller never answers (the quiesce deadline is 1 s, past the close timeout)

        long t0 = System.nanoTime();
        cm.close();
        long took = System.nanoTime() - t0;

        assertThat(took).isLessThan(TimeUnit.SECONDS.toNanos(3));
        assertThat(port.isClosed()).isTrue();
        assertThat(port.heldQuiesceCount()).isEqualTo(2);
        for (FakeId id : port.ids()) {
            assertThat(id.leaked()).as("%s leaked", id).isTrue();
            assertThat(port.names(id)).contains("leak").doesNotContain("destroyQp", "destroyCq");
        }
        for (RdmaConnection c : conns) {
            assertThat(c.closeFuture()).succeedsWithin(Duration.ofSeconds(5));
        }
        assertThat(cm.statistics().liveIds()).isZero();
        assertThat(port.violations()).isEmpty();
        port.releaseQuiesces();   // a late answer after close is harmless
    }
}
