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
 * stack: the shape of a C event loop (docs/api.md). Connections are driven from their own stages
 * only: each started from the stage that saw the one before it close at both ends; every stage and
 * callback of both ends runs on the dispatcher thread; nothing is left in the kernel afterwards.
 */
@SoftRoceTest
class DirectCallbackExecutorIT {
    private static final int CONNECTIONS = 20;

    @Test
    void connectionsDrivenFromTheirOwnStagesOnTheDispatcher() throws Exception {
        List<String> threads = new CopyOnWriteArrayList<>();
        Thread testThread = Thread.currentThread();
        CompletableFuture<Void> all = new CompletableFuture<>();
        AtomicInteger finished = new AtomicInteger();
        try (RdmaCm cm = RdmaCm.builder().callbackExecutor(Runnable::run).build()) {
            var serverEnds = new java.util.concurrent.LinkedBlockingQueue<CompletableFuture<RdmaConnection>>();
            ConnectionHandler server = new ConnectionHandler() {
                @Override
                public void onEstablished(RdmaConnection c) {
                    threads.add("server established " + Thread.currentThread().getName());
                }

                @Override
                public void onClosed(RdmaConnection c) {
                    threads.add("server closed " + Thread.currentThread().getName());
                }
            };
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults().withDecisionOnDispatcher(true),
                    r -> serverEnds.add(r.accept(server)));
            var chain = new Object() {
                void next(int i) {
                    if (i == CONNECTIONS) {
                        all.complete(null);
                        return;
                    }
                    cm.connect(CmFixtures.target(l), ConnectionHandler.none()).thenCompose(c -> {
                        // Connection 0's stage is attached by the test thread, and runs there if that
                        // thread was descheduled past the connection's establishment: allowed, and
                        // the one stage that may run anywhere but the dispatcher.
                        if (!(i == 0 && Thread.currentThread() == testThread)) {
                            threads.add("client connected " + Thread.currentThread().getName());
                        }
                        // the server end: its accept future completes on the dispatcher just after ESTABLISHED
                        CompletableFuture<RdmaConnection> s = serverEnds.poll();
                        return s.thenCompose(end -> c.close().thenCombine(end.closeFuture(), (a, b) -> b));
                    }).whenComplete((v, e) -> {
                        threads.add("both closed " + Thread.currentThread().getName());
                        if (e != null) {
                            all.completeExceptionally(e);
                        } else {
                            finished.incrementAndGet();
                            next(i + 1);
                        }
                    });
                }
            };
            chain.next(0);
            all.get(60, TimeUnit.SECONDS);
            CmFixtures.await(l.close());
            assertThat(finished).hasValue(CONNECTIONS);
            assertThat(cm.statistics().callbackFailures()).isZero();
        }
        // 20 × (client connected, both closed, server established, server closed), less connection
        // 0's first stage if it ran on the test thread
        assertThat(threads).hasSizeBetween(4 * CONNECTIONS - 1, 4 * CONNECTIONS)
                .allSatisfy(t -> assertThat(t).contains("rdmacm4j-dispatcher"));
    }
}
