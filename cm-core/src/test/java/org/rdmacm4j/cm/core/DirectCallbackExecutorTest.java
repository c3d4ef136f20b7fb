package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort;

/**
 * A callback executor that runs each task where it is given ({@code Runnable::run}), docs/api.md
 * "Where callbacks and future completions run": the application's choice to run its callbacks and
 * its futures' dependent stages on the dispatcher, as a C program reacts inside its event loop.
 * What the dispatcher completes runs there, in the connection's order; connections can be driven
 * from those callbacks alone (each started from the stage that saw the one before it closed); a
 * blocking rdmacm4j call there is refused, not a deadlock, and the dispatcher goes on.
 */
class DirectCallbackExecutorTest {
    private static final java.net.InetSocketAddress SERVER = OverFakePort.SERVER;
    private static final Executor DIRECT = Runnable::run;

    private final FakeCmPort port = new FakeCmPort();
    private final RdmaCm cm = RdmaCm.builder().port(port).callbackExecutor(DIRECT)
            .closeTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void closeAndCheckThePort() {
        cm.close();
        assertThat(port.isClosed()).isTrue();
        assertThat(port.violations()).isEmpty();
    }

    @Test
    void callbacksAndDependentStagesRunOnTheDispatcherInTheConnectionsOrder() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onEstablished(RdmaConnection c) {
                seen.add("established " + Thread.currentThread().getName());
            }

            @Override
            public void onClosed(RdmaConnection c) {
                seen.add("closed " + Thread.currentThread().getName());
            }
        };
        CompletableFuture<String> closedOn = new CompletableFuture<>();
        // The fake port would establish at once; held inside rdma_connect (on the dispatcher) until
        // the stages are attached, so none runs on this thread for a future already done.
        CountDownLatch attached = new CountDownLatch(1);
        port.onCall("connect", id -> awaitQuietly(attached));
        cm.connect(SERVER, handler)
                .thenCompose(c -> {
                    seen.add("connected stage " + Thread.currentThread().getName());
                    return c.close();
                })
                .whenComplete((v, e) -> closedOn.complete(Thread.currentThread().getName()));
        attached.countDown();
        assertThat(closedOn.get(5, TimeUnit.SECONDS)).startsWith("rdmacm4j-dispatcher");
        // onClosed may come after the close future's stage (CI, c27dccd): wait for it
        eventually("onClosed called", () -> seen.size() == 3);
        assertThat(seen).hasSize(3).allSatisfy(s -> assertThat(s).contains("rdmacm4j-dispatcher"));
        // the connect future completes before onEstablished is called, as on any executor (EarlyPostTest)
        assertThat(seen.get(0)).startsWith("connected stage");
        assertThat(seen.get(1)).startsWith("established");
        assertThat(seen.get(2)).startsWith("closed");
        assertThat(cm.statistics().callbackFailures()).isZero();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(5, TimeUnit.SECONDS)) {
                throw new AssertionError("the test never attached its stages");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void connectionsDrivenFromTheirOwnCallbacksAllComplete() throws Exception {
        int count = 50;
        AtomicInteger closed = new AtomicInteger();
        CompletableFuture<Void> all = new CompletableFuture<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        new Object() {
            void next(int i) {
                if (i == count) {
                    all.complete(null);
                    return;
                }
                cm.connect(SERVER, ConnectionHandler.none())
                        .thenCompose(RdmaConnection::close)
                        .whenComplete((v, e) -> {
                            threads.add(Thread.currentThread().getName());
                            if (e != null) {
                                all.completeExceptionally(e);
                            } else {
                                closed.incrementAndGet();
                                next(i + 1);
                            }
                        });
            }
        }.next(0);
        all.get(30, TimeUnit.SECONDS);
        assertThat(closed).hasValue(count);
        // A stage attached to a future already done runs on the attaching thread (this one, for the
        // first connections, which the fake port completes at once); all others on the dispatcher.
        // Never on a callback worker: the executor runs each task where it is given.
        String me = Thread.currentThread().getName();
        assertThat(threads).allSatisfy(t -> assertThat(t).matches(n -> n.equals(me) || n.startsWith("rdmacm4j-dispatcher")));
        assertThat(threads.getLast()).startsWith("rdmacm4j-dispatcher");
        assertThat(port.count("connect")).isEqualTo(count);
        eventually("every id destroyed", () -> port.count("destroyId") == count);
    }

    @Test
    void aBlockingCallInACallbackIsRefusedAndTheDispatcherGoesOn() throws Exception {
        // An rdmacm4j future done already: the refusal comes before any wait, so a bug here fails, not hangs.
        CompletableFuture<RdmaConnection> first = cm.connect(SERVER, ConnectionHandler.none());
        RdmaConnection c = first.get(5, TimeUnit.SECONDS);
        List<Throwable> refused = new CopyOnWriteArrayList<>();
        CompletableFuture<String> ranOn = new CompletableFuture<>();
        // A handler's callback is always given by the dispatcher, so with this executor it runs there.
        ConnectionHandler blocking = new ConnectionHandler() {
            @Override
            public void onEstablished(RdmaConnection connection) {
                OverFakePort.recordRefusals(refused, first::join, () -> connection.close().join());
                ranOn.complete(Thread.currentThread().getName());
            }
        };
        RdmaConnection second = cm.connect(SERVER, blocking).get(5, TimeUnit.SECONDS);
        assertThat(ranOn.get(5, TimeUnit.SECONDS)).startsWith("rdmacm4j-dispatcher");
        assertThat(refused).hasSize(2).allSatisfy(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deadlock"));
        assertThat(cm.isBroken()).isFalse();
        second.closeFuture().get(5, TimeUnit.SECONDS);   // the refused join's close() was still asked for
        c.close().get(5, TimeUnit.SECONDS);
        RdmaConnection again = cm.connect(SERVER, ConnectionHandler.none()).get(5, TimeUnit.SECONDS);
        again.close().get(5, TimeUnit.SECONDS);
    }
}
