package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.PeerUnresponsiveException;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.it.support.ReliabilityReport;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.ibv.QpAttributes;
import org.rdmacm4j.verbs.ibv.QpState;

/**
 * Dead-peer detection over real rxe. The silent peer: the server side's queue pair is moved to
 * RESET behind the library's back. rxe then drops every request for it without a NAK and the CM
 * sends nothing, so to the client the peer vanished exactly as a dead host or a cut link looks on
 * the wire (a killed process is not silent: its kernel sends a DREQ). Idle connections with a
 * keepalive must fail with {@link PeerUnresponsiveException} within {@code (misses + 1) * period};
 * an idle one without must not notice at all; one with traffic must fail through the QP's retry
 * exhaustion. Everything is freed, and new connections work afterwards.
 */
@SoftRoceTest
class KeepaliveIT {
    /** TCG scheduling slack on top of the configured bound (the poller's tick, the callback hop). */
    private static final Duration SLACK = Duration.ofMillis(1500);

    /** One client connection of the scenario and what happened to it. */
    private static final class Subject {
        final String name;
        final KeepaliveOptions keepalive;
        final CmTuning tuning;
        /** Sends one more message once the peer is silent (a connection with traffic). */
        final boolean sendsAfterSilence;
        CompletableFuture<Void> pending;
        final CompletableFuture<RdmaCmException> error = new CompletableFuture<>();
        volatile long errorAt;
        /** When this connection's peer fell silent (its QP reached RESET). */
        long silencedAt;
        RdmaConnection client;
        RdmaConnection server;
        CheckedTraffic.Receiver receiver;
        final CheckedTraffic.Sender sender = new CheckedTraffic.Sender();

        Subject(String name, KeepaliveOptions keepalive, int retryCount, boolean sendsAfterSilence) {
            this.name = name;
            this.keepalive = keepalive;
            this.tuning = new CmTuning(16, 16, retryCount, 7);
            this.sendsAfterSilence = sendsAfterSilence;
        }

        Subject(String name, KeepaliveOptions keepalive) {
            this(name, keepalive, 7, false);
        }

        ConnectionHandler handler() {
            return new ConnectionHandler() {
                @Override
                public void onError(RdmaConnection c, RdmaCmException e) {
                    errorAt = System.nanoTime();
                    error.complete(e);
                }
            };
        }
    }

    private record Accepted(RdmaConnection connection, CheckedTraffic.Receiver receiver) { }

