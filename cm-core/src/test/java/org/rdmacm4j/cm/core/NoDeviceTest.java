package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * While no device is listed the port refuses new ids with rdma_create_id's ENODEV (DeviceLoss, before
 * any librdmacm call): connect, listen and openDatagram fail with DeviceRemovedException, other
 * errnos keep their old types, and the RdmaCm keeps working.
 */
class NoDeviceTest extends OverFakePort {
    private static final int ENODEV = 19;
    private static final int ENOMEM = 12;

    @Test
    void connectFailsWithDeviceRemoved() {
        port.failNext("createId", ENODEV);
        assertThatThrownBy(() -> cm.connect(SERVER, ConnectOptions.defaults(), ConnectionHandler.none())
                .get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(DeviceRemovedException.class).hasMessageContaining("rdma_create_id");
        assertThat(cm.statistics().connectsFailed()).containsKey("DeviceRemovedException");
    }

    @Test
    void listenAndDatagramThrowDeviceRemovedAndTheRdmaCmGoesOn() {
        port.failNext("createId", ENODEV);
        assertThatThrownBy(() -> cm.listen(ANY, ListenOptions.defaults()))
                .isInstanceOf(DeviceRemovedException.class).hasMessageContaining("cannot listen");
        port.failNext("createUdId", ENODEV);
        assertThatThrownBy(() -> cm.openDatagram(SERVER, DatagramOptions.defaults(), (ep, from, data) -> { }))
                .isInstanceOf(DeviceRemovedException.class);
        RdmaListener l = cm.listen(ANY, ListenOptions.defaults());
        assertThat(l.isClosed()).isFalse();
    }

    @Test
    void anotherErrnoIsNotADeviceLoss() {
        port.failNext("createId", ENOMEM);
        assertThatThrownBy(() -> cm.connect(SERVER, ConnectOptions.defaults(), ConnectionHandler.none())
                .get(5, TimeUnit.SECONDS))
                .cause().isInstanceOf(ConnectionFailedException.class).isNotInstanceOf(DeviceRemovedException.class);
        port.failNext("bind", ENODEV);
        assertThatThrownBy(() -> cm.listen(ANY, ListenOptions.defaults()))
                .as("a bind's ENODEV: the address is not on an RDMA device")
                .isInstanceOf(RdmaCmException.class).isNotInstanceOf(DeviceRemovedException.class);
    }
}
