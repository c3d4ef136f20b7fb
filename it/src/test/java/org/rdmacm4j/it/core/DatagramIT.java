package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.it.core.CmFixtures.await;

import com.google.common.net.InetAddresses;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.DatagramEndpoint;
import org.rdmacm4j.cm.core.DatagramHandler;
import org.rdmacm4j.cm.core.DatagramOptions;
import org.rdmacm4j.cm.core.DatagramPeer;
import org.rdmacm4j.cm.core.DatagramSender;
import org.rdmacm4j.cm.core.JoinOptions;
import org.rdmacm4j.cm.core.Membership;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * UD datagram endpoints on soft-RoCE: SIDR resolution and datagrams both ways between two
 * endpoints, interop with rdma-core's udaddy (client and server) and mckey (sender and receiver),
 * and two members of one multicast group.
 */
@SoftRoceTest
class DatagramIT {
    private static final int UDADDY_PORT = 7174;   // udaddy's fixed port
    private static final int TOOL_MESSAGES = 10;   // udaddy's and mckey's default -C
    private static final int TOOL_SIZE = 100;      // and -S: their receive buffers hold 100 + 40 bytes

    /** One received datagram, copied. */
    record Got(byte[] data, int srcQp, int imm, boolean hasImm, InetAddress from, boolean toGroup) { }

    /** Records datagrams (copies) and optionally reacts on the poller thread. */
    static class Recorder implements DatagramHandler {
        final LinkedBlockingQueue<Got> got = new LinkedBlockingQueue<>();
        final CompletableFuture<Void> closed = new CompletableFuture<>();
        final List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onDatagram(DatagramEndpoint endpoint, DatagramSender from, MemorySegment data) {
            got.add(new Got(data.toArray(ValueLayout.JAVA_BYTE), from.queuePairNumber(), from.immediateData(),
                    from.hasImmediateData(), from.address(), from.toGroup()));
            react(endpoint, from, data);
        }

        void react(DatagramEndpoint endpoint, DatagramSender from, MemorySegment data) { }

        @Override
        public void onError(DatagramEndpoint endpoint, org.rdmacm4j.cm.core.RdmaCmException error) {
            events.add("error " + error.getMessage());
        }

        @Override
        public void onClosed(DatagramEndpoint endpoint) {
            events.add("closed");
            closed.complete(null);
        }

        Got next() throws InterruptedException {
            Got g = got.poll(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(g).as("a datagram within " + CmFixtures.WAIT).isNotNull();
            return g;
        }
    }

    static InetSocketAddress addr(String host, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(host), port);
    }

