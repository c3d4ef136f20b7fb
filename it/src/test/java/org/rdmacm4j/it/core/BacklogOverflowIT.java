package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.it.support.ReliabilityReport;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * A listener's backlog overflow: a listener with a small backlog and a small bound on undecided
 * requests, flooded with concurrent connects while its application decides slowly (one request
 * every {@link #DECIDE_EVERY}, and it forgets every third one).
 *
 * <p>Two bounds could apply. {@code rdma_listen}'s backlog is the kernel's, and on IB/RoCE the
 * kernel does not use it at all (cma.c passes it to iw_cm only: iWARP's TCP listen backlog; ib_cm
 * has no queue of its own, every REQ becomes a CONNECT_REQUEST event). The bound that holds on rxe
 * is the library's: beyond {@code maxPendingRequests} requests handed to the application and not
 * yet decided, a request is rejected at once with a BUSY reason; a request the application holds
 * past its {@code decisionTimeout} is rejected with a decision-timeout reason. So every excess
 * connector gets a typed, prompt answer: never a hang, never a silent REQ timeout.
 */
@SoftRoceTest
class BacklogOverflowIT {
    private static final int CONNECTORS = 48;
    private static final int BACKLOG = 4;
    private static final int MAX_PENDING = 8;
    private static final Duration DECISION_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration DECIDE_EVERY = Duration.ofMillis(100);
    /** Every connector's answer must arrive within this (a decision timeout plus TCG's slack). */
    private static final Duration BOUND = Duration.ofSeconds(15);

    @Test
    void excessConnectorsAreRejectedTypedAndPromptlyAndTheListenerKeepsServing() throws Exception {
        try (RdmaCm serverCm = RdmaCm.open(); RdmaCm clientCm = RdmaCm.open()) {
            var undecided = new LinkedBlockingQueue<ConnectionRequest>();
            var accepted = new LinkedBlockingQueue<RdmaConnection>();
            var forgotten = new AtomicInteger();
            RdmaListener l = serverCm.listen(CmFixtures.server(0), ListenOptions.defaults().withBacklog(BACKLOG)
                    .withMaxPendingRequests(MAX_PENDING).withDecisionTimeout(DECISION_TIMEOUT), undecided::add);
            // The slow application: one decision per DECIDE_EVERY; every third request it takes is forgotten.
            Thread decider = Thread.ofPlatform().name("slow-decider").daemon().start(() -> {
                int taken = 0;
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        ConnectionRequest r = undecided.take();
                        if (++taken % 3 == 0) {
                            forgotten.incrementAndGet();
                        } else {
                            r.accept(ConnectionHandler.none()).thenAccept(accepted::add);
                        }
                        Thread.sleep(DECIDE_EVERY.toMillis());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                ConnectOptions once = ConnectOptions.builder().retries(RetryPolicy.never()).timeout(BOUND).build();
                long start = System.nanoTime();
                List<CompletableFuture<RdmaConnection>> connects = new ArrayList<>();
                List<Long> answeredAt = new ArrayList<>();
                for (int i = 0; i < CONNECTORS; i++) {
                    connects.add(clientCm.connect(CmFixtures.target(l), once, ConnectionHandler.none()));
                }
                Map<String, Integer> outcomes = new TreeMap<>();
                Map<String, Long> slowest = new TreeMap<>();
                Map<String, String> example = new TreeMap<>();
                List<RdmaConnection> clients = new ArrayList<>();
                for (CompletableFuture<RdmaConnection> f : connects) {
                    Throwable t = null;
                    try {
                        clients.add(f.get(BOUND.toMillis() + 5_000, TimeUnit.MILLISECONDS));
                    } catch (java.util.concurrent.ExecutionException e) {
                        t = e.getCause();
                    } catch (java.util.concurrent.TimeoutException e) {
                        throw new AssertionError("a connector got no answer within " + BOUND.plusSeconds(5), e);
                    }
                    long ms = (System.nanoTime() - start) / 1_000_000;
                    answeredAt.add(ms);
                    String key;
                    if (t == null) {
                        key = "accepted";
                    } else {
                        assertThat(t).as("every excess connector is rejected, typed")
                                .isInstanceOf(ConnectionRejectedException.class);
                        ConnectionRejectedException r = (ConnectionRejectedException) t;
                        assertThat(r.reason()).isIn(ConnectionRejectedException.Reason.BUSY,
                                ConnectionRejectedException.Reason.REFUSED);
                        key = "ConnectionRejectedException (" + r.reason() + ")";
                        example.putIfAbsent(key, r.getMessage().lines().findFirst().orElse("")
                                .replaceAll("^.*?: rejected", "rejected"));
                    }
                    outcomes.merge(key, 1, Integer::sum);
                    slowest.merge(key, ms, Math::max);
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.println("FIGURE backlog overflow: " + outcomes + " slowest " + slowest + " ms; " + example);

                int busy = outcomes.getOrDefault("ConnectionRejectedException (BUSY)", 0);
                int expired = outcomes.getOrDefault("ConnectionRejectedException (REFUSED)", 0);
                int ok = outcomes.getOrDefault("accepted", 0);
                assertThat(busy + expired + ok).isEqualTo(CONNECTORS);
                assertThat(busy).as("the flood overflowed the bound on undecided requests").isPositive();
                assertThat(ok).as("the slow application still accepted some").isPositive();
                assertThat(expired).as("every forgotten request was rejected at its decision timeout")
                        .isEqualTo(forgotten.get());
                org.awaitility.Awaitility.await().atMost(CmFixtures.WAIT).until(() -> accepted.size() == ok);

                // The listener keeps serving: a new connection (retrying BUSY, as a client should) is accepted.
                RdmaConnection after = await(clientCm.connect(CmFixtures.target(l), ConnectOptions.defaults(),
                        ConnectionHandler.none()));
                RdmaConnection afterServer = accepted.poll(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(afterServer).as("accepted after the flood").isNotNull();
                clients.add(after);

                for (RdmaConnection c : clients) {
                    await(c.close());
                }
                for (RdmaConnection s : accepted) {
                    await(s.closeFuture());
                }
                await(afterServer.closeFuture());
                await(l.close());
                // Nothing left behind: no request, no id (the kernel's counts are the suite's check).
                org.awaitility.Awaitility.await().atMost(CmFixtures.WAIT).until(() ->
                        serverCm.statistics().liveIds() == 0 && clientCm.statistics().liveIds() == 0);

                StringBuilder rows = new StringBuilder();
                outcomes.forEach((k, n) -> rows.append(String.format(Locale.ROOT, "| %s | %d | %d ms | %s |%n", k, n,
                        slowest.get(k), k.equals("accepted") ? "-" : example.get(k).replace("|", "\\|"))));
                ReliabilityReport.write("backlog-overflow", "## A listener's backlog overflow (one guest)\n\n"
                        + CONNECTORS + " connects at once (no retries) to a listener with backlog " + BACKLOG
                        + ", at most " + MAX_PENDING + " undecided requests and a decision timeout of "
                        + DECISION_TIMEOUT.toSeconds() + " s, whose application decides one request every "
                        + DECIDE_EVERY.toMillis() + " ms and forgets every third. On RoCE the kernel ignores "
                        + "`rdma_listen`'s backlog (cma.c hands it to iw_cm only), so the bound that holds is the "
                        + "library's `maxPendingRequests`: beyond it a request is rejected at once as BUSY (an "
                        + "rdmacm4j client retries that per its policy); a request held past the decision timeout is "
                        + "rejected with that reason. `BacklogOverflowIT`.\n\n"
                        + "| what the connector got | connectors | answered within | the connector's error |\n"
                        + "|---|---|---|---|\n" + rows
                        + String.format(Locale.ROOT, "%nAll %d answered in %.1f s; none hung. Afterwards the "
                                + "listener accepted a new connection; every id closed (`liveIds` 0 on both "
                                + "`RdmaCm`s) and `rdma resource show` back at rest.%n", CONNECTORS, seconds));
            } finally {
                decider.interrupt();
                decider.join(5_000);
            }
        }
    }
}
