package org.rdmacm4j.it.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.cm.CmDevices;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.CompletionChannel;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.DeviceAttributes;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.ibv.Gid;
import org.rdmacm4j.verbs.ibv.MemoryRegion;
import org.rdmacm4j.verbs.ibv.PortAttributes;
import org.rdmacm4j.verbs.ibv.PortState;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QpAttrMask;
import org.rdmacm4j.verbs.ibv.QpAttributes;
import org.rdmacm4j.verbs.ibv.QpInitAttributes;
import org.rdmacm4j.verbs.ibv.QpState;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.ibv.WorkCompletions;

/**
 * libibverbs without rdma_cm: open rxe0, query it, PD, MR, CQ with a completion channel, a QP
 * moved RESET -> INIT by hand; and the ownership rules on real objects.
 */
@SoftRoceTest
class DeviceResourcesIT {

    @org.junit.jupiter.api.AfterEach
    void nothingLeftOpen() {
        CmPair.assertNothingOpen();
    }

    @Test
    void openQueryAndBuildResourcesOnRxe() throws Exception {
        assertThat(DeviceContext.deviceNames()).contains(SoftRoce.DEVICE);
        try (CmPair.Closer c = new CmPair.Closer()) {
            DeviceContext ctx = c.add(DeviceContext.open(SoftRoce.DEVICE));
            assertThat(ctx.deviceName()).isEqualTo(SoftRoce.DEVICE);
            assertThat(ctx.isBorrowed()).isFalse();
            DeviceAttributes dev = ctx.query();
            assertThat(dev.physPortCount()).isGreaterThanOrEqualTo(1);
            assertThat(dev.maxQp()).isPositive();
            assertThat(dev.maxCqe()).isPositive();
            assertThat(dev.maxSge()).isPositive();
            PortAttributes port = ctx.queryPort(1);
            assertThat(port.state()).isEqualTo(PortState.ACTIVE);
            assertThat(port.linkLayer()).isEqualTo(PortAttributes.LINK_LAYER_ETHERNET);
            assertThat(port.gidTableLength()).isPositive();
            Gid gid = ctx.queryGid(1, 0);
            assertThat(gid).isNotEqualTo(Gid.ZERO);
            assertThatThrownBy(() -> ctx.queryPort(0)).isInstanceOf(IllegalArgumentException.class);
            assertThat(ctx.completionVectors()).isPositive();

            ProtectionDomain pd = c.add(ctx.allocatePd());
            Arena arena = c.add(Arena.ofShared());
            MemorySegment buffer = arena.allocate(8192, 4096);
            MemoryRegion mr = c.add(pd.register(buffer, Access.LOCAL_WRITE | Access.REMOTE_READ));
            assertThat(mr.address()).isEqualTo(buffer.address());
            assertThat(mr.length()).isEqualTo(8192);
            assertThat(mr.lkey()).isNotZero();
            CompletionChannel channel = c.add(ctx.createCompletionChannel());
            assertThat(channel.fd()).isPositive();
            CompletionQueue cq = c.add(ctx.createCq(32, channel, 0));
            assertThat(cq.capacity()).isGreaterThanOrEqualTo(32);
            try (WorkCompletions wc = WorkCompletions.allocate(4)) {
                assertThat(cq.poll(wc)).isZero();
            }
            cq.requestNotify(false);
            channel.setNonBlocking(true);
            assertThat(channel.getEvent()).isNull();

            QueuePair qp = c.add(pd.createQp(QpInitAttributes.of(QpType.RC, cq, cq, 4, 4, 1, 0)));
            assertThat(qp.state()).isEqualTo(QpState.RESET);
            qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                    .accessFlags(Access.REMOTE_WRITE | Access.REMOTE_READ));
            QpAttributes q = qp.query(QpAttrMask.STATE | QpAttrMask.PORT | QpAttrMask.CAP);
            assertThat(q.state()).isEqualTo(QpState.INIT);
            assertThat(q.port()).isEqualTo(1);
            assertThat(q.maxSendWr()).isGreaterThanOrEqualTo(4);
            assertThatThrownBy(() -> qp.modify(new QpAttributes().state(QpState.RTS)))
                    .as("INIT -> RTS skips RTR: the kernel refuses, with its errno")
                    .isInstanceOfSatisfying(org.rdmacm4j.verbs.RdmaException.class,
                            e -> assertThat(e.function()).isEqualTo("ibv_modify_qp"));

            assertThatThrownBy(ctx::close).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("ProtectionDomain").hasMessageContaining("CompletionChannel");
            assertThatThrownBy(pd::close).hasMessageContaining("MemoryRegion").hasMessageContaining("QueuePair");
            qp.close();
            qp.close();
            assertThatThrownBy(qp::state).isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed");
            mr.close();
            assertThatThrownBy(mr::segment).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void librdmacmDevicesAreBorrowedViews() {
        try (CmDevices devices = CmDevices.open()) {
            DeviceContext rxe = devices.byName(SoftRoce.DEVICE);
            assertThat(rxe).isNotNull();
            assertThat(rxe.isBorrowed()).isTrue();
            ProtectionDomain pd = rxe.allocatePd();
            assertThatThrownBy(devices::close).hasMessageContaining("ProtectionDomain");
            pd.close();
        }
    }
}
