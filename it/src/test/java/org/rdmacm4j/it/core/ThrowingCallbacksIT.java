package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;
import static org.rdmacm4j.it.core.CmFixtures.failureOf;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.it.support.SoftRoceTest;

/** User callbacks that throw are counted and contained: the dispatcher and later connects carry on. */
@SoftRoceTest
class ThrowingCallbacksIT {

    /** Throws from every callback. */
    private static final class Bomb implements ConnectionHandler {
        final AtomicInteger calls = new AtomicInteger();

        private RuntimeException boom(String where) {
            calls.incrementAndGet();
            return new IllegalStateException("test bomb in " + where);
        }

        @Override
        public void onEstablished(RdmaConnection c) {
            throw boom("onEstablished");
        }

        @Override
        public void onDisconnected(RdmaConnection c) {
            throw boom("onDisconnected");
        }

        @Override
        public void onClosed(RdmaConnection c) {
            throw boom("onClosed");
        }
    }

    @Test
    void throwingRequestHandlerRejectsThatRequestOnly() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            AtomicInteger n = new AtomicInteger();
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(), r -> {
                if (n.getAndIncrement() % 2 == 0) {
                    throw new IllegalStateException("test bomb in onRequest");
                }
                r.accept(ConnectionHandler.none());
            });
            for (int i = 0; i < 2; i++) {
                Throwable t = failureOf(cm.connect(CmFixtures.target(l),
                        ConnectOptions.builder().retries(RetryPolicy.never()).build(), ConnectionHandler.none()));
                assertThat(t).isInstanceOf(ConnectionRejectedException.class);
                RdmaConnection c = await(cm.connect(CmFixtures.target(l), ConnectionHandler.none()));
                assertThat(c.state()).isEqualTo("ESTABLISHED");
                await(c.close());
            }
            assertThat(cm.statistics().callbackFailures()).isEqualTo(2);
            assertThat(cm.isBroken()).isFalse();
            await(l.close());
        }
    }

    @Test
    void throwingConnectionHandlersDoNotStopTheDispatcher() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            Bomb serverBomb = new Bomb();
            Bomb clientBomb = new Bomb();
            try (var server = new CmFixtures.AcceptingServer(cm, ListenOptions.defaults(), serverBomb,
                    org.rdmacm4j.cm.core.AcceptOptions.defaults())) {
                for (int i = 0; i < 3; i++) {
                    RdmaConnection c = await(cm.connect(server.target(), ConnectOptions.defaults(), clientBomb));
                    RdmaConnection s = server.nextAccepted();
                    await(c.close());
                    await(s.closeFuture());
                }
                // client: established + closed; server: established + disconnected + closed; 3 times
                Awaitility.await().atMost(Duration.ofSeconds(10))
                        .until(() -> clientBomb.calls.get() == 6 && serverBomb.calls.get() == 9);
                Awaitility.await().atMost(Duration.ofSeconds(10))
                        .until(() -> cm.statistics().callbackFailures() == 15);
                // and a well-behaved connection afterwards is unaffected
                var rec = new CmFixtures.Recorder("late");
                RdmaConnection c = await(cm.connect(server.target(), ConnectOptions.defaults(), rec));
                await(c.close());
                await(rec.closed);
                assertThat(rec.mine()).containsExactly("late:established", "late:closed");
                assertThat(cm.isBroken()).isFalse();
            }
        }
    }
}
