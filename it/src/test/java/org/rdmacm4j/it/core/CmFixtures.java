package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.it.support.SoftRoce;

/** Shared pieces of the cm-core guest tests (not a test class itself). */
final class CmFixtures {
    static final Duration WAIT = Duration.ofSeconds(30);

    private CmFixtures() { }

    static InetAddress serverHost() {
        try {
            return InetAddress.getByName(SoftRoce.SERVER_ADDR);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    static InetSocketAddress server(int port) {
        return new InetSocketAddress(serverHost(), port);
    }

    static InetSocketAddress target(RdmaListener l) {
        return server(l.localAddress().getPort());
    }

    /** rping has no connect retry on our side to lean on: wait until the kernel shows its listening cm_id. */
    static void awaitToolListening(org.rdmacm4j.it.support.ExternalProcess tool, int port) throws InterruptedException {
        org.rdmacm4j.it.support.CmIdTable.awaitListening(tool, SoftRoce.SERVER_ADDR, port, WAIT);
    }

    /** Waits {@link #WAIT} for {@code f}; unwraps the cause of a failure. */
    static <T> T await(CompletableFuture<T> f) throws Exception {
        try {
            return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError("future did not complete within " + WAIT + ": " + f);
        }
    }

    /** The failure of {@code f} (which must fail within {@link #WAIT}). */
    static Throwable failureOf(CompletableFuture<?> f) throws InterruptedException {
        try {
            Object v = f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("expected a failure, got " + v);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.CancellationException e) {
            return e;
        } catch (TimeoutException e) {
            throw new AssertionError("future did not fail within " + WAIT + ": " + f);
        }
    }

    /** A listener accepting every request with {@code handler}; accepted connections land in {@link #accepted}. */
    static final class AcceptingServer implements AutoCloseable {
        final RdmaListener listener;
        final LinkedBlockingQueue<RdmaConnection> accepted = new LinkedBlockingQueue<>();
        final List<Throwable> acceptFailures = new CopyOnWriteArrayList<>();

        AcceptingServer(RdmaCm cm, ListenOptions options, ConnectionHandler handler, AcceptOptions acceptOptions) {
            this.listener = cm.listen(server(0), options, request -> request.accept(handler, acceptOptions)
                    .whenComplete((c, e) -> {
                        if (e != null) {
                            acceptFailures.add(e);
                        } else {
                            accepted.add(c);
                        }
                    }));
        }

        AcceptingServer(RdmaCm cm) {
            this(cm, ListenOptions.defaults(), ConnectionHandler.none(), AcceptOptions.defaults());
        }

        InetSocketAddress target() {
            return CmFixtures.target(listener);
        }

        RdmaConnection nextAccepted() throws InterruptedException {
            RdmaConnection c = accepted.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (c == null) {
                throw new AssertionError("no connection accepted within " + WAIT + "; accept failures: " + acceptFailures);
            }
            return c;
        }

        /**
         * Waits until {@code requests} requests have each been accepted or have failed, and returns
         * the accepted ones. The one failure allowed is the passive end's "peer disconnected before the
         * connection was established": a client that closes or aborts as soon as its connect completes
         * sends its DREQ right behind its RTU, and the server's kernel may handle the DREQ first
         * (ib_cm runs received MADs on a workqueue that does not keep their order; the RTU is then
         * dropped), so rdma_cm reports DISCONNECTED to an id that never saw ESTABLISHED. Any other
         * failure, or a request never settled, fails the test.
         */
        List<RdmaConnection> settle(int requests) {
            try {
                Awaitility.await().atMost(WAIT)
                        .until(() -> accepted.size() + acceptFailures.size() >= requests);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(requests + " requests not settled within " + WAIT + ": "
                        + accepted.size() + " accepted, failures " + acceptFailures, e);
            }
            assertThat(acceptFailures).allSatisfy(f -> assertThat(f)
                    .isInstanceOf(ConnectionFailedException.class)
                    .hasMessageEndingWith("the peer disconnected before the connection was established"));
            assertThat(accepted.size() + acceptFailures.size()).isEqualTo(requests);
            return List.copyOf(accepted);
        }

        @Override
        public void close() throws Exception {
            await(listener.close());
        }
    }

    /** Records callbacks as "tag:event" strings, in arrival order. */
    static final class Recorder implements ConnectionHandler {
        final String tag;
        final List<String> events;
        final List<RdmaCmException> errors = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> closed = new CompletableFuture<>();
        final CompletableFuture<Void> disconnected = new CompletableFuture<>();
        final CompletableFuture<RdmaCmException> error = new CompletableFuture<>();

        Recorder(String tag, List<String> events) {
            this.tag = tag;
            this.events = events;
        }

        Recorder(String tag) {
            this(tag, new CopyOnWriteArrayList<>());
        }

        List<String> mine() {
            return events.stream().filter(e -> e.startsWith(tag + ":")).toList();
        }

        @Override
        public void onEstablished(RdmaConnection c) {
            events.add(tag + ":established");
        }

        @Override
        public void onDisconnected(RdmaConnection c) {
            events.add(tag + ":disconnected");
            disconnected.complete(null);
        }

        @Override
        public void onError(RdmaConnection c, RdmaCmException e) {
            events.add(tag + ":error");
            errors.add(e);
            error.complete(e);
        }

        @Override
        public void onClosed(RdmaConnection c) {
            events.add(tag + ":closed");
            closed.complete(null);
        }
    }
}
