package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.it.support.SoftRoceTest;

/** Every way a connection ends, with the handler callbacks each side hears, in order. */
@SoftRoceTest
class CloseIT {

    private record Pair(RdmaConnection client, RdmaConnection server, CmFixtures.Recorder c, CmFixtures.Recorder s) { }

    private static Pair connect(RdmaCm cm, CmFixtures.AcceptingServer server, CmFixtures.Recorder c,
                                CmFixtures.Recorder s) throws Exception {
        RdmaConnection client = await(cm.connect(server.target(), ConnectOptions.defaults(), c));
        RdmaConnection srv = server.nextAccepted();
        return new Pair(client, srv, c, s);
    }

    private void scenario(String name, BiFunction<RdmaConnection, RdmaConnection, List<CompletableFuture<Void>>> close,
                          List<String> clientEvents, List<String> serverEvents) throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        var c = new CmFixtures.Recorder("client", events);
        var s = new CmFixtures.Recorder("server", events);
        try (RdmaCm cm = RdmaCm.open();
             var server = new CmFixtures.AcceptingServer(cm, ListenOptions.defaults(), s, AcceptOptions.defaults())) {
            Pair p = connect(cm, server, c, s);
            // warm: one more cycle so the measured one is not the JIT's first
            long t0 = System.nanoTime();
            List<CompletableFuture<Void>> closes = close.apply(p.client(), p.server());
            for (CompletableFuture<Void> f : closes) {
                await(f);
            }
            await(p.client().closeFuture());
            await(p.server().closeFuture());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            await(c.closed);
            await(s.closed);
            System.out.printf("%s: both sides closed after %d ms; events %s%n", name, ms, events);
            assertThat(p.client().isClosed()).isTrue();
            assertThat(p.server().isClosed()).isTrue();
            assertThat(p.client().state()).isEqualTo("CLOSED");
            assertThat(c.mine()).containsExactlyElementsOf(clientEvents);
            assertThat(s.mine()).containsExactlyElementsOf(serverEvents);
            assertThat(ms).as("%s should not wait for a teardown deadline", name).isLessThan(5_000);
            assertThat(cm.statistics().disconnects()).isEqualTo(2);
        }
    }

    @Test
    void gracefulCloseFromTheClient() throws Exception {
        scenario("client close", (c, s) -> List.of(c.close()),
                List.of("client:established", "client:closed"),
                List.of("server:established", "server:disconnected", "server:closed"));
    }

    @Test
    void gracefulCloseFromTheServer() throws Exception {
        scenario("server close", (c, s) -> List.of(s.close()),
                List.of("client:established", "client:disconnected", "client:closed"),
                List.of("server:established", "server:closed"));
    }

    /** Crossing disconnects: each side's DREQ is answered, neither waits for its 1 s disconnect deadline. */
    @Test
    void gracefulCloseFromBothSidesAtOnce() throws Exception {
        for (int i = 0; i < 3; i++) {
            List<String> events = new CopyOnWriteArrayList<>();
            var c = new CmFixtures.Recorder("client", events);
            var s = new CmFixtures.Recorder("server", events);
            try (RdmaCm cm = RdmaCm.open();
                 var server = new CmFixtures.AcceptingServer(cm, ListenOptions.defaults(), s, AcceptOptions.defaults())) {
                Pair p = connect(cm, server, c, s);
                long t0 = System.nanoTime();
                var fc = p.client().close();
                var fs = p.server().close();
                await(fc);
                long clientMs = (System.nanoTime() - t0) / 1_000_000;
                await(fs);
                long bothMs = (System.nanoTime() - t0) / 1_000_000;
                await(c.closed);
                await(s.closed);
                System.out.printf("crossing close #%d: client %d ms, both %d ms; %s%nclient history %s%nserver history %s%n",
                        i, clientMs, bothMs, events, p.client().history(), p.server().history());
                assertThat(c.mine()).startsWith("client:established").endsWith("client:closed");
                assertThat(s.mine()).startsWith("server:established").endsWith("server:closed");
                assertThat(p.client().history().stream().map(h -> h.input()).toList())
                        .as("no disconnect deadline on the client").doesNotContain("timer DISCONNECT");
                assertThat(p.server().history().stream().map(h -> h.input()).toList())
                        .as("no disconnect deadline on the server").doesNotContain("timer DISCONNECT");
                assertThat(bothMs).isLessThan(5_000);
            }
        }
    }

    @Test
    void abortFromTheClient() throws Exception {
        scenario("client abort", (c, s) -> List.of(c.abort()),
                List.of("client:established", "client:closed"),
                List.of("server:established", "server:disconnected", "server:closed"));
    }

    @Test
    void abortBothSides() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        var c = new CmFixtures.Recorder("client", events);
        var s = new CmFixtures.Recorder("server", events);
        try (RdmaCm cm = RdmaCm.open();
             var server = new CmFixtures.AcceptingServer(cm, ListenOptions.defaults(), s, AcceptOptions.defaults())) {
            Pair p = connect(cm, server, c, s);
            long t0 = System.nanoTime();
            var fc = p.client().abort();
            var fs = p.server().abort();
            await(fc);
            await(fs);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            await(c.closed);
            await(s.closed);
            System.out.printf("abort both: %d ms; %s%n", ms, events);
            assertThat(c.mine()).startsWith("client:established").endsWith("client:closed");
            assertThat(s.mine()).startsWith("server:established").endsWith("server:closed");
            assertThat(c.errors).isEmpty();
            assertThat(s.errors).isEmpty();
            assertThat(ms).isLessThan(5_000);
        }
    }

    @Test
    void closeTwiceIsIdempotentAndRdmaCmCloseClosesLiveConnections() throws Exception {
        var c = new CmFixtures.Recorder("client");
        var s = new CmFixtures.Recorder("server");
        RdmaConnection client;
        RdmaConnection srv;
        try (RdmaCm cm = RdmaCm.open()) {
            var server = new CmFixtures.AcceptingServer(cm, ListenOptions.defaults(), s, AcceptOptions.defaults());
            Pair p = connect(cm, server, c, s);
            client = p.client();
            srv = p.server();
        }   // cm.close() with a live pair and a live listener
        assertThat(client.isClosed()).isTrue();
        assertThat(srv.isClosed()).isTrue();
        assertThat(c.closed).isDone();
        assertThat(s.closed).isDone();
        await(client.close());   // no-op now
        await(client.abort());
    }

    @Test
    void liveIdsReturnToZero() throws Exception {
        try (RdmaCm cm = RdmaCm.open(); var server = new CmFixtures.AcceptingServer(cm)) {
            Pair p = connect(cm, server, new CmFixtures.Recorder("c"), new CmFixtures.Recorder("s"));
            assertThat(cm.statistics().liveIds()).isEqualTo(3);
            await(p.client().close());
            await(p.server().closeFuture());
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> cm.statistics().liveIds() == 1);
        }
    }
}
