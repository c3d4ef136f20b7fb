package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;
import static org.rdmacm4j.it.core.DatagramIT.addr;
import static org.rdmacm4j.it.core.DatagramIT.pattern;
import static org.rdmacm4j.it.core.DatagramIT.sendUntilReceived;

import com.google.common.net.InetAddresses;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.DataPathException;
import org.rdmacm4j.cm.core.DatagramEndpoint;
import org.rdmacm4j.cm.core.DatagramOptions;
import org.rdmacm4j.cm.core.DatagramPeer;
import org.rdmacm4j.cm.core.JoinOptions;
import org.rdmacm4j.cm.core.Membership;
import org.rdmacm4j.cm.core.MulticastException;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.it.core.DatagramIT.Got;
import org.rdmacm4j.it.core.DatagramIT.Recorder;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;

/**
 * Send-only multicast joins (rdma_join_multicast_ex, RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER) with
 * our endpoints and with rdma-core's {@code mckey -o}, a real MULTICAST_ERROR, and UD bursts larger
 * than the send buffers (the bounded send queue).
 */
@org.rdmacm4j.it.support.SoftRoceTest
class MulticastIT {
    @Test
    void sendOnlyMemberReachesAFullMemberAndReceivesNothing() throws Exception {
        InetAddress group = InetAddresses.forString("239.1.3.1");
        Recorder full = new Recorder();
        Recorder sendOnly = new Recorder();
        try (RdmaCm cm = RdmaCm.open()) {
            DatagramEndpoint epFull = cm.openDatagram(addr(SoftRoce.SERVER_ADDR, 0), DatagramOptions.defaults(), full);
            DatagramEndpoint epSo = cm.openDatagram(addr(SoftRoce.CLIENT_ADDR, 0), DatagramOptions.defaults(),
                    sendOnly);
            Membership mFull = await(epFull.join(group));
            Membership mSo = await(epSo.join(group, JoinOptions.defaults().withSendOnly(true)));
            assertThat(mSo.options().sendOnly()).isTrue();
            assertThat(mSo.queuePairNumber()).isEqualTo(0xFFFFFF);

            byte[] fromSo = pattern(300, 1);
            Got atFull = sendUntilReceived(epSo, mSo, fromSo, full);
            assertThat(atFull.data()).isEqualTo(fromSo);
            assertThat(atFull.srcQp()).isEqualTo(epSo.queuePairNumber());
            assertThat(atFull.toGroup()).isTrue();

            // The full member's datagrams reach the group (its own loopback proves it); the
            // send-only member's QP is not attached, so none reach it.
            full.got.clear();
            byte[] fromFull = pattern(120, 2);
            sendUntilReceived(epFull, mFull, fromFull, full);
            for (int i = 0; i < 20; i++) {
                await(epFull.send(mFull, fromFull));
            }
            Thread.sleep(500);
            assertThat(full.got).as("the full member's own loopback").isNotEmpty();
            assertThat(sendOnly.got).as("datagrams at the send-only member").isEmpty();

            await(mSo.leave());
            assertThat(mSo.isLeft()).isTrue();
            await(epSo.close());
            await(epFull.close());
        }
    }

    @Test
    void mckeyReceiverWithOurSendOnlySender() throws Exception {
        Recorder ours = DatagramIT.weSendToAnMckeyReceiver(InetAddresses.forString("239.1.3.2"),
                JoinOptions.defaults().withSendOnly(true));
        assertThat(ours.got).as("a send-only member receives nothing").isEmpty();
    }

    @Test
    void mckeySendOnlySenderWithUsAsReceiver() throws Exception {
        DatagramIT.mckeySendsToOurMember(InetAddresses.forString("239.1.3.3"), "-o");
    }

