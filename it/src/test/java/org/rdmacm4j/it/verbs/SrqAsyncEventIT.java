package org.rdmacm4j.it.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmEventType;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.PortSpace;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.AsyncEvent;
import org.rdmacm4j.verbs.ibv.AsyncEventType;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.ibv.MemoryRegion;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QpAttributes;
import org.rdmacm4j.verbs.ibv.QpInitAttributes;
import org.rdmacm4j.verbs.ibv.QpState;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.ibv.RecvRequests;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.SharedReceiveQueue;
import org.rdmacm4j.verbs.ibv.WcOpcode;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * An SRQ behind an RC QP: receives posted to it, its limit armed with ibv_modify_srq, and the
 * SRQ_LIMIT_REACHED async event received (element decoded to the SRQ) and acked. Then a QP is
 * moved to ERR with ibv_modify_qp and its next send is flushed.
 */
@SoftRoceTest
class SrqAsyncEventIT {

    @org.junit.jupiter.api.AfterEach
    void nothingLeftOpen() {
        CmPair.assertNothingOpen();
    }

    @Test
    void srqLimitRaisesAnAsyncEventAndAQpMovedToErrFlushes() throws Exception {
        try (CmPair.Closer c = new CmPair.Closer()) {
            Arena arena = c.add(Arena.ofShared());
            SendRequests sends = c.add(SendRequests.allocate(2, 1));
            RecvRequests recvs = c.add(RecvRequests.allocate(3, 1));
            WorkCompletions wc = c.add(WorkCompletions.allocate(4));
            CmEventChannel serverCh = c.add(CmPair.channel());
            CmEventChannel clientCh = c.add(CmPair.channel());
            CmId listener = c.add(serverCh.createId(PortSpace.TCP));
            listener.bind(CmPair.server(0));
            listener.listen(1);
            InetSocketAddress server = listener.localAddress();

            CmId client = c.add(clientCh.createId(PortSpace.TCP));
            CmPair.resolve(clientCh, client, server);
            ProtectionDomain clientPd = c.add(client.context().allocatePd());
            CompletionQueue clientCq = c.add(client.context().createCq(8, null, 0));
            QueuePair clientQp = c.add(client.createQp(clientPd,
                    QpInitAttributes.of(QpType.RC, clientCq, clientCq, 4, 4, 1, 0)));
            MemoryRegion clientMr = c.add(clientPd.register(arena.allocate(256, 64), Access.LOCAL_WRITE));
            client.connect(ConnParam.defaults());

            CmEvent request = CmPair.expect(serverCh, CmEventType.CONNECT_REQUEST);
            CmId serverId = c.add(request.id());
            DeviceContext ctx = serverId.context();
            ProtectionDomain serverPd = c.add(ctx.allocatePd());
            CompletionQueue serverCq = c.add(ctx.createCq(8, null, 0));
            SharedReceiveQueue srq = c.add(serverPd.createSrq(8, 1, 0));
            MemoryRegion serverMr = c.add(serverPd.register(arena.allocate(256, 64), Access.LOCAL_WRITE));
            for (int i = 0; i < 3; i++) {
                recvs.set(i, 100 + i).sge(i, 0, serverMr, i * 64L, 64);
            }
            srq.postRecv(recvs, 3);
            srq.armLimit(2);
            QueuePair serverQp = c.add(serverId.createQp(serverPd,
                    QpInitAttributes.of(QpType.RC, serverCq, serverCq, 4, 0, 1, 0).withSrq(srq)));
            serverId.accept(ConnParam.defaults());
            CmPair.expect(clientCh, CmEventType.ESTABLISHED);
            CmPair.expect(serverCh, CmEventType.ESTABLISHED);

            ctx.setAsyncNonBlocking(true);
            assertThat(ctx.getAsyncEvent()).as("no async event yet").isNull();
            for (int i = 0; i < 2; i++) {
                sends.set(0, i, WrOpcode.SEND, SendFlags.SIGNALED).sge(0, 0, clientMr, 0, 16);
                clientQp.postSend(sends, 1);
                UdSendIT.complete(clientCq, wc, i, WcOpcode.SEND);
                UdSendIT.complete(serverCq, wc, 100 + i, WcOpcode.RECV);
            }

            AsyncEvent event = ctx.getAsyncEvent(CmPair.WAIT);   // acked inside, in finally
            assertThat(event).as("an async event within " + CmPair.WAIT).isNotNull();
            assertThat(event.type()).isEqualTo(AsyncEventType.SRQ_LIMIT_REACHED);
            assertThat(event.type().element()).isEqualTo(AsyncEventType.Element.SRQ);
            assertThat(event.sharedReceiveQueue()).isSameAs(srq);
            assertThat(event.queuePair()).isNull();
            assertThat(event.type().describe()).isEqualTo("SRQ limit reached");

            clientQp.modify(new QpAttributes().state(QpState.ERR));
            assertThat(clientQp.state()).isEqualTo(QpState.ERR);
            sends.set(0, 9, WrOpcode.SEND, SendFlags.SIGNALED).sge(0, 0, clientMr, 0, 16);
            clientQp.postSend(sends, 1);
            long deadline = System.nanoTime() + CmPair.WAIT.toNanos();
            while (clientCq.poll(wc, 1) == 0) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(wc.wrId(0)).isEqualTo(9);
            assertThat(wc.status(0)).isEqualTo(WcStatus.WR_FLUSH_ERR);

            // The active side's DISCONNECTED waits for the passive side's DREP, which its
            // rdma_disconnect sends: both sides disconnect, as rdma_disconnect.3 says.
            client.disconnect();
            CmPair.expect(serverCh, CmEventType.DISCONNECTED);
            serverId.disconnect();
            CmPair.expect(clientCh, CmEventType.DISCONNECTED);
            ctx.setAsyncNonBlocking(false);
        }
    }
}
