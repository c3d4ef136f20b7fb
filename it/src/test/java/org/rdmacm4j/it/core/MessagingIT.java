package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;
import org.rdmacm4j.it.support.PortCounters;
import org.rdmacm4j.it.support.SoftRoceTest;

/** Two-sided messages over real rxe: echo byte for byte, and credit flow control under a slow receiver. */
@SoftRoceTest
class MessagingIT {

    /** Echoes every message back on the poller thread (send copies before it returns). */
    private static final ConnectionHandler ECHO = new ConnectionHandler() {
        @Override
        public void onMessage(RdmaConnection c, MemorySegment message) {
            c.send(message);
        }
    };

    @Test
    void echoOfEverySizeFromZeroToTheMaximumByteForByte() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(), r -> r.accept(ECHO));
            var received = new CopyOnWriteArrayList<byte[]>();
            ConnectionHandler client = new ConnectionHandler() {
                @Override
                public void onMessage(RdmaConnection c, MemorySegment message) {
                    received.add(message.toArray(ValueLayout.JAVA_BYTE));
                }
            };
            RdmaConnection c = await(cm.connect(CmFixtures.target(l), ConnectOptions.defaults(), client));
            assertThat(c.maxMessageSize()).isEqualTo(MessagingOptions.defaults().maxMessageSize());

            List<byte[]> sent = new ArrayList<>();
            for (int size : new int[] {0, 1, 2, 3, 7, 8, 63, 64, 65, 1000, 2048, 4095, 4096}) {
                byte[] m = new byte[size];
                for (int i = 0; i < size; i++) {
                    m[i] = (byte) (size * 31 + i);
                }
                sent.add(m);
                await(c.send(m));
            }
            org.awaitility.Awaitility.await().atMost(CmFixtures.WAIT).until(() -> received.size() == sent.size());
            for (int i = 0; i < sent.size(); i++) {
                assertThat(received.get(i)).as("message %d", i).isEqualTo(sent.get(i));
            }
            assertThatThrownBy(() -> c.send(new byte[4097])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("4096");
            await(c.close());
            await(l.close());
        }
    }

    @Test
    void aFastSenderAndASlowReceiverLoseNothingAndKeepTheOrder() throws Exception {
        int count = 100_000;
        MessagingOptions small = new MessagingOptions(64, 8, count);
        var next = new AtomicLong();
        var outOfOrder = new AtomicLong();
        var done = new CompletableFuture<Void>();
        ConnectionHandler slow = new ConnectionHandler() {
            @Override
            public void onMessage(RdmaConnection c, MemorySegment message) {
                long seq = message.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                if (seq != next.getAndIncrement()) {
                    outOfOrder.incrementAndGet();
                }
                if (seq % 10_000 == 0) {
                    try {
                        Thread.sleep(20);   // a receiver that falls behind now and then
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                if (next.get() == count) {
                    done.complete(null);
                }
            }
        };
        try (RdmaCm cm = RdmaCm.open()) {
            var serverSide = new CompletableFuture<RdmaConnection>();
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(),
                    r -> r.accept(slow, AcceptOptions.defaults().messaging(small)).thenAccept(serverSide::complete));
            RdmaConnection c = await(cm.connect(CmFixtures.target(l),
                    ConnectOptions.builder().messaging(small).build(), ConnectionHandler.none()));
            // Both ends are on rxe0: an RNR NAK would show in both counters (rnr_retry 7 would hide it otherwise).
            long rnrSentBefore = PortCounters.read("send_rnr_err");
            long rnrReceivedBefore = PortCounters.read("rcvd_rnr_err");
            MemorySegment m = MemorySegment.ofArray(new byte[16]);
            CompletableFuture<Void> last = null;
            for (long i = 0; i < count; i++) {
                m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                m.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, ~i);
                last = c.send(m);
            }
            // Bounded by progress, not by a guess at TCG's speed: fail if the receiver stalls for 15 s.
            long seen = -1;
            long stalledSince = System.nanoTime();
            long startNanos = System.nanoTime();
            while (!done.isDone()) {
                Thread.sleep(200);
                long now = next.get();
                if (now != seen) {
                    seen = now;
                    stalledSince = System.nanoTime();
                } else if (System.nanoTime() - stalledSince > 15_000_000_000L) {
                    throw new AssertionError("the receiver stalled at message " + now + " of " + count
                            + "; sender " + c + "; receiver " + serverSide.getNow(null));
                }
                assertThat(System.nanoTime() - startNanos).as("100,000 messages within 100 s").isLessThan(100_000_000_000L);
            }
            System.out.printf("FIGURE %d 16-byte messages, 8 credits, slow receiver: %.1f s%n", count,
                    (System.nanoTime() - startNanos) / 1e9);
            await(last);
            assertThat(next.get()).isEqualTo(count);
            assertThat(outOfOrder.get()).isZero();
            assertThat(PortCounters.read("send_rnr_err") - rnrSentBefore).as("RNR NAKs sent by rxe0").isZero();
            assertThat(PortCounters.read("rcvd_rnr_err") - rnrReceivedBefore).as("RNR NAKs received by rxe0").isZero();
            await(c.close());
            await(l.close());
        }
    }

    @Test
    void aRawConnectionHasNoMessageChannel() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(),
                    r -> r.accept(ConnectionHandler.none()));
            RdmaConnection c = await(cm.connect(CmFixtures.target(l), ConnectOptions.builder().raw().build(),
                    ConnectionHandler.none()));
            assertThat(c.maxMessageSize()).isZero();
            assertThatThrownBy(() -> c.send(new byte[1])).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no message channel");
            await(c.close());
            await(l.close());
        }
    }

    /**
     * The control for the RNR assertions above: a raw SEND to a peer with no receive posted, with
     * rnr_retry 0 on both sides, is answered by an RNR NAK that both counters see, and fails with
     * RNR_RETRY_EXC_ERR. Without this, "no RNR NAK" could pass on counters that never move.
     */
    @Test
    void theRnrCountersSeeASendToAPeerWithoutReceives() throws Exception {
        CmTuning noRnrRetry = new CmTuning(1, 1, 7, 0);
        long rnrSentBefore = PortCounters.read("send_rnr_err");
        long rnrReceivedBefore = PortCounters.read("rcvd_rnr_err");
        var status = new CompletableFuture<WcStatus>();
        ConnectionHandler sender = new ConnectionHandler() {
            @Override
            public void onCompletion(RdmaConnection c, WorkCompletions wc, int i) {
                status.complete(wc.status(i));
            }
        };
        try (RdmaCm cm = RdmaCm.open(); SendRequests sq = SendRequests.allocate(1, 1)) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults().withTuning(noRnrRetry),
                    r -> r.accept(ConnectionHandler.none(), AcceptOptions.defaults().raw()));   // posts no receive
            RdmaConnection c = await(cm.connect(CmFixtures.target(l),
                    ConnectOptions.builder().raw().tuning(noRnrRetry).build(), sender));
            sq.set(0, 1, WrOpcode.SEND, SendFlags.SIGNALED);   // zero bytes: no memory region needed
            c.raw().queuePair().postSend(sq, 1);
            assertThat(await(status)).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
            assertThat(PortCounters.read("send_rnr_err") - rnrSentBefore).as("RNR NAKs sent by rxe0").isPositive();
            assertThat(PortCounters.read("rcvd_rnr_err") - rnrReceivedBefore).as("RNR NAKs received by rxe0").isPositive();
            await(c.close());
            await(l.close());
        }
    }
}