    /**
     * On RoCE the kernel makes the MULTICAST_JOIN event when the join is called
     * (cma_iboe_join_multicast, cma_make_mc_event); it turns into MULTICAST_ERROR only when no
     * address vector can be built for the id's source GID (ib_init_ah_from_mcmember). An endpoint
     * whose address has been removed from the netdev (its GID entry goes with it) joins into exactly
     * that: the join future fails with a typed MulticastException, and a group joined before is
     * not mistaken for it.
     */
    @Test
    void joinAfterTheAddressWentAwayFailsWithMulticastError() throws Exception {
        String extra = "192.0.2.5";
        ExternalProcess.Result add = ExternalProcess.run(Duration.ofSeconds(10), "ip", "addr", "add", extra + "/24",
                "dev", "veth0");
        assertThat(add.exitCode()).as("ip addr add: %s", add).isZero();
        boolean removed = false;
        try (RdmaCm cm = RdmaCm.open()) {
            DatagramEndpoint ep = openWhenGidExists(cm, extra);
            Membership before = await(ep.join(InetAddresses.forString("239.1.3.5")));
            ExternalProcess.Result del = ExternalProcess.run(Duration.ofSeconds(10), "ip", "addr", "del",
                    extra + "/24", "dev", "veth0");
            assertThat(del.exitCode()).as("ip addr del: %s", del).isZero();
            removed = true;
            Thread.sleep(500);   // the GID table follows the netdev's addresses in a work item
            Throwable t = CmFixtures.failureOf(ep.join(InetAddresses.forString("239.1.3.4")));
            System.out.println("MulticastIT: join without a source GID: " + t);
            assertThat(t).isInstanceOfSatisfying(MulticastException.class, m -> {
                assertThat(m.group().getHostAddress()).isEqualTo("239.1.3.4");
                assertThat(m.status()).as("MULTICAST_ERROR from ib_init_ah_from_mcmember carries status 0").isZero();
                assertThat(m.rejoining()).isFalse();
                assertThat(m.getMessage()).contains("MULTICAST_ERROR");
            });
            // The error (it carries no address vector) is the unanswered join's, not the joined group's.
            assertThat(before.isLeft()).isFalse();
            await(ep.close());
        } finally {
            if (!removed) {
                ExternalProcess.run(Duration.ofSeconds(10), "ip", "addr", "del", extra + "/24", "dev", "veth0");
            }
        }
    }

    /** rxe fills its GID table from the netdev's addresses a moment after they appear. */
    private static DatagramEndpoint openWhenGidExists(RdmaCm cm, String address) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try {
                return cm.openDatagram(addr(address, 0), DatagramOptions.defaults(), new Recorder());
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    @Test
    void aBurstLargerThanTheSendBuffersIsQueuedAndDeliveredInOrder() throws Exception {
        int burst = 300;
        Recorder rec = new Recorder();
        try (RdmaCm cm = RdmaCm.open()) {
            DatagramEndpoint receiver = cm.openDatagram(addr(SoftRoce.SERVER_ADDR, 0),
                    DatagramOptions.defaults().withReceiveBuffers(512), rec);
            DatagramEndpoint sender = cm.openDatagram(addr(SoftRoce.CLIENT_ADDR, 0),
                    DatagramOptions.defaults().withSendBuffers(4), new Recorder());
            DatagramPeer peer = await(sender.resolve(addr(SoftRoce.SERVER_ADDR, receiver.localAddress().getPort())));
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            for (int i = 0; i < burst; i++) {
                sends.add(sender.send(peer, ByteBuffer.allocate(64).putInt(i).array()));
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(30, java.util.concurrent.TimeUnit.SECONDS);
            for (int i = 0; i < burst; i++) {
                assertThat(ByteBuffer.wrap(rec.next().data()).getInt()).as("datagram %d in order", i).isEqualTo(i);
            }
            await(sender.close());
            await(receiver.close());
        }
    }

    @Test
    void beyondTheQueueBoundSendFailsTypedAndOfferSaysNo() throws Exception {
        int burst = 1000;
        try (RdmaCm cm = RdmaCm.open()) {
            DatagramEndpoint receiver = cm.openDatagram(addr(SoftRoce.SERVER_ADDR, 0), DatagramOptions.defaults(),
                    new Recorder());
            DatagramEndpoint sender = cm.openDatagram(addr(SoftRoce.CLIENT_ADDR, 0),
                    DatagramOptions.defaults().withSendBuffers(1).withMaxQueuedSends(2), new Recorder());
            DatagramPeer peer = await(sender.resolve(addr(SoftRoce.SERVER_ADDR, receiver.localAddress().getPort())));
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            MemorySegment one = MemorySegment.ofArray(new byte[32]);
            int refused = 0;
            for (int i = 0; i < burst; i++) {
                sends.add(sender.send(peer, one));
                if (!sender.offer(peer, one)) {
                    refused++;
                }
            }
            int ok = 0;
            int full = 0;
            for (CompletableFuture<Void> f : sends) {
                try {
                    f.get(CmFixtures.WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                    ok++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(DataPathException.class)
                            .hasMessageContaining("send queue full");
                    full++;
                }
            }
            System.out.printf("MulticastIT: %d sends with 1 buffer and 2 queued: %d sent, %d 'queue full'; "
                    + "%d of %d offers refused%n", burst, ok, full, refused, burst);
            assertThat(ok).isPositive();
            assertThat(full).as("sends beyond 1 in flight + 2 queued").isPositive();
            assertThat(refused).isPositive();
            await(sender.close());
            await(receiver.close());
        }
    }
}