    static byte[] pattern(int size, int seed) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    @Test
    void datagramsBothWaysBetweenTwoEndpointsAfterSidr() throws Exception {
        Recorder serverRec = new Recorder() {
            final AtomicReference<DatagramPeer> back = new AtomicReference<>();

            @Override
            void react(DatagramEndpoint endpoint, DatagramSender from, MemorySegment data) {
                // Echo every datagram to its sender, through an address handle made from the completion.
                if (back.get() == null) {
                    back.set(from.replyTarget(from.queuePairNumber()));
                }
                endpoint.send(back.get(), data);
            }
        };
        Recorder clientRec = new Recorder();
        try (RdmaCm cm = RdmaCm.open()) {
            long t0 = System.nanoTime();
            DatagramEndpoint server = cm.openDatagram(addr(SoftRoce.SERVER_ADDR, 0), DatagramOptions.defaults(),
                    serverRec);
            System.out.printf("DatagramIT: first openDatagram took %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            DatagramEndpoint client = cm.openDatagram(addr(SoftRoce.CLIENT_ADDR, 0), DatagramOptions.defaults(),
                    clientRec);
            assertThat(server.localAddress().getPort()).isPositive();
            int max = client.maxDatagramSize();
            System.out.printf("DatagramIT: server %s qpn 0x%x, client %s qpn 0x%x, max datagram %d%n",
                    server.localAddress(), server.queuePairNumber(), client.localAddress(), client.queuePairNumber(),
                    max);
            assertThat(max).isGreaterThanOrEqualTo(256);

            DatagramPeer peer = await(client.resolve(addr(SoftRoce.SERVER_ADDR, server.localAddress().getPort())));
            assertThat(peer.queuePairNumber()).isEqualTo(server.queuePairNumber());
            assertThat(peer.qkey()).isEqualTo(0x01234567);
            assertThatThrownBy(() -> client.send(peer, new byte[max + 1]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(max));

            int[] sizes = {0, 1, 2, 40, 100, 255, 256, 257, 1000, max - 1, max};
            for (int i = 0; i < sizes.length; i++) {
                byte[] b = pattern(sizes[i], i);
                await(client.send(peer, b));
                Got atServer = serverRec.next();
                assertThat(atServer.data()).as("datagram of %d bytes at the server", sizes[i]).isEqualTo(b);
                assertThat(atServer.srcQp()).isEqualTo(client.queuePairNumber());
                assertThat(atServer.hasImm()).isTrue();
                assertThat(atServer.imm()).as("our QPN in the immediate data").isEqualTo(client.queuePairNumber());
                assertThat(atServer.from().getHostAddress()).isEqualTo(SoftRoce.CLIENT_ADDR);
                Got echo = clientRec.next();
                assertThat(echo.data()).as("echo of %d bytes at the client", sizes[i]).isEqualTo(b);
                assertThat(echo.srcQp()).isEqualTo(server.queuePairNumber());
            }
            peer.close();
            assertThat(peer.isClosed()).isTrue();
            assertThatThrownBy(() -> client.send(peer, new byte[1])).isInstanceOf(IllegalArgumentException.class);

            await(client.close());
            await(server.close());
            assertThat(client.isClosed()).isTrue();
            // onClosed runs on the callback executor right after the close future completes.
            org.awaitility.Awaitility.await().atMost(CmFixtures.WAIT).until(() ->
                    clientRec.events.size() == 1 && serverRec.events.size() == 1);
            assertThat(clientRec.events).containsExactly("closed");
            assertThat(serverRec.events).containsExactly("closed");
        }
    }

    @Test
    void resolvingAPortWithoutEndpointFailsTyped() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            Recorder rec = new Recorder();
            DatagramEndpoint ep = cm.openDatagram(addr(SoftRoce.CLIENT_ADDR, 0), DatagramOptions.defaults(), rec);
            Throwable t = CmFixtures.failureOf(ep.resolve(addr(SoftRoce.SERVER_ADDR, 7199)));
            System.out.println("DatagramIT: SIDR to a port nobody listens on: " + t);
            assertThat(t).isInstanceOf(org.rdmacm4j.cm.core.RdmaCmException.class);
            assertThatThrownBy(() -> ep.resolve(InetSocketAddress.createUnresolved("nowhere", 1)))
                    .isInstanceOf(IllegalArgumentException.class);
            await(ep.close());
        }
    }

    @Test
    void udaddyClientAgainstOurEndpoint() throws Exception {
        AtomicInteger received = new AtomicInteger();
        Recorder rec = new Recorder() {
            DatagramPeer back;

            @Override
            void react(DatagramEndpoint endpoint, DatagramSender from, MemorySegment data) {
                // udaddy's server answers the QPN in the immediate data, once it has all its messages.
                if (back == null) {
                    back = from.replyTarget(from.immediateData());
                }
                if (received.incrementAndGet() == TOOL_MESSAGES) {
                    for (int i = 0; i < TOOL_MESSAGES; i++) {
                        endpoint.send(back, pattern(TOOL_SIZE, i));
                    }
                }
            }
        };
        try (RdmaCm cm = RdmaCm.open()) {
            DatagramEndpoint ep = cm.openDatagram(addr(SoftRoce.SERVER_ADDR, UDADDY_PORT), DatagramOptions.defaults(),
                    rec);
            ExternalProcess.Result r = ExternalProcess.run(Duration.ofSeconds(60), "udaddy", "-s", SoftRoce.SERVER_ADDR,
                    "-b", SoftRoce.CLIENT_ADDR);
            System.out.println("DatagramIT: udaddy client: " + r);
            assertThat(r.timedOut()).as("udaddy client: %s", r).isFalse();
            assertThat(r.exitCode()).as("udaddy client: %s", r).isZero();
            assertThat(received.get()).isEqualTo(TOOL_MESSAGES);
            Got first = rec.next();
            assertThat(first.data()).hasSize(TOOL_SIZE);
            assertThat(first.imm()).isEqualTo(first.srcQp());
            await(ep.close());
        }
    }

    @Test
    void ourEndpointAgainstUdaddyServer() throws Exception {
        Recorder rec = new Recorder();
        try (ExternalProcess udaddy = ExternalProcess.start("udaddy", "-b", SoftRoce.SERVER_ADDR);
             RdmaCm cm = RdmaCm.open()) {
            CmFixtures.awaitToolListening(udaddy, UDADDY_PORT);
            DatagramEndpoint ep = cm.openDatagram(addr(SoftRoce.CLIENT_ADDR, 0), DatagramOptions.defaults(), rec);
            DatagramPeer server = await(ep.resolve(addr(SoftRoce.SERVER_ADDR, UDADDY_PORT)));
            for (int i = 0; i < TOOL_MESSAGES; i++) {
                await(ep.send(server, pattern(TOOL_SIZE, i)));
            }
            for (int i = 0; i < TOOL_MESSAGES; i++) {
                Got g = rec.next();
                assertThat(g.data()).hasSize(TOOL_SIZE);
                assertThat(g.srcQp()).isEqualTo(server.queuePairNumber());
            }
            ExternalProcess.Result r = udaddy.await(Duration.ofSeconds(30));
            System.out.println("DatagramIT: udaddy server: " + r);
            assertThat(r.timedOut()).as("udaddy server: %s", r).isFalse();
            assertThat(r.exitCode()).as("udaddy server: %s", r).isZero();
            await(ep.close());
        }
    }

    @Test
    void twoMembersOfOneGroup() throws Exception {
        InetAddress group = InetAddresses.forString("239.1.2.3");
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        Recorder c = new Recorder();
        try (RdmaCm cm = RdmaCm.open()) {
            DatagramEndpoint epA = cm.openDatagram(addr(SoftRoce.SERVER_ADDR, 0), DatagramOptions.defaults(), a);
            DatagramEndpoint epB = cm.openDatagram(addr(SoftRoce.CLIENT_ADDR, 0), DatagramOptions.defaults(), b);
            DatagramEndpoint epC = cm.openDatagram(addr(SoftRoce.SERVER_ADDR, 0), DatagramOptions.defaults(), c);
            Membership ma = await(epA.join(group, JoinOptions.defaults().withNoLoopback(true)));
            Membership mb = await(epB.join(group));
            Membership mc = await(epC.join(group));
            assertThat(ma.queuePairNumber()).isEqualTo(0xFFFFFF);
            System.out.printf("DatagramIT: joined %s, qkey 0x%x%n", group, ma.qkey());
            assertThat(CmFixtures.failureOf(epA.join(group))).as("a second join of the same group")
                    .isInstanceOf(RuntimeException.class);

            byte[] hello = pattern(200, 7);
            Got atB = sendUntilReceived(epA, ma, hello, b);
            assertThat(atB.data()).isEqualTo(hello);
            assertThat(atB.srcQp()).isEqualTo(epA.queuePairNumber());
            assertThat(atB.toGroup()).isTrue();
            Got atC = c.next();
            assertThat(atC.data()).isEqualTo(hello);
            Thread.sleep(300);
            assertThat(a.got).as("noLoopback: the sender gets none of its own datagrams").isEmpty();

            // B leaves: C still receives, B no longer.
            await(mb.leave());
            assertThat(mb.isLeft()).isTrue();
            c.got.clear();
            b.got.clear();
            byte[] second = pattern(64, 9);
            sendUntilReceived(epA, ma, second, c);
            Thread.sleep(300);
            // Re-sent copies of the first datagram may still arrive; the second must not.
            assertThat(b.got).as("a member that left").noneMatch(g -> Arrays.equals(g.data(), second));

            // The sender's own loopback arrives when it did not ask otherwise.
            c.got.clear();
            byte[] third = pattern(10, 3);
            Got own = sendUntilReceived(epC, mc, third, c);
            assertThat(own.srcQp()).isEqualTo(epC.queuePairNumber());

            await(epA.close());
            await(epB.close());
            await(epC.close());
            assertThat(ma.isLeft()).as("close leaves the groups").isTrue();
        }
    }

    /** UD is lossy and a join may take effect a moment later: re-send until {@code to} gets one. */
    static Got sendUntilReceived(DatagramEndpoint ep, org.rdmacm4j.cm.core.DatagramTarget target, byte[] data,
                                 Recorder to) throws Exception {
        long deadline = System.nanoTime() + CmFixtures.WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            await(ep.send(target, data));
            Got g = to.got.poll(200, TimeUnit.MILLISECONDS);
            if (g != null) {
                return g;
            }
        }
        throw new AssertionError("no datagram arrived within " + CmFixtures.WAIT);
    }

    @Test
    void mckeySenderWithUsAsReceiver() throws Exception {
        mckeySendsToOurMember(InetAddresses.forString("239.1.2.4"));
    }

    @Test
    void mckeyReceiverWithUsAsSender() throws Exception {
        weSendToAnMckeyReceiver(InetAddresses.forString("239.1.2.5"), JoinOptions.defaults());
    }

    /** {@code mckey -s [extra]} sends its 10 datagrams to {@code group}; our full member gets them all. */
    static void mckeySendsToOurMember(InetAddress group, String... extra) throws Exception {
        Recorder rec = new Recorder();
        try (RdmaCm cm = RdmaCm.open()) {
            DatagramEndpoint ep = cm.openDatagram(addr(SoftRoce.SERVER_ADDR, 0), DatagramOptions.defaults(), rec);
            await(ep.join(group));
            List<String> command = new ArrayList<>(List.of("mckey", "-m", group.getHostAddress(),
                    "-b", SoftRoce.CLIENT_ADDR, "-s"));
            command.addAll(List.of(extra));
            ExternalProcess.Result r = ExternalProcess.run(Duration.ofSeconds(60), command.toArray(String[]::new));
            System.out.println("mckey sender: " + r);
            assertThat(r.timedOut()).isFalse();
            assertThat(r.exitCode()).as("mckey sender: %s", r).isZero();
            List<Got> all = new ArrayList<>();
            for (int i = 0; i < TOOL_MESSAGES; i++) {
                all.add(rec.next());
            }
            assertThat(all).allSatisfy(g -> {
                assertThat(g.data()).hasSize(TOOL_SIZE);
                assertThat(g.toGroup()).isTrue();
                assertThat(g.imm()).isEqualTo(g.srcQp());
            });
            await(ep.close());
        }
    }

    /**
     * An mckey receiver (full member) on {@code group} gets its 10 datagrams from our member joined
     * with {@code options}. Returns what our member received meanwhile.
     */
    static Recorder weSendToAnMckeyReceiver(InetAddress group, JoinOptions options) throws Exception {
        Recorder rec = new Recorder();
        try (ExternalProcess mckey = ExternalProcess.start("mckey", "-m", group.getHostAddress(),
                "-b", SoftRoce.SERVER_ADDR);
             RdmaCm cm = RdmaCm.open()) {
            DatagramEndpoint ep = cm.openDatagram(addr(SoftRoce.CLIENT_ADDR, 0), DatagramOptions.defaults(), rec);
            Membership m = await(ep.join(group, options));
            long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
            int sent = 0;
            // mckey joins, sleeps 3 s, then waits for 10 datagrams: keep sending until it is done.
            while (mckey.isAlive() && System.nanoTime() < deadline) {
                await(ep.send(m, pattern(TOOL_SIZE, sent++)));
                Thread.sleep(50);
            }
            ExternalProcess.Result r = mckey.await(Duration.ofSeconds(5));
            System.out.println("mckey receiver after " + sent + " datagrams from " + options + ": " + r);
            assertThat(r.timedOut()).isFalse();
            assertThat(r.exitCode()).as("mckey receiver: %s", r).isZero();
            await(ep.close());
        }
        return rec;
    }
}
