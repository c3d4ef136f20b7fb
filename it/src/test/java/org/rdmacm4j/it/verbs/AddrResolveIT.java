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
import org.rdmacm4j.verbs.sys.Epoll;

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

    /**
     * getReadyEvent, the read made right after epoll reported the channel readable (no errno
     * capture first): on an empty channel its plain call fails and the capturing second call finds
     * EAGAIN (null, as getEvent); after epoll's report it returns the event; the channel is empty after.
     */
    @Test
    void readyEventAfterEpollsReportAndNullOnAnEmptyChannel() throws Exception {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(SoftRoce.SERVER_ADDR), 7471);
        try (CmEventChannel channel = CmEventChannel.create(); Epoll epoll = Epoll.create(4)) {
            channel.setNonBlocking(true);
            assertThat(channel.getReadyEvent()).as("empty: the plain call fails, the capturing one says EAGAIN").isNull();
            epoll.add(channel.fd(), 7L);
            try (CmId id = channel.createId(PortSpace.TCP)) {
                id.resolveAddress(null, server, Duration.ofSeconds(5));
                assertThat(epoll.await(WAIT.toMillis())).as("the channel reported readable within " + WAIT).isEqualTo(1);
                assertThat(epoll.token(0)).isEqualTo(7L);
                CmEvent event = channel.getReadyEvent();   // acked inside
                assertThat(event).isNotNull();
                assertThat(event.type()).isEqualTo(CmEventType.ADDR_RESOLVED);
                assertThat(event.status()).isZero();
                assertThat(event.id()).isSameAs(id);
                assertThat(channel.getReadyEvent()).as("read once: nothing left").isNull();
                assertThat(epoll.await(0)).as("level-triggered: not readable once read").isZero();
            }
        }
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
