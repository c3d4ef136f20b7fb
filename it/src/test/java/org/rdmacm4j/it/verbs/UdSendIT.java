package org.rdmacm4j.it.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmEventType;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.PortSpace;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.AddressHandle;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.MemoryRegion;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QpInitAttributes;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.ibv.RecvRequests;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcFlags;
import org.rdmacm4j.verbs.ibv.WcOpcode;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * UD through rdma_cm (as udaddy does it): SIDR exchange on RDMA_PS_UDP ids, the UD parameters of
 * the events decoded, then a send through an address handle each way.
 */
@SoftRoceTest
class UdSendIT {

    @org.junit.jupiter.api.AfterEach
    void nothingLeftOpen() {
        CmPair.assertNothingOpen();
    }
    private static final int GRH = 40;   // a UD receive buffer starts with the 40-byte GRH

    @Test
    void udSendThroughAnAddressHandleBothWays() throws Exception {
        byte[] toServer = "ud datagram to the server".getBytes(StandardCharsets.US_ASCII);
        byte[] toClient = "ud reply".getBytes(StandardCharsets.US_ASCII);
        try (CmPair.Closer c = new CmPair.Closer()) {
            Arena arena = c.add(Arena.ofShared());
            SendRequests sends = c.add(SendRequests.allocate(1, 1));
            RecvRequests recvs = c.add(RecvRequests.allocate(1, 1));
            WorkCompletions wc = c.add(WorkCompletions.allocate(4));
            CmEventChannel serverCh = c.add(CmPair.channel());
            CmEventChannel clientCh = c.add(CmPair.channel());
            CmId listener = c.add(serverCh.createId(PortSpace.UDP));
            listener.bind(CmPair.server(0));
            listener.listen(1);
            InetSocketAddress server = listener.localAddress();

            CmId client = c.add(clientCh.createId(PortSpace.UDP));
            CmPair.resolve(clientCh, client, server);
            ProtectionDomain clientPd = c.add(client.context().allocatePd());
            CompletionQueue clientCq = c.add(client.context().createCq(8, null, 0));
            QueuePair clientQp = c.add(client.createQp(clientPd,
                    QpInitAttributes.of(QpType.UD, clientCq, clientCq, 4, 4, 1, 0)));
            MemoryRegion clientMr = c.add(clientPd.register(arena.allocate(1024, 64), Access.LOCAL_WRITE));
            assertThat(clientQp.type()).isEqualTo(QpType.UD);
            recvs.set(0, 2).sge(0, 0, clientMr, 512, 512);
            clientQp.postRecv(recvs, 1);
            client.connect(ConnParam.defaults().withPrivateData(new byte[] {42}));

            CmEvent request = CmPair.expect(serverCh, CmEventType.CONNECT_REQUEST);
            CmId serverId = c.add(request.id());
            assertThat(request.conn()).isNull();
            assertThat(request.ud()).isNotNull();
            assertThat(request.privateData()[0]).isEqualTo((byte) 42);
            ProtectionDomain serverPd = c.add(serverId.context().allocatePd());
            CompletionQueue serverCq = c.add(serverId.context().createCq(8, null, 0));
            QueuePair serverQp = c.add(serverId.createQp(serverPd,
                    QpInitAttributes.of(QpType.UD, serverCq, serverCq, 4, 4, 1, 0)));
            MemoryRegion serverMr = c.add(serverPd.register(arena.allocate(1024, 64), Access.LOCAL_WRITE));
            recvs.set(0, 1).sge(0, 0, serverMr, 0, 512);
            serverQp.postRecv(recvs, 1);
            serverId.accept(ConnParam.defaults());

            CmEvent established = CmPair.expect(clientCh, CmEventType.ESTABLISHED);
            assertThat(established.ud()).isNotNull();
            assertThat(established.ud().qpNum()).isEqualTo(serverQp.qpNum());
            assertThat(established.ud().qkey()).isEqualTo(0x01234567);   // RDMA_UDP_QKEY
            assertThat(established.ud().ahAttr().isGlobal()).as("RoCE address vectors carry a GRH").isTrue();

            // client -> server
            AddressHandle toServerAh = c.add(clientPd.createAh(established.ud().ahAttr()));
            clientMr.segment().asSlice(0, toServer.length).copyFrom(MemorySegment.ofArray(toServer));
            sends.set(0, 10, WrOpcode.SEND, SendFlags.SIGNALED).sge(0, 0, clientMr, 0, toServer.length)
                    .ud(0, toServerAh, established.ud().qpNum(), established.ud().qkey());
            clientQp.postSend(sends, 1);
            complete(clientCq, wc, 10, WcOpcode.SEND);
            complete(serverCq, wc, 1, WcOpcode.RECV);
            assertThat(wc.byteLength(0)).isEqualTo(GRH + toServer.length);
            assertThat(wc.flags(0) & WcFlags.GRH).isNotZero();
            assertThat(wc.srcQp(0)).isEqualTo(clientQp.qpNum());
            assertThat(serverMr.segment().asSlice(GRH, toServer.length).toArray(JAVA_BYTE)).isEqualTo(toServer);

            // server -> client: a SIDR request carries no QPN, so reply as udaddy does, to the
            // sender of the receive (ibv_create_ah_from_wc over the GRH, src_qp of the completion).
            int clientQpn = wc.srcQp(0);
            AddressHandle toClientAh = c.add(serverPd.createAhFrom(wc, 0, serverMr.segment().asSlice(0, GRH), 1));
            serverMr.segment().asSlice(600, toClient.length).copyFrom(MemorySegment.ofArray(toClient));
            sends.set(0, 20, WrOpcode.SEND, SendFlags.SIGNALED).sge(0, 0, serverMr, 600, toClient.length)
                    .ud(0, toClientAh, clientQpn, 0x01234567);
            serverQp.postSend(sends, 1);
            complete(serverCq, wc, 20, WcOpcode.SEND);
            complete(clientCq, wc, 2, WcOpcode.RECV);
            assertThat(Arrays.copyOf(clientMr.segment().asSlice(512 + GRH, toClient.length).toArray(JAVA_BYTE),
                    toClient.length)).isEqualTo(toClient);
        }
    }

    static void complete(CompletionQueue cq, WorkCompletions wc, long wrId, WcOpcode opcode) {
        long deadline = System.nanoTime() + CmPair.WAIT.toNanos();
        while (cq.poll(wc, 1) == 0) {
            assertThat(System.nanoTime()).as("a completion of wr " + wrId).isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(wc.status(0)).as("wr %d: %s", wrId, wc.status(0).describe()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wrId(0)).isEqualTo(wrId);
        assertThat(wc.opcode(0)).isEqualTo(opcode);
    }
}
