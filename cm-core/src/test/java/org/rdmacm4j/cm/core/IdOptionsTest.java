package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.core.internal.Recorder;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.EventParams;

/** Type of service and ACK timeout reach the port on the right id, just before the step that reads them. */
class IdOptionsTest extends OverFakePort {
    @Test
    void activeSetsTosBeforeRouteResolutionAndAckTimeoutBeforeConnect() throws Exception {
        ConnectOptions o = ConnectOptions.builder().raw().typeOfService(96).ackTimeout(19).build();
        assertThat(o.typeOfService()).hasValue(96);
        assertThat(o.ackTimeout()).hasValue(19);

        RdmaConnection c = cm.connect(SERVER, o, new Recorder()).get(5, TimeUnit.SECONDS);

        FakeId id = port.ids().getFirst();
        assertThat(port.names(id)).containsExactly("createId", "resolveAddr", "createQp", "setTypeOfService",
                "resolveRoute", "setAckTimeout", "connect");
        assertThat(arg(id, "setTypeOfService")).isEqualTo(96);
        assertThat(arg(id, "setAckTimeout")).isEqualTo(19);
        c.close().get(5, TimeUnit.SECONDS);
    }

    @Test
    void unsetOptionsAreNeverSet() throws Exception {
        ConnectOptions o = ConnectOptions.defaults();
        assertThat(o.typeOfService()).isEmpty();
        assertThat(o.ackTimeout()).isEmpty();
        cm.connect(SERVER, o, new Recorder()).get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
        assertThat(port.count("setTypeOfService") + port.count("setAckTimeout")).isZero();
    }

    @Test
    void passiveSetsAckTimeoutBeforeAccept() throws Exception {
        List<RdmaConnection> accepted = new CopyOnWriteArrayList<>();
        RdmaListener l = cm.listen(ANY, ListenOptions.defaults(),
                r -> r.accept(ConnectionHandler.none(), AcceptOptions.defaults().raw().ackTimeout(14))
                        .thenAccept(accepted::add));
        FakeId lid = port.ids().getFirst();

        FakeId rid = port.connectRequest(lid, new EventParams.Conn(Bytes.of(new byte[56]), 1, 1, 0, 7, 7, false, 1));
        port.wakeup();

        eventually("accepted", () -> accepted.size() == 1);
        assertThat(port.names(rid)).containsExactly("createQp", "setAckTimeout", "accept");
        assertThat(arg(rid, "setAckTimeout")).isEqualTo(14);
        accepted.getFirst().close().get(5, TimeUnit.SECONDS);
        l.close().get(5, TimeUnit.SECONDS);
    }

    @Test
    void aFailedSetOptionFailsItsStepAndFreesTheIdWithoutConnecting() {
        port.failNext("setAckTimeout", 22);
        var f = cm.connect(SERVER, ConnectOptions.builder().ackTimeout(3).build(), new Recorder());

        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(ConnectionFailedException.class).hasMessageContaining("errno 22 EINVAL");
        FakeId id = port.ids().getFirst();
        eventually("id freed", () -> id.destroyed());
        assertThat(port.count("connect")).isZero();
    }

    @Test
    void outOfRangeValuesAreRefusedBeforeAnythingIsQueued() {
        assertThatThrownBy(() -> ConnectOptions.builder().typeOfService(256))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 255]");
        assertThatThrownBy(() -> ConnectOptions.builder().typeOfService(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("typeOfService");
        assertThatThrownBy(() -> ConnectOptions.builder().ackTimeout(32))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 31]");
        assertThatThrownBy(() -> AcceptOptions.defaults().ackTimeout(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ackTimeout");
        assertThat(port.calls()).isEmpty();
    }

    private Object arg(FakeId id, String name) {
        return port.calls().stream().filter(c -> c.id() == id && c.name().equals(name)).findFirst().orElseThrow().arg();
    }
}
