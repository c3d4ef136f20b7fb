package org.rdmacm4j.it.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmEventType;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.PortSpace;
import org.rdmacm4j.verbs.cm.RejectReason;
import org.rdmacm4j.verbs.ibv.AsyncEventType;

/**
 * The rest of the rdma_cm id surface on real RDMA: the three port spaces, options, migrate_id,
 * multicast join/leave, notify's errno, and the error events (no listener, no neighbour).
 */
@SoftRoceTest
class CmIdOperationsIT {

    @org.junit.jupiter.api.AfterEach
    void nothingLeftOpen() {
        CmPair.assertNothingOpen();
    }

    @Test
    void everyPortSpaceAndOption() throws Exception {
        try (CmEventChannel ch = CmPair.channel()) {
            for (PortSpace ps : PortSpace.values()) {
                try (CmId id = ch.createId(ps)) {
                    assertThat(id.portSpace()).isEqualTo(ps);
                    assertThat(id.localAddress()).isNull();
                }
            }
            try (CmId id = ch.createId(PortSpace.TCP)) {
                id.setReuseAddress(true);
                id.setAfOnly(false);
                id.setTypeOfService(16);
                id.setAckTimeout(14);
                assertThatThrownBy(() -> id.setAckTimeout(32)).isInstanceOf(IllegalArgumentException.class);
                id.bind(CmPair.server(0));
                assertThat(id.hasDevice()).isTrue();
                assertThat(id.sourcePort()).isPositive();
                assertThatThrownBy(() -> id.notify(AsyncEventType.COMM_EST))
                        .as("rdma_notify on an id that is not connecting")
                        .isInstanceOfSatisfying(RdmaException.class, e -> {
                            assertThat(e.function()).isEqualTo("rdma_notify");
                            assertThat(e.errno()).isPositive();
                        });
            }
        }
    }

    @Test
    void migrateMovesTheEventsAndTheOwnership() throws Exception {
        try (CmEventChannel a = CmPair.channel(); CmEventChannel b = CmPair.channel()) {
            CmId id = a.createId(PortSpace.TCP);
            try {
                assertThatThrownBy(a::close).hasMessageContaining("CmId");
                id.migrate(b);
                assertThat(id.channel()).isSameAs(b);
                id.resolveAddress(CmPair.client(), CmPair.server(7471), Duration.ofSeconds(10));
                CmEvent e = CmPair.expect(b, CmEventType.ADDR_RESOLVED);
                assertThat(e.id()).isSameAs(id);
                assertThat(a.getEvent()).isNull();
                assertThatThrownBy(b::close).hasMessageContaining("CmId");
            } finally {
                id.close();
            }
        }
    }

    @Test
    void multicastJoinAndLeave() throws Exception {
        InetSocketAddress group = CmPair.address("239.1.2.3", 0);
        try (CmEventChannel ch = CmPair.channel(); CmId id = ch.createId(PortSpace.UDP)) {
            id.bind(CmPair.server(0));
            id.joinMulticast(group);
            CmEvent joined = CmPair.expect(ch, CmEventType.MULTICAST_JOIN);
            assertThat(joined.status()).isZero();
            assertThat(joined.ud()).isNotNull();
            assertThat(joined.ud().qpNum()).isEqualTo(0xFFFFFF);
            id.leaveMulticast(group);
        }
    }

    @Test
    void connectingToAPortWithoutListenerIsRejected() throws Exception {
        try (CmEventChannel ch = CmPair.channel(); CmId id = ch.createId(PortSpace.TCP)) {
            CmPair.resolve(ch, id, CmPair.server(1));
            assertThatThrownBy(() -> id.connect(ConnParam.defaults().withPrivateData(new byte[57])))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 56");
            id.connect(ConnParam.defaults());
            CmEvent e = CmPair.expect(ch, CmEventType.REJECTED);
            assertThat(e.status()).isEqualTo(RejectReason.INVALID_SERVICE_ID);
            assertThat(e.rejectMessage()).isEqualTo("invalid service ID");
        }
    }

    @Test
    void resolvingAnAddressWithoutNeighbourIsAnAddrErrorWithStatus() throws Exception {
        try (CmEventChannel ch = CmPair.channel(); CmId id = ch.createId(PortSpace.TCP)) {
            id.resolveAddress(CmPair.client(), CmPair.address("192.0.2.77", 7471), Duration.ofMillis(2000));
            CmEvent e = CmPair.expect(ch, CmEventType.ADDR_ERROR);
            assertThat(e.status()).as("a negative errno").isNegative();
            System.out.println("CmIdOperationsIT: ADDR_ERROR status " + e.status());
        }
    }
}
