package org.rdmacm4j.it.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.Rdma;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmEventType;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.PortSpace;

/** rdma_resolve_addr through the bindings: ADDR_RESOLVED with status 0 on the rig's device. */
@SoftRoceTest
class AddrResolveIT {

    @org.junit.jupiter.api.AfterEach
    void nothingLeftOpen() {
        CmPair.assertNothingOpen();
    }
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void probeSaysAvailable() {
        assertThat(Rdma.unavailabilityCause()).isNull();
        assertThat(Rdma.isAvailable()).isTrue();
    }

    @Test
    void resolvesFromAnyAddress() throws Exception {
        resolve(null);
    }

    @Test
    void resolvesFromTheClientAddress() throws Exception {
        resolve(new InetSocketAddress(InetAddress.getByName(SoftRoce.CLIENT_ADDR), 0));
    }

    private static void resolve(InetSocketAddress source) throws Exception {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(SoftRoce.SERVER_ADDR), 7471);
        try (CmEventChannel channel = CmEventChannel.create()) {
            channel.setNonBlocking(true);
            assertThat(channel.isNonBlocking()).isTrue();
            assertThat(channel.getEvent()).as("non-blocking and empty").isNull();
            try (CmId id = channel.createId(PortSpace.TCP)) {
                assertThat(id.hasDevice()).isFalse();
                id.resolveAddress(source, server, Duration.ofSeconds(5));

                CmEvent event = channel.getEvent(WAIT);   // acked inside, in finally
                assertThat(event).as("an event within " + WAIT).isNotNull();
                assertThat(event.type()).isEqualTo(CmEventType.ADDR_RESOLVED);
                assertThat(event.status()).isZero();
                assertThat(event.id()).isSameAs(id);
                assertThat(event.listenId()).isNull();
                assertThat(event.typeName()).isEqualTo("RDMA_CM_EVENT_ADDR_RESOLVED");
                assertThat(id.deviceName()).isEqualTo(SoftRoce.DEVICE);
                assertThat(id.portNumber()).isEqualTo(1);
                assertThat(id.peerAddress()).isEqualTo(server);
                assertThat(id.destinationPort()).isEqualTo(7471);
                if (source != null) {
                    assertThat(id.localAddress().getAddress()).isEqualTo(source.getAddress());
                }
            }
            assertThat(channel.getEvent()).as("nothing left after destroy").isNull();
        }
    }
}
