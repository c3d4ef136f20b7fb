package org.rdmacm4j.it.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.it.support.ThreadAllocations;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmEventType;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.PortSpace;
import org.rdmacm4j.verbs.cm.RejectReason;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.CompletionChannel;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.MemoryRegion;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QpInitAttributes;
import org.rdmacm4j.verbs.ibv.QpState;
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
 * Two RC QPs connected through raw rdma_cm calls over the rig's server address, and every data
 * path operation verified byte for byte: SEND/RECV (one and two SGEs, inline), SEND_WITH_IMM,
 * RDMA_WRITE (and WITH_IMM, unsignalled), RDMA_READ, compare-and-swap, fetch-and-add; a CQ
 * event received and acked; a reject with private data; ownership rules on live objects.
 */
@SoftRoceTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RcDataPathIT {
    private static final int SIZE = 4096;
    private static final byte[] HELLO = "hello from the client".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WELCOME = "welcome".getBytes(StandardCharsets.US_ASCII);

    private final CmPair.Closer closer = new CmPair.Closer();
    private CmEventChannel serverChannel;
    private CmEventChannel clientChannel;
    private CmId listener;
    private CmId serverId;
    private CmId clientId;
    private ProtectionDomain serverPd;
    private ProtectionDomain clientPd;
    private CompletionChannel serverEvents;
    private CompletionQueue serverCq;
    private CompletionQueue clientCq;
    private QueuePair serverQp;
    private QueuePair clientQp;
    private MemoryRegion serverMr;
    private MemoryRegion clientMr;
    private SendRequests sends;
    private RecvRequests recvs;
    private WorkCompletions wc;
    private InetSocketAddress serverAddress;
    private CmEvent request;
    private CmEvent established;

    @BeforeAll
    void connect() {
        Arena arena = Arena.ofShared();
        closer.add(arena::close);
        MemorySegment serverBuf = arena.allocate(SIZE, 64);
        MemorySegment clientBuf = arena.allocate(SIZE, 64);
        sends = closer.add(SendRequests.allocate(4, 2));
        recvs = closer.add(RecvRequests.allocate(4, 2));
        wc = closer.add(WorkCompletions.allocate(8));

        serverChannel = closer.add(CmPair.channel());
        clientChannel = closer.add(CmPair.channel());
        listener = closer.add(serverChannel.createId(PortSpace.TCP));
        listener.setReuseAddress(true);
        listener.bind(CmPair.server(0));
        listener.listen(4);
        serverAddress = listener.localAddress();
        assertThat(serverAddress.getAddress().getHostAddress()).isEqualTo(SoftRoce.SERVER_ADDR);
        assertThat(serverAddress.getPort()).isPositive();
        assertThat(listener.sourcePort()).isEqualTo(serverAddress.getPort());

        clientId = closer.add(clientChannel.createId(PortSpace.TCP));
        clientId.setTypeOfService(0);
        CmPair.resolve(clientChannel, clientId, serverAddress);
        assertThat(clientId.deviceName()).isEqualTo(SoftRoce.DEVICE);
        clientPd = closer.add(clientId.context().allocatePd());
        clientCq = closer.add(clientId.context().createCq(16, null, 0));
        clientQp = closer.add(clientId.createQp(clientPd,
                QpInitAttributes.of(QpType.RC, clientCq, clientCq, 8, 8, 2, 64)));
        clientMr = closer.add(clientPd.register(clientBuf, Access.ALL_REMOTE));
        clientId.connect(ConnParam.defaults().withPrivateData(HELLO));

        request = CmPair.expect(serverChannel, CmEventType.CONNECT_REQUEST);
        serverId = closer.add(request.id());
        serverPd = closer.add(serverId.context().allocatePd());
        serverEvents = closer.add(serverId.context().createCompletionChannel());
        serverEvents.setNonBlocking(true);
        serverCq = closer.add(serverId.context().createCq(16, serverEvents, 0));
        serverQp = closer.add(serverId.createQp(serverPd,
                QpInitAttributes.of(QpType.RC, serverCq, serverCq, 8, 8, 2, 64)));
        serverMr = closer.add(serverPd.register(serverBuf, Access.ALL_REMOTE));
        serverId.accept(ConnParam.defaults().withPrivateData(WELCOME));

        established = CmPair.expect(clientChannel, CmEventType.ESTABLISHED);
        CmPair.expect(serverChannel, CmEventType.ESTABLISHED);
    }

    @Test
    @Order(1)
    void connectionCarriedPrivateDataAndParametersBothWays() {
        assertThat(request.listenId()).isSameAs(listener);
        assertThat(request.id()).isNotSameAs(listener);
        assertThat(request.status()).isZero();
        assertThat(request.conn()).isNotNull();
        assertThat(request.ud()).isNull();
        assertThat(Arrays.copyOf(request.privateData(), HELLO.length)).isEqualTo(HELLO);
        assertThat(request.conn().initiatorDepth()).as("the client's initiator depth, seen as responder resources")
                .isEqualTo(1);
        assertThat(Arrays.copyOf(established.privateData(), WELCOME.length)).isEqualTo(WELCOME);
        assertThat(established.id()).isSameAs(clientId);
        assertThat(clientId.peerAddress()).isEqualTo(serverAddress);
        assertThat(clientId.localAddress().getAddress().getHostAddress()).isEqualTo(SoftRoce.CLIENT_ADDR);
        assertThat(clientId.destinationPort()).isEqualTo(serverAddress.getPort());
        assertThat(serverId.localAddress()).isEqualTo(serverAddress);
        assertThat(serverId.peerAddress()).isEqualTo(clientId.localAddress());
        assertThat(clientQp.state()).isEqualTo(QpState.RTS);
        assertThat(serverQp.state()).isEqualTo(QpState.RTS);
        assertThat(clientId.context().handle()).isEqualTo(serverId.context().handle());
    }

    @Test
    @Order(2)
    void sendAndReceiveWithOneAndTwoScatterGatherEntries() {
        byte[] first = pattern(64, 1);
        byte[] second = pattern(32, 2);
        clientMr.segment().asSlice(0, 64).copyFrom(MemorySegment.ofArray(first));
        clientMr.segment().asSlice(100, 32).copyFrom(MemorySegment.ofArray(second));
        recvs.set(0, 100).sge(0, 0, serverMr, 0, 256);
        serverQp.postRecv(recvs, 1);
        sends.set(0, 1, WrOpcode.SEND, SendFlags.SIGNALED).sge(0, 0, clientMr, 0, 64).sge(0, 1, clientMr, 100, 32);
        clientQp.postSend(sends, 1);

        complete(clientCq, 1, WcOpcode.SEND);
        complete(serverCq, 100, WcOpcode.RECV);
        assertThat(wc.byteLength(0)).isEqualTo(96);
        assertThat(wc.qpNum(0)).isEqualTo(serverQp.qpNum());
        assertThat(bytes(serverMr, 0, 64)).isEqualTo(first);
        assertThat(bytes(serverMr, 64, 32)).isEqualTo(second);
    }

    @Test
    @Order(3)
    void sendWithImmediateAndInline() {
        byte[] data = pattern(48, 3);
        clientMr.segment().asSlice(0, 48).copyFrom(MemorySegment.ofArray(data));
        recvs.set(0, 200).sge(0, 0, serverMr, 512, 128);
        serverQp.postRecv(recvs, 1);
        sends.set(0, 2, WrOpcode.SEND_WITH_IMM, SendFlags.SIGNALED | SendFlags.INLINE)
                .sge(0, 0, clientMr, 0, 48).immData(0, 0xCAFEBABE);
        clientQp.postSend(sends, 1);

        complete(clientCq, 2, WcOpcode.SEND);
        complete(serverCq, 200, WcOpcode.RECV);
        assertThat(wc.flags(0) & WcFlags.WITH_IMM).isNotZero();
        assertThat(wc.immData(0)).isEqualTo(0xCAFEBABE);
        assertThat(bytes(serverMr, 512, 48)).isEqualTo(data);
    }

    @Test
    @Order(4)
    void rdmaWriteUnsignalledThenSignalledThenWithImmediate() {
        byte[] a = pattern(128, 4);
        byte[] b = pattern(128, 5);
        clientMr.segment().asSlice(1024, 128).copyFrom(MemorySegment.ofArray(a));
        clientMr.segment().asSlice(1152, 128).copyFrom(MemorySegment.ofArray(b));
        sends.set(0, 3, WrOpcode.RDMA_WRITE, 0).sge(0, 0, clientMr, 1024, 128)
                .rdma(0, serverMr.address() + 1024, serverMr.rkey());
        sends.set(1, 4, WrOpcode.RDMA_WRITE, SendFlags.SIGNALED).sge(1, 0, clientMr, 1152, 128)
                .rdma(1, serverMr.address() + 1152, serverMr.rkey());
        clientQp.postSend(sends, 2);
        complete(clientCq, 4, WcOpcode.RDMA_WRITE);   // only the signalled one completes
        assertThat(clientCq.poll(wc)).as("no completion for the unsignalled write").isZero();
        assertThat(bytes(serverMr, 1024, 128)).isEqualTo(a);
        assertThat(bytes(serverMr, 1152, 128)).isEqualTo(b);

        recvs.set(0, 300);   // WRITE_WITH_IMM consumes a receive with no scatter list
        serverQp.postRecv(recvs, 1);
        sends.set(0, 5, WrOpcode.RDMA_WRITE_WITH_IMM, SendFlags.SIGNALED).sge(0, 0, clientMr, 1024, 64)
                .rdma(0, serverMr.address() + 1280, serverMr.rkey()).immData(0, 77);
        clientQp.postSend(sends, 1);
        complete(clientCq, 5, WcOpcode.RDMA_WRITE);
        complete(serverCq, 300, WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(wc.immData(0)).isEqualTo(77);
        assertThat(bytes(serverMr, 1280, 64)).isEqualTo(Arrays.copyOf(a, 64));
    }

    @Test
    @Order(5)
    void rdmaRead() {
        byte[] remote = pattern(200, 6);
        serverMr.segment().asSlice(2048, 200).copyFrom(MemorySegment.ofArray(remote));
        sends.set(0, 6, WrOpcode.RDMA_READ, SendFlags.SIGNALED).sge(0, 0, clientMr, 2048, 200)
                .rdma(0, serverMr.address() + 2048, serverMr.rkey());
        clientQp.postSend(sends, 1);
        complete(clientCq, 6, WcOpcode.RDMA_READ);
        assertThat(wc.byteLength(0)).isEqualTo(200);
        assertThat(bytes(clientMr, 2048, 200)).isEqualTo(remote);
    }

    @Test
    @Order(6)
    void compareAndSwapThenFetchAndAdd() {
        MemorySegment target = serverMr.segment();
        target.set(JAVA_LONG, 3072, 5L);
        sends.set(0, 7, WrOpcode.ATOMIC_CMP_AND_SWP, SendFlags.SIGNALED).sge(0, 0, clientMr, 3072, 8)
                .atomic(0, serverMr.address() + 3072, serverMr.rkey(), 5L, 9L);
        clientQp.postSend(sends, 1);
        complete(clientCq, 7, WcOpcode.COMP_SWAP);
        assertThat(clientMr.segment().get(JAVA_LONG, 3072)).as("old value").isEqualTo(5L);
        assertThat(target.get(JAVA_LONG, 3072)).as("swapped").isEqualTo(9L);

        sends.set(0, 8, WrOpcode.ATOMIC_FETCH_AND_ADD, SendFlags.SIGNALED).sge(0, 0, clientMr, 3080, 8)
                .atomic(0, serverMr.address() + 3072, serverMr.rkey(), 10L, 0L);
        clientQp.postSend(sends, 1);
        complete(clientCq, 8, WcOpcode.FETCH_ADD);
        assertThat(clientMr.segment().get(JAVA_LONG, 3080)).as("value before the add").isEqualTo(9L);
        assertThat(target.get(JAVA_LONG, 3072)).as("added").isEqualTo(19L);
    }

    @Test
    @Order(7)
    void completionEventIsReceivedAndAcked() {
        serverCq.requestNotify(false);
        assertThat(serverEvents.getEvent()).as("nothing yet (non-blocking)").isNull();
        recvs.set(0, 400).sge(0, 0, serverMr, 0, 64);
        serverQp.postRecv(recvs, 1);
        sends.set(0, 9, WrOpcode.SEND, SendFlags.SIGNALED).sge(0, 0, clientMr, 0, 16);
        clientQp.postSend(sends, 1);
        complete(clientCq, 9, WcOpcode.SEND);

        CompletionQueue woken = serverEvents.getEvent(CmPair.WAIT);
        assertThat(woken).isSameAs(serverCq);
        assertThat(serverCq.unackedEvents()).isOne();
        serverCq.ackEvents();
        assertThat(serverCq.unackedEvents()).isZero();
        complete(serverCq, 400, WcOpcode.RECV);
    }

    @Test
    @Order(8)
    void postAndPollAllocateNothing() {
        sends.set(0, 10, WrOpcode.RDMA_WRITE, SendFlags.SIGNALED).sge(0, 0, clientMr, 0, 64)
                .rdma(0, serverMr.address(), serverMr.rkey());
        for (int i = 0; i < 300; i++) {
            writeAndSpin();
        }
        long before = ThreadAllocations.currentThread();
        int rounds = 300;
        for (int i = 0; i < rounds; i++) {
            writeAndSpin();
        }
        long allocated = ThreadAllocations.currentThread() - before;
        System.out.println("RcDataPathIT: " + allocated + " bytes allocated over " + rounds + " post_send+poll_cq rounds");
        assertThat(allocated).as("bytes allocated by %d post_send + poll_cq rounds", rounds).isLessThan(rounds);
    }

    private void writeAndSpin() {
        clientQp.postSend(sends, 1);
        long deadline = System.nanoTime() + CmPair.WAIT.toNanos();
        while (clientCq.poll(wc, 1) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within " + CmPair.WAIT);
            }
        }
        if (wc.statusValue(0) != 0) {
            throw new AssertionError("completion failed: " + wc.status(0));
        }
    }

    @Test
    @Order(9)
    void liveObjectsRefuseToCloseUnderTheirChildren() {
        assertThatThrownBy(serverPd::close).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("QueuePair").hasMessageContaining("MemoryRegion");
        assertThatThrownBy(clientCq::close).hasMessageContaining("QueuePair(RC, qp_num " + clientQp.qpNum());
        assertThatThrownBy(clientId::close).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(serverEvents::close).hasMessageContaining("CompletionQueue");
        assertThatThrownBy(() -> serverPd.register(MemorySegment.ofArray(new byte[16]), Access.LOCAL_WRITE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("native");
        assertThat(clientQp.isClosed()).isFalse();
        sends.set(0, 11, WrOpcode.SEND, SendFlags.SIGNALED).sge(0, 0, clientMr, 0, 8);
        recvs.set(0, 500).sge(0, 0, serverMr, 0, 8);
        serverQp.postRecv(recvs, 1);
        clientQp.postSend(sends, 1);
        complete(clientCq, 11, WcOpcode.SEND);   // still fully usable
        complete(serverCq, 500, WcOpcode.RECV);
    }

    @Test
    @Order(10)
    void rejectCarriesPrivateDataAndTheConsumerReason() throws Exception {
        try (CmEventChannel ch = CmPair.channel(); CmId second = ch.createId(PortSpace.TCP)) {
            CmPair.resolve(ch, second, serverAddress);
            second.connect(ConnParam.defaults().withPrivateData(new byte[] {1}));
            CmEvent req = CmPair.expect(serverChannel, CmEventType.CONNECT_REQUEST);
            try (CmId doomed = req.id()) {
                assertThatThrownBy(() -> doomed.reject(new byte[149])).isInstanceOf(IllegalArgumentException.class);
                doomed.reject("busy".getBytes(StandardCharsets.US_ASCII));
            }
            CmEvent rejected = CmPair.expect(ch, CmEventType.REJECTED);
            assertThat(rejected.status()).isEqualTo(RejectReason.CONSUMER_DEFINED);
            assertThat(rejected.rejectMessage()).isEqualTo("consumer defined");
            assertThat(new String(Arrays.copyOf(rejected.privateData(), 4), StandardCharsets.US_ASCII))
                    .isEqualTo("busy");
        }
    }

    @AfterAll
    void disconnectAndCloseEverything() throws Exception {
        try {
            // The active side's DISCONNECTED waits for the passive side's DREP, which its
            // rdma_disconnect sends: both sides disconnect, as rdma_disconnect.3 says.
            clientId.disconnect();
            CmPair.expect(serverChannel, CmEventType.DISCONNECTED);
            serverId.disconnect();
            CmPair.expect(clientChannel, CmEventType.DISCONNECTED);
            clientQp.close();
            serverQp.close();
            assertThat(serverQp.isClosed()).isTrue();
            serverQp.close();   // idempotent
            assertThatThrownBy(() -> clientQp.postSend(sends, 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is closed");
            assertThatCode(() -> serverCq.poll(wc)).as("the CQ is still open").doesNotThrowAnyException();
        } finally {
            closer.close();
        }
        assertThatThrownBy(() -> serverCq.poll(wc)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> clientId.resolveRoute(CmPair.WAIT)).isInstanceOf(IllegalStateException.class);
        CmPair.assertNothingOpen();
    }

    private void complete(CompletionQueue cq, long wrId, WcOpcode opcode) {
        long deadline = System.nanoTime() + CmPair.WAIT.toNanos();
        int n;
        while ((n = cq.poll(wc, 1)) == 0) {
            assertThat(System.nanoTime()).as("a completion of wr " + wrId + " within " + CmPair.WAIT)
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(n).isOne();
        assertThat(wc.status(0)).as("status of wr %d: %s", wrId, wc.status(0).describe()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wrId(0)).isEqualTo(wrId);
        assertThat(wc.opcode(0)).isEqualTo(opcode);
    }

    private static byte[] bytes(MemoryRegion mr, long offset, int length) {
        return mr.segment().asSlice(offset, length).toArray(JAVA_BYTE);
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }
}
