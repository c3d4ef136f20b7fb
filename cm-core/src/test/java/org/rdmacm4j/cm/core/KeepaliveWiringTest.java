package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.cm.core.internal.Recorder.bytes;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;
import static org.rdmacm4j.cm.core.internal.Recorder.framedPadded;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.core.internal.FakeCmPort;
import org.rdmacm4j.cm.core.internal.Recorder;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;

/**
 * The keepalive's options and wiring: checked before anything is queued, started only once
 * established (active and passive), and its verdict fails the connection with a
 * {@link PeerUnresponsiveException} and tears it down. The probing itself is in
 * {@code internal.KeepaliveTest} (host) and {@code KeepaliveIT} (guest).
 */
class KeepaliveWiringTest extends OverFakePort {
    @Test
    void badOptionsFailInTheCallersThread() {
        assertThatThrownBy(() -> new KeepaliveOptions(Duration.ofMillis(9), 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("period");
        assertThatThrownBy(() -> new KeepaliveOptions(Duration.ofHours(2), 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("period");
        assertThatThrownBy(() -> new KeepaliveOptions(Duration.ofMillis(-100), 3))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new KeepaliveOptions(null, 3)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new KeepaliveOptions(Duration.ofSeconds(1), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("misses");
        assertThatThrownBy(() -> new KeepaliveOptions(Duration.ofSeconds(1), 1001))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("misses");
        assertThatThrownBy(() -> ConnectOptions.builder().keepalive(Duration.ZERO, 3))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ListenOptions.defaults().withKeepalive(Duration.ofSeconds(1), -1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(port.names()).isEmpty();
        assertThat(new KeepaliveOptions(Duration.ofMillis(200), 4).worstDetection()).as("5 periods, then the grace")
                .isEqualTo(Duration.ofSeconds(1).plus(FakeCmPort.FLUSH_GRACE));
        assertThat(ConnectOptions.defaults().keepalive()).as("off by default").isNull();
        assertThat(ListenOptions.defaults().keepalive()).as("off by default").isNull();
    }

    @Test
    void offByDefaultStartedOnlyOnceEstablished() throws Exception {
        cm.connect(SERVER, ConnectionHandler.none()).get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
        assertThat(port.count("startKeepalive")).isZero();

        KeepaliveOptions k = new KeepaliveOptions(Duration.ofMillis(100), 3);
        RdmaConnection c = cm.connect(SERVER, ConnectOptions.builder().keepalive(k).build(), ConnectionHandler.none())
                .get(5, TimeUnit.SECONDS);
        FakeId id = port.ids().getLast();
        assertThat(port.names(id)).containsSubsequence("createQp", "connect", "startKeepalive");
        FakeCmPort.Call start = port.calls().stream().filter(x -> x.name().equals("startKeepalive")).findFirst()
                .orElseThrow();
        assertThat(start.arg()).isEqualTo(k);
        assertThat(start.thread()).as("decided by the dispatcher; ticking is the poller's").contains("dispatcher");
        c.close().get(5, TimeUnit.SECONDS);
        assertThat(port.count("startKeepalive")).isEqualTo(1);
    }

    @Test
    void theListenersKeepaliveIsStartedOnEveryAcceptedConnection() throws Exception {
        List<RdmaConnection> accepted = new CopyOnWriteArrayList<>();
        KeepaliveOptions k = new KeepaliveOptions(Duration.ofSeconds(1), 2);
        RdmaListener l = cm.listen(ANY, ListenOptions.defaults().withKeepalive(k),
                r -> r.accept(ConnectionHandler.none()).thenAccept(accepted::add));
        FakeId lid = port.ids().getFirst();
        EventParams.Conn req = new EventParams.Conn(framedPadded(MessageKind.CONNECT_REQUEST, bytes(4, 1)), 1, 1, 0,
                7, 7, false, 1);
        FakeId r1 = port.connectRequest(lid, req);
        port.wakeup();
        eventually("accepted", () -> accepted.size() == 1);
        port.awaitCallOn(r1, "startKeepalive");
        assertThat(port.names(r1)).containsSubsequence("createQp", "accept", "startKeepalive");
        accepted.getFirst().close().get(5, TimeUnit.SECONDS);
        l.close().get(5, TimeUnit.SECONDS);
    }

    @Test
    void theVerdictFailsTheConnectionTypedAndTearsItDown() throws Exception {
        Recorder h = new Recorder();
        RdmaConnection c = cm.connect(SERVER, ConnectOptions.builder().keepalive(Duration.ofMillis(100), 3).build(), h)
                .get(5, TimeUnit.SECONDS);
        FakeId id = port.ids().getFirst();
        port.awaitCallOn(id, "startKeepalive");
        port.autoDisconnect = false;   // the peer is dead: nobody answers the disconnect

        port.keepaliveGivesUp(id);
        port.keepaliveGivesUp(id);   // a second notice of the same death (a failed completion, say) is not news

        assertThat(c.closeFuture()).succeedsWithin(Duration.ofSeconds(10));
        h.await("closed");
        assertThat(h.events()).containsExactly("established", "error", "closed");
        assertThat(h.lastError).isInstanceOf(PeerUnresponsiveException.class)
                .hasMessageContaining("keepalive probe");
        assertThat(((PeerUnresponsiveException) h.lastError).completionStatus()).isNull();
        assertThat(port.names(id)).containsSubsequence("startKeepalive", "drainQp", "quiesceCq", "quiesced",
                "destroyQp", "destroyCq", "destroyCompChannel", "destroyId");
        // A new connection works afterwards.
        cm.connect(SERVER, ConnectionHandler.none()).get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
    }
}
