package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * A callback executor that runs each task where it is given ({@code Runnable::run}) over the real
 * stack: the shape of a C event loop (docs/api.md). Connections are driven from callbacks only:
 * each client end closed from its connect future's stage, each next connection started from the
 * server end's onClosed. Every handler callback of both ends, and every stage attached on the
 * dispatcher, runs on the dispatcher thread; nothing is left in the kernel afterwards.
 */
@SoftRoceTest
class DirectCallbackExecutorIT {
    private static final int CONNECTIONS = 20;

    @Test
    void connectionsDrivenFromTheirOwnCallbacksOnTheDispatcher() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> all = new CompletableFuture<>();
        AtomicInteger serverEndsClosed = new AtomicInteger();
        AtomicInteger endsClosed = new AtomicInteger();   // both ends: the test ends when all 2N are closed
        try (RdmaCm cm = RdmaCm.builder().callbackExecutor(Runnable::run).build()) {
            var chain = new Object() {
                RdmaListener listener;

                final ConnectionHandler client = new ThreadRecorder("client", seen, this::closed);
                final ConnectionHandler server = new ThreadRecorder("server", seen, () -> {
                    next(serverEndsClosed.incrementAndGet());
                    closed();
                });

                void closed() {
                    if (endsClosed.incrementAndGet() == 2 * CONNECTIONS) {
                        all.complete(null);
                    }
                }

                void next(int i) {
                    if (i == CONNECTIONS) {
                        return;
                    }
                    // From connection 1 on this runs on the dispatcher (in onClosed), so the stage is
                    // attached before the connect can complete: it runs on the dispatcher too.
                    // Connection 0's is attached by the test thread and runs on whichever thread
                    // completes the future, or on the test thread if it was done first: not recorded.
                    cm.connect(CmFixtures.target(listener), client).whenComplete((c, e) -> {
                        if (e != null) {
                            all.completeExceptionally(e);
                            return;
                        }
                        if (i > 0) {
                            seen.add("client connected stage " + Thread.currentThread().getName());
                        }
                        c.close();
                    });
                }
            };
            chain.listener = cm.listen(CmFixtures.server(0), ListenOptions.defaults().withDecisionOnDispatcher(true),
                    r -> r.accept(chain.server));
            chain.next(0);
            all.get(60, TimeUnit.SECONDS);
            CmFixtures.await(chain.listener.close());
            assertThat(serverEndsClosed).hasValue(CONNECTIONS);
            assertThat(cm.statistics().callbackFailures()).isZero();
        }
        // 20 × (client established, client closed, server established, server closed) + 19 stages
        assertThat(seen).hasSize(4 * CONNECTIONS + CONNECTIONS - 1)
                .allSatisfy(t -> assertThat(t).contains("rdmacm4j-dispatcher"));
    }

    /** One end's handler: records "END established/closed THREAD", then runs {@code afterClosed}. */
    private static final class ThreadRecorder implements ConnectionHandler {
        private final String end;
        private final List<String> seen;
        private final Runnable afterClosed;

        ThreadRecorder(String end, List<String> seen, Runnable afterClosed) {
            this.end = end;
            this.seen = seen;
            this.afterClosed = afterClosed;
        }

        @Override
        public void onEstablished(RdmaConnection c) {
            seen.add(end + " established " + Thread.currentThread().getName());
        }

        @Override
        public void onClosed(RdmaConnection c) {
            seen.add(end + " closed " + Thread.currentThread().getName());
            afterClosed.run();
        }
    }
}
