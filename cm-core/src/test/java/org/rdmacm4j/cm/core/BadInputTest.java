package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.Deadlines;
import org.rdmacm4j.cm.statemachine.RetryPolicy;

/** Every API method's bad input fails in the caller's thread before the port sees anything. */
class BadInputTest {
    static final InetAddress LO = InetAddress.getLoopbackAddress();
    static final InetSocketAddress SERVER = new InetSocketAddress(LO, 7471);

    final FakeCmPort port = new FakeCmPort();
    final RdmaCm cm = RdmaCm.builder().port(port).build();

    @AfterEach
    void noPortCall() {
        try {
            assertThat(port.names()).as("no port call for bad input").allMatch("close"::equals);
        } finally {
            cm.close();
        }
    }

    @Test
    void connectAddress() {
        ConnectionHandler h = ConnectionHandler.none();
        assertThatThrownBy(() -> cm.connect(null, h)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("destination");
        assertThatThrownBy(() -> cm.connect(InetSocketAddress.createUnresolved("server.example", 7471), h))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unresolved");
        assertThatThrownBy(() -> cm.connect(new InetSocketAddress(LO, 0), h))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port 0");
        // A port out of range cannot even be expressed: InetSocketAddress refuses it.
        assertThatThrownBy(() -> cm.connect(new InetSocketAddress(LO, 65536), h))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("out of range");
        assertThatThrownBy(() -> cm.connect(new InetSocketAddress(LO, -1), h))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cm.connect(SERVER, null, h)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("options");
        assertThatThrownBy(() -> cm.connect(SERVER, ConnectOptions.defaults(), null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("handler");
    }

    @Test
    void listenAddress() {
        RequestHandler r = req -> { };
        assertThatThrownBy(() -> cm.listen(null, ListenOptions.defaults(), r))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("address");
        assertThatThrownBy(() -> cm.listen(InetSocketAddress.createUnresolved("server.example", 1),
                ListenOptions.defaults(), r)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unresolved");
        assertThatThrownBy(() -> cm.listen(SERVER, null, r)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> cm.listen(SERVER, ListenOptions.defaults(), null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> cm.listen(InetSocketAddress.createUnresolved("x", 1), ListenOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void privateDataLimitsAreNamed() {
        assertThatThrownBy(() -> ConnectOptions.builder().privateData(new byte[55]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("54").hasMessageContaining("55");
        assertThatCode(() -> ConnectOptions.builder().privateData(new byte[54])).doesNotThrowAnyException();
        assertThatThrownBy(() -> ConnectOptions.builder().rawPrivateData(new byte[57]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("56");
        assertThatThrownBy(() -> ConnectOptions.builder().privateData(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> ConnectOptions.builder().privateData(new byte[48]).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("47");
        assertThatCode(() -> ConnectOptions.builder().privateData(new byte[47]).build()).doesNotThrowAnyException();
        assertThatCode(() -> ConnectOptions.builder().privateData(new byte[54]).raw().build())
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> AcceptOptions.defaults().raw().privateData(new byte[195]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("194");
        assertThatCode(() -> AcceptOptions.defaults().raw().privateData(new byte[194])).doesNotThrowAnyException();
        assertThatThrownBy(() -> AcceptOptions.withPrivateData(new byte[188]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("187");
        assertThatThrownBy(() -> AcceptOptions.defaults().rawPrivateData(new byte[197]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("196");
        // (A reject's 146-byte limit is checked on a real request: DispatcherClockTest.)
    }

    @Test
    void sizesAndDurations() {
        assertThatThrownBy(() -> new QpCapabilities(0, 64, 1, 1, 0, 128)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxSendWr");
        assertThatThrownBy(() -> new QpCapabilities(64, -1, 1, 1, 0, 128)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxRecvWr");
        assertThatThrownBy(() -> new QpCapabilities(64, 64, 0, 1, 0, 128)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxSendSge");
        assertThatThrownBy(() -> new QpCapabilities(64, 64, 1, 0, 0, 128)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxRecvSge");
        assertThatThrownBy(() -> new QpCapabilities(64, 64, 1, 1, -1, 128)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxInlineData");
        assertThatThrownBy(() -> new QpCapabilities(64, 64, 1, 1, 0, 127)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cqSize");
        assertThatThrownBy(() -> new QpCapabilities(64, 64, 1, 1, 0, -5)).isInstanceOf(IllegalArgumentException.class);
        QpCapabilities q = QpCapabilities.defaults();
        assertThat(q.oneSidedDepth()).isEqualTo(QpCapabilities.DEFAULT_ONE_SIDED_DEPTH).isEqualTo(16);
        assertThat(q.withOneSidedDepth(64).oneSidedDepth()).isEqualTo(64);
        assertThat(q.withOneSidedDepth(64).maxSendWr()).isEqualTo(q.maxSendWr());
        assertThat(q.withOneSidedDepth(QpCapabilities.MAX_ONE_SIDED_DEPTH).oneSidedDepth()).isEqualTo(4096);
        assertThatThrownBy(() -> q.withOneSidedDepth(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("oneSidedDepth");
        assertThatThrownBy(() -> q.withOneSidedDepth(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("oneSidedDepth");
        assertThatThrownBy(() -> q.withOneSidedDepth(4097)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("oneSidedDepth");

        ListenOptions d = ListenOptions.defaults();
        assertThatThrownBy(() -> d.withBacklog(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("backlog");
        assertThatThrownBy(() -> d.withBacklog(-3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withMaxPendingRequests(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxPendingRequests");
        assertThatThrownBy(() -> d.withDecisionTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("decisionTimeout");
        assertThatThrownBy(() -> d.withDecisionTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withAcceptTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acceptTimeout");
        assertThatThrownBy(() -> d.withTuning(null)).isInstanceOf(NullPointerException.class);

        assertThatThrownBy(() -> ConnectOptions.builder().timeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connect");
        assertThatThrownBy(() -> ConnectOptions.builder().timeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ConnectOptions.builder().source(InetSocketAddress.createUnresolved("x", 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unresolved");
        assertThatThrownBy(() -> new CmTuning(256, 1, 7, 7)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CmTuning(1, -1, 7, 7)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryPolicy(-1, Duration.ZERO, Duration.ZERO, 1, false, false, false, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Deadlines(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void builder() {
        assertThatThrownBy(() -> RdmaCm.builder().pollerThreads(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaCm.builder().pollerThreads(65)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaCm.builder().closeTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaCm.builder().closeTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaCm.builder().historySize(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaCm.builder().callbackExecutor(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RdmaCm.builder().spareCqIdle(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spareCqIdle");
        assertThatThrownBy(() -> RdmaCm.builder().spareCqIdle(Duration.ofHours(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spareCqIdle");
        assertThatThrownBy(() -> RdmaCm.builder().spareCqIdle(null)).isInstanceOf(NullPointerException.class);
        assertThat(RdmaCm.builder().spareCqIdle(Duration.ZERO)).as("zero: the surplus goes at the next turn").isNotNull();
    }

    @Test
    void useAfterCloseNamesTheRdmaCm() {
        cm.close();
        int before = port.calls().size();
        assertThat(port.names()).containsExactly("close");   // close() stopped the dispatcher and closed the port
        assertThat(cm.isClosed()).isTrue();
        String name = cm.toString().replace(" [closed]", "");
        assertThatThrownBy(() -> cm.connect(SERVER, ConnectionHandler.none()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(name).hasMessageContaining("closed");
        assertThatThrownBy(() -> cm.listen(SERVER, ListenOptions.defaults(), r -> { }))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(name);
        assertThatThrownBy(() -> cm.listen(SERVER, ListenOptions.defaults()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(name);
        // Bad input after close: still refused in the caller's thread.
        assertThatThrownBy(() -> cm.connect(null, ConnectionHandler.none())).isInstanceOf(RuntimeException.class);
        assertThat(port.calls()).hasSize(before);
        cm.close();   // a second close is a no-op
        assertThat(port.calls()).hasSize(before);
    }
}
