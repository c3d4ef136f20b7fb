package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;
import static org.rdmacm4j.it.core.CmFixtures.failureOf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AddressResolutionException;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectTimeoutException;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.HistoryEntry;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RequestExpiredException;
import org.rdmacm4j.cm.core.RouteResolutionException;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.it.support.SoftRoceTest;

/** Connects that cannot succeed: no listener, no route, no decision. Each fails typed and in time. */
@SoftRoceTest
class ConnectFailuresIT {

    /** A port nobody listens on (rdma_cm ports are the IP port space; a just-closed TCP port is free). */
    private static int unusedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, CmFixtures.serverHost())) {
            return s.getLocalPort();
        }
    }

    private static long count(List<HistoryEntry> h, String input) {
        return h.stream().filter(e -> e.input().startsWith(input)).count();
    }

    @Test
    void noListenerIsRetriedPerPolicyThenFailsNoListener() throws Exception {
        try (RdmaCm cm = RdmaCm.builder().historySize(500).build()) {
            RetryPolicy three = new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(100), 2,
                    true, true, true, true, true);
            long t0 = System.nanoTime();
            Throwable t = failureOf(cm.connect(CmFixtures.server(unusedPort()),
                    ConnectOptions.builder().retries(three).timeout(Duration.ofSeconds(20)).build(),
                    ConnectionHandler.none()));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(t).isInstanceOf(ConnectionRejectedException.class);
            var r = (ConnectionRejectedException) t;
            assertThat(r.reason()).isEqualTo(ConnectionRejectedException.Reason.NO_LISTENER);
            assertThat(count(r.history(), "REJECTED(status 8)")).as("first attempt + 3 retries: %s", r.history())
                    .isEqualTo(4);
            assertThat(cm.statistics().connectsFailed())
                    .containsExactly(java.util.Map.entry("ConnectionRejectedException/NO_LISTENER", 1L));
            System.out.printf("no listener, 3 retries (20, 40, 80 ms backoff): failed after %d ms%n", ms);
            assertThat(ms).isGreaterThanOrEqualTo(140);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> cm.statistics().liveIds() == 0);
        }
    }

    @Test
    void noListenerWithRetryNeverFailsAtOnce() throws Exception {
        try (RdmaCm cm = RdmaCm.builder().historySize(500).build()) {
            long t0 = System.nanoTime();
            Throwable t = failureOf(cm.connect(CmFixtures.server(unusedPort()),
                    ConnectOptions.builder().retries(RetryPolicy.never()).build(), ConnectionHandler.none()));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            var r = (ConnectionRejectedException) t;
            assertThat(r.reason()).isEqualTo(ConnectionRejectedException.Reason.NO_LISTENER);
            assertThat(count(r.history(), "REJECTED(status 8)")).as("%s", r.history()).isEqualTo(1);
            System.out.printf("no listener, never retry: failed after %d ms%n", ms);
        }
    }

    /** 198.51.100.7 (TEST-NET-2) is outside the rig's subnet and the guest has no route to it. */
    @Test
    void unroutableAddressFailsTypedWithinTheDeadline() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            long t0 = System.nanoTime();
            Throwable t = failureOf(cm.connect(new InetSocketAddress(InetAddress.getByName("198.51.100.7"), 7471),
                    ConnectOptions.builder().timeout(Duration.ofSeconds(5)).retries(RetryPolicy.never()).build(),
                    ConnectionHandler.none()));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("unroutable: %s after %d ms%n", t.getClass().getSimpleName(), ms);
            assertThat(t).isInstanceOfAny(AddressResolutionException.class, RouteResolutionException.class,
                    ConnectTimeoutException.class);
            assertThat(ms).isLessThan(5_000 + 2_000);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> cm.statistics().liveIds() == 0);
        }
    }

    /** With the default policy (address errors retried 5 times) it fails once retries are spent, within the deadline. */
    @Test
    void unroutableAddressWithRetriesFailsOnceTheRetriesAreSpentWithinTheDeadline() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            long t0 = System.nanoTime();
            Throwable t = failureOf(cm.connect(new InetSocketAddress(InetAddress.getByName("198.51.100.7"), 7471),
                    ConnectOptions.builder().timeout(Duration.ofSeconds(3)).build(), ConnectionHandler.none()));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("unroutable with retries: %s after %d ms%n", t.getClass().getSimpleName(), ms);
            assertThat(t).isInstanceOfAny(AddressResolutionException.class, RouteResolutionException.class,
                    ConnectTimeoutException.class);
            assertThat(ms).isLessThan(3_000 + 2_000);
        }
    }

    /**
     * The client gives up at its 1 s connect deadline and destroys its id. Measured on the guest
     * (6.1, rxe): no rdma_cm event reaches the server's request id for that (no REJECTED, nothing
     * dropped by the dispatcher either), so the request expires at the listener's own decision
     * deadline (3 s here), and a late accept fails with the expiry.
     */
    @Test
    void undecidedRequestTimesTheConnectOutAndTheRequestExpires() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            var requests = new CompletableFuture<ConnectionRequest>();
            RdmaListener l = cm.listen(CmFixtures.server(0),
                    ListenOptions.defaults().withDecisionTimeout(Duration.ofSeconds(3)), requests::complete);
            long t0 = System.nanoTime();
            Throwable t = failureOf(cm.connect(CmFixtures.target(l),
                    ConnectOptions.builder().timeout(Duration.ofSeconds(1)).build(), ConnectionHandler.none()));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("undecided: %s after %d ms: %s%n", t.getClass().getSimpleName(), ms, t.getMessage());
            assertThat(t).isInstanceOf(ConnectTimeoutException.class);
            assertThat(ms).isBetween(900L, 4_000L);
            ConnectionRequest r = await(requests);
            RequestExpiredException why = await(r.expired());
            long expiredMs = (System.nanoTime() - t0) / 1_000_000;
            Throwable late = failureOf(r.accept(ConnectionHandler.none()));
            System.out.printf("undecided: request expired after %d ms: %s%nlate accept: %s%n", expiredMs,
                    why.getMessage(), late);
            assertThat(late).isInstanceOf(org.rdmacm4j.cm.core.RdmaCmException.class);
            assertThat(late).isInstanceOf(RequestExpiredException.class);
            assertThat(expiredMs).as("expired by the 3 s decision deadline at the latest").isLessThan(6_000);
            await(l.close());
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> cm.statistics().liveIds() == 0);
        }
    }

    @Test
    void requestNotDecidedBeforeTheDecisionTimeoutIsRejectedAndExpires() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            var requests = new CompletableFuture<ConnectionRequest>();
            RdmaListener l = cm.listen(CmFixtures.server(0),
                    ListenOptions.defaults().withDecisionTimeout(Duration.ofSeconds(1)), requests::complete);
            long t0 = System.nanoTime();
            Throwable t = failureOf(cm.connect(CmFixtures.target(l),
                    ConnectOptions.builder().timeout(Duration.ofSeconds(15)).retries(RetryPolicy.never()).build(),
                    ConnectionHandler.none()));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("decision timeout: %s after %d ms: %s%n", t.getClass().getSimpleName(), ms, t.getMessage());
            assertThat(t).isInstanceOf(ConnectionRejectedException.class);
            assertThat(ms).isBetween(900L, 10_000L);
            assertThat(await(await(requests).expired())).isNotNull();
            await(l.close());
        }
    }
}
