package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;
import static org.rdmacm4j.it.core.CmFixtures.failureOf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.it.support.SoftRoceTest;

/** The pull form, closing a listener with requests in flight, and the pending-request bound. */
@SoftRoceTest
class ListenerIT {

    private static final ConnectOptions NO_RETRY = ConnectOptions.builder().retries(RetryPolicy.never())
            .timeout(Duration.ofSeconds(20)).build();

    @Test
    void closingAListenerRejectsQueuedRequestsButLeavesHandedOverOnesAlone() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults());
            List<CompletableFuture<RdmaConnection>> clients = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                clients.add(cm.connect(CmFixtures.target(l), NO_RETRY, ConnectionHandler.none()));
            }
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> cm.statistics().requestsReceived() == 3);
            ConnectionRequest taken = await(l.next());
            await(l.close());
            assertThat(l.isClosed()).isTrue();
            assertThat(failureOf(l.next())).isInstanceOf(ConnectionClosedException.class);

            // the one handed to the application is still ours to accept
            RdmaConnection srv = await(taken.accept(ConnectionHandler.none()));
            int established = 0;
            Map<String, Integer> failures = new TreeMap<>();
            for (var f : clients) {
                try {
                    RdmaConnection c = f.get(30, java.util.concurrent.TimeUnit.SECONDS);
                    established++;
                    await(c.close());
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable t = e.getCause();
                    String key = t instanceof ConnectionRejectedException r ? "rejected/" + r.reason()
                            : t.getClass().getSimpleName();
                    failures.merge(key, 1, Integer::sum);
                }
            }
            System.out.println("listener closed with 2 queued + 1 taken: established " + established + ", failed " + failures);
            assertThat(established).isEqualTo(1);
            assertThat(failures.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(2);
            assertThat(failures.keySet()).allMatch(k -> k.startsWith("rejected/"));
            await(srv.closeFuture());
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> cm.statistics().liveIds() == 0);
        }
    }

    @Test
    void nextWaitsForARequest() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults());
            CompletableFuture<ConnectionRequest> next = l.next();
            Thread.sleep(200);
            assertThat(next).isNotDone();
            var client = cm.connect(CmFixtures.target(l), ConnectionHandler.none());
            RdmaConnection s = await(await(next).accept(ConnectionHandler.none()));
            RdmaConnection c = await(client);
            await(s.close());
            await(c.closeFuture());
            CompletableFuture<ConnectionRequest> orphan = l.next();
            await(l.close());
            assertThat(failureOf(orphan)).isInstanceOf(ConnectionClosedException.class);
        }
    }

    @Test
    void requestsBeyondMaxPendingAreRejectedBusyAfterTheirRetries() throws Exception {
        try (RdmaCm cm = RdmaCm.builder().historySize(200).build()) {
            List<ConnectionRequest> held = new CopyOnWriteArrayList<>();
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults().withMaxPendingRequests(2)
                    .withDecisionTimeout(Duration.ofSeconds(60)), held::add);
            RetryPolicy twice = new RetryPolicy(2, Duration.ofMillis(50), Duration.ofMillis(100), 2,
                    true, true, true, true, true);
            ConnectOptions opts = ConnectOptions.builder().retries(twice).timeout(Duration.ofSeconds(30)).build();
            List<CompletableFuture<RdmaConnection>> clients = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                clients.add(cm.connect(CmFixtures.target(l), opts, ConnectionHandler.none()));
            }
            List<ConnectionRejectedException> busy = new ArrayList<>();
            Awaitility.await().atMost(Duration.ofSeconds(60))
                    .until(() -> clients.stream().filter(CompletableFuture::isDone).count() == 3);
            for (var f : clients) {
                if (f.isDone()) {
                    busy.add((ConnectionRejectedException) failureOf(f));
                }
            }
            assertThat(held).hasSize(2);
            assertThat(busy).hasSize(3).allMatch(e -> e.reason() == ConnectionRejectedException.Reason.BUSY);
            for (var e : busy) {
                long attempts = e.history().stream().filter(h -> h.input().startsWith("REJECTED")).count();
                assertThat(attempts).as("first attempt and 2 retries: %s", e.history()).isEqualTo(3);
            }
            assertThat(cm.statistics().connectsFailed()).containsEntry("ConnectionRejectedException/BUSY", 3L);
            // now the application decides the held ones: both connect
            List<RdmaConnection> servers = new ArrayList<>();
            for (ConnectionRequest r : held) {
                servers.add(await(r.accept(ConnectionHandler.none())));
            }
            for (var f : clients) {
                if (!f.isCompletedExceptionally()) {
                    await(await(f).close());
                }
            }
            for (RdmaConnection s : servers) {
                await(s.closeFuture());
            }
            await(l.close());
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> cm.statistics().liveIds() == 0);
        }
    }
}