    @Test
    void aSilentPeerIsDetectedByTheKeepaliveWithinItsBoundAndByTrafficThroughRetryExhaustion() throws Exception {
        var accepted = new LinkedBlockingQueue<Accepted>();
        try (RdmaCm serverCm = RdmaCm.open(); RdmaCm clientCm = RdmaCm.open()) {
            RdmaListener l = serverCm.listen(CmFixtures.server(0), ListenOptions.defaults(), r -> {
                var receiver = new CheckedTraffic.Receiver();
                r.accept(receiver).thenAccept(c -> accepted.add(new Accepted(c, receiver)));
            });
            List<Subject> subjects = List.of(
                    new Subject("keepalive 50 ms x 2", new KeepaliveOptions(Duration.ofMillis(50), 2)),
                    new Subject("keepalive 200 ms x 3", new KeepaliveOptions(Duration.ofMillis(200), 3)),
                    new Subject("keepalive 500 ms x 2", new KeepaliveOptions(Duration.ofMillis(500), 2)),
                    new Subject("keepalive 200 ms x 3, traffic, retry_cnt 7", new KeepaliveOptions(Duration.ofMillis(200),
                            3), 7, true),
                    new Subject("no keepalive, traffic, retry_cnt 2", null, 2, true),
                    new Subject("no keepalive, idle", null));
            for (Subject s : subjects) {
                s.client = await(clientCm.connect(CmFixtures.target(l),
                        ConnectOptions.builder().keepalive(s.keepalive).tuning(s.tuning).build(), s.handler()));
                Accepted a = accepted.poll(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(a).as("accepted %s", s.name).isNotNull();
                s.server = a.connection();
                s.receiver = a.receiver();
            }

            var qpa = subjects.get(4).client.raw().queuePair().query(
                    org.rdmacm4j.verbs.ibv.QpAttrMask.TIMEOUT | org.rdmacm4j.verbs.ibv.QpAttrMask.RETRY_CNT
                            | org.rdmacm4j.verbs.ibv.QpAttrMask.RNR_RETRY);
            System.out.println("FIGURE keepalive: client QP timeout " + qpa.timeout() + ", retry_cnt " + qpa.retryCount()
                    + ", rnr_retry " + qpa.rnrRetry());
            // Healthy: checked traffic flows while the probes run, and nobody is declared dead.
            for (Subject s : subjects) {
                s.sender.send(s.client, 200, 256);
            }
            for (Subject s : subjects) {
                for (CompletableFuture<Void> f : s.sender.sends) {
                    await(f);
                }
                org.awaitility.Awaitility.await().atMost(CmFixtures.WAIT)
                        .until(() -> s.receiver.inOrder.get() == s.sender.sent());
                assertThat(s.receiver.outOfOrder.get() + s.receiver.corrupted.get()).as(s.receiver.describe()).isZero();
            }
            Thread.sleep(1000);   // 20 periods of the 50 ms keepalive, idle
            for (Subject s : subjects) {
                assertThat(s.error).as("%s: no false alarm on a live peer", s.name).isNotDone();
                assertThat(s.client.isClosed()).isFalse();
            }

            // The peer falls silent.
            for (Subject s : subjects) {
                // RESET, not ERR: rxe drops every request for a QP in RESET without a NAK, as it does in
                // ERR, but RESET discards the server's posted receives without flushing them, so the
                // server side notices nothing, as a dead host would not. (In ERR its receives would
                // flush, cm-core would rightly call that a failure, and its abort's DREQ would tell the
                // client: the peer would not be silent.)
                s.server.raw().queuePair().modify(new QpAttributes().state(QpState.RESET));
                s.silencedAt = System.nanoTime();
            }
            for (Subject s : subjects) {
                if (s.sendsAfterSilence) {
                    s.pending = s.client.send(CheckedTraffic.message(s.sender.sent(), 256));
                }
            }
            Subject traffic = subjects.get(4);
            Subject idle = subjects.get(5);

            StringBuilder table = new StringBuilder("| connection | bound | detected after | error |\n|---|---|---|---|\n");
            List<String> figures = new ArrayList<>();
            for (Subject s : subjects.subList(0, 4)) {
                RdmaCmException e = s.error.get(30, TimeUnit.SECONDS);
                double ms = (s.errorAt - s.silencedAt) / 1e6;
                Duration bound = s.keepalive.worstDetection();
                assertThat(e).as(s.name).isInstanceOf(PeerUnresponsiveException.class);
                assertThat(ms).as("%s detected within (misses + 1) x period + slack", s.name)
                        .isLessThanOrEqualTo(bound.plus(SLACK).toMillis());
                // Not before (misses - 1) periods: the verdict needs that many unanswered ticks after a
                // probe that was posted at the latest just before the silence.
                assertThat(ms).as("%s not before (misses - 1) x period", s.name)
                        .isGreaterThanOrEqualTo(s.keepalive.period().multipliedBy(s.keepalive.misses() - 1L).toMillis());
                String status = ((PeerUnresponsiveException) e).completionStatus();
                figures.add(String.format(Locale.ROOT, "%s: %.0f ms (bound %d ms, %s)", s.name, ms, bound.toMillis(),
                        status == null ? "misses" : status));
                System.out.println("FIGURE keepalive: " + figures.getLast());
                if (s.pending != null) {
                    // The send stuck behind the silence is cut short by the teardown, and says why.
                    Throwable t = CmFixtures.failureOf(s.pending);
                    assertThat(t).isInstanceOf(RdmaCmException.class).hasCauseInstanceOf(PeerUnresponsiveException.class);
                }
                table.append(String.format(Locale.ROOT, "| %s | %d ms | %.0f ms | PeerUnresponsiveException (%s) |%n",
                        s.name, bound.toMillis(), ms, status == null ? "probe unanswered" : status));
            }

            RdmaCmException e;
            try {
                e = traffic.error.get(40, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException t) {
                throw new AssertionError("no retry exhaustion within 40 s: " + traffic.client + "; pending send "
                        + traffic.pending + "; QP state " + traffic.client.raw().queuePair().state());
            }
            double retryMs = (traffic.errorAt - traffic.silencedAt) / 1e6;
            assertThat(e).isInstanceOf(PeerUnresponsiveException.class);
            assertThat(((PeerUnresponsiveException) e).completionStatus()).isEqualTo("IBV_WC_RETRY_EXC_ERR");
            Throwable sendFailure = CmFixtures.failureOf(traffic.pending);
            assertThat(sendFailure).as("the send in flight fails typed").isInstanceOf(RdmaCmException.class);
            figures.add(String.format(Locale.ROOT, "%s: %.0f ms (IBV_WC_RETRY_EXC_ERR)", traffic.name, retryMs));
            assertThat(sendFailure).isInstanceOf(PeerUnresponsiveException.class);
            System.out.println("FIGURE keepalive: " + figures.getLast());
            table.append(String.format(Locale.ROOT, "| %s | the QP's retries: (2 + 1) x %.1f s | %.0f ms | "
                    + "PeerUnresponsiveException (IBV_WC_RETRY_EXC_ERR), also to the send in flight |%n",
                    traffic.name, 4.096e-6 * (1L << qpa.timeout()), retryMs));

            // Without a keepalive and without traffic, nothing notices: the point of the feature.
            double idleFor = (System.nanoTime() - idle.silencedAt) / 1e6;
            assertThat(idle.error).as("an idle connection without keepalive cannot notice").isNotDone();
            assertThat(idle.client.isClosed()).isFalse();
            figures.add(String.format(Locale.ROOT, "%s: nothing noticed in %.0f ms", idle.name, idleFor));
            System.out.println("FIGURE keepalive: " + figures.getLast());
            table.append(String.format(Locale.ROOT, "| %s | none | not noticed after %.0f ms (as expected) | none |%n",
                    idle.name, idleFor));

            // Every failed connection tore itself down; the rest is closed by us. Bounded, nothing left.
            for (Subject s : subjects.subList(0, 5)) {
                await(s.client.closeFuture());
            }
            await(idle.client.abort());
            for (Subject s : subjects) {
                await(s.server.abort());
                // Everything acknowledged before the silence arrived exactly once, in order, intact.
                assertThat(s.receiver.inOrder.get()).as(s.name).isEqualTo(200);
                assertThat(s.receiver.outOfOrder.get() + s.receiver.corrupted.get()).as(s.name).isZero();
            }

            // New connections work afterwards, keepalive and all.
            Subject fresh = new Subject("after", new KeepaliveOptions(Duration.ofMillis(50), 2));
            fresh.client = await(clientCm.connect(CmFixtures.target(l),
                    ConnectOptions.builder().keepalive(fresh.keepalive).build(), fresh.handler()));
            Accepted a = accepted.poll(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(a).isNotNull();
            fresh.sender.send(fresh.client, 100, 64);
            for (CompletableFuture<Void> f : fresh.sender.sends) {
                await(f);
            }
            org.awaitility.Awaitility.await().atMost(CmFixtures.WAIT).until(() -> a.receiver().inOrder.get() == 100);
            Thread.sleep(300);
            assertThat(fresh.error).isNotDone();
            await(fresh.client.close());
            await(a.connection().closeFuture());
            await(l.close());

            ReliabilityReport.write("keepalive", "## Dead peer: a silent peer (one guest)\n\n"
                    + "Five idle connections between two `RdmaCm`s in one guest, each first carrying 200 checked "
                    + "messages (sequence number and CRC-32); then the server side of every one is moved to RESET "
                    + "behind the library's back, so rxe drops every request without a NAK, its receives vanish "
                    + "without a completion, and the CM sends nothing: the peer is silent, as a dead host or a cut link is on the wire. Two connections "
                    + "then send a message; the others stay idle. The QPs' local ACK timeout is " + qpa.timeout()
                    + " (4.096 us x 2^" + qpa.timeout() + "). Note that rxe treats `retry_cnt` 7 (CmTuning's "
                    + "default) as *retry forever* (`rxe_comp.c`), so on rxe a send to a silent peer never fails "
                    + "by itself with the default tuning: only the keepalive notices. `KeepaliveIT`.\n\n" + table
                    + "\nData: 200 of 200 messages sent before the fault delivered on every connection, in order, "
                    + "none corrupted (data lost = 0). Resources at rest after the class: checked by the suite "
                    + "(`rdma resource show`). A new connection (with keepalive) works afterwards.\n");
        }
    }
}
