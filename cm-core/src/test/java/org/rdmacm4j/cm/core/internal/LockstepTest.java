package org.rdmacm4j.cm.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectTimeoutException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.StepBarrier;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.cm.statemachine.Transport;

/**
 * Step barriers on the dispatcher with the fake port and a fake clock: every step waits for every
 * party, a party that fails, is cancelled or times out leaves without the others waiting for it, and
 * nothing is leaked or stepped out of the machines' contract (the fake port records violations).
 */
class LockstepTest {
    static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);

    final AtomicLong now = new AtomicLong(1_000_000_000L);
    final FakeCmPort port = new FakeCmPort();
    final ExecutorService callbacks = Executors.newCachedThreadPool();
    final Dispatcher dispatcher = new Dispatcher(port, callbacks, now::get,
            new Dispatcher.Config(32, Transport.ROCE, Duration.ofSeconds(5)));

    LockstepTest() {
        port.autoResolve = false;   // the test delivers ADDR_RESOLVED / ROUTE_RESOLVED itself
        dispatcher.start();
    }

    @AfterEach
    void tearDown() {
        dispatcher.shutdown(false, Duration.ofSeconds(5));
        callbacks.shutdownNow();
        assertThat(port.violations()).isEmpty();
    }

    ConnectOptions options(StepBarrier b) {
        return ConnectOptions.builder().raw().stepBarrier(b).retries(RetryPolicy.never())
                .timeout(Duration.ofSeconds(2)).build();
    }

    List<CompletableFuture<RdmaConnection>> connect(int n, ConnectOptions o) {
        List<CompletableFuture<RdmaConnection>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fs.add(dispatcher.connect(SERVER, o, new Recorder()));
        }
        port.awaitCall("createId", n);
        port.awaitIdle();
        return fs;
    }

    void deliver(FakeId id, CmEventType type) {
        port.cmEvent(id, type);
        port.wakeup();
        port.awaitIdle();
    }

    @Test
    void everyStepWaitsForEveryParty() throws Exception {
        StepBarrier b = new StepBarrier(3);
        List<CompletableFuture<RdmaConnection>> fs = connect(2, options(b));
        assertThat(port.count("resolveAddr")).as("no resolve before all 3 ids exist").isZero();
        fs.addAll(connect(1, options(b)));
        eventually("3 resolves", () -> port.count("resolveAddr") == 3);
        List<FakeId> ids = port.ids();

        deliver(ids.get(0), CmEventType.ADDR_RESOLVED);
        deliver(ids.get(1), CmEventType.ADDR_RESOLVED);
        assertThat(port.count("createQp") + port.count("resolveRoute")).as("held at the route step").isZero();
        deliver(ids.get(2), CmEventType.ADDR_RESOLVED);
        assertThat(port.count("resolveRoute")).isEqualTo(3);
        assertThat(port.count("createQp")).isEqualTo(3);

        deliver(ids.get(2), CmEventType.ROUTE_RESOLVED);
        deliver(ids.get(0), CmEventType.ROUTE_RESOLVED);
        assertThat(port.count("connect")).as("held at the connect step").isZero();
        deliver(ids.get(1), CmEventType.ROUTE_RESOLVED);
        assertThat(port.count("connect")).isEqualTo(3);
        for (CompletableFuture<RdmaConnection> f : fs) {
            f.get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
        }
        // Each id's own calls are in the machine's usual order; the barrier only delayed them.
        assertThat(port.names(ids.get(1))).startsWith("createId", "resolveAddr", "createQp", "resolveRoute", "connect");
        assertThat(port.liveIds()).isEmpty();
    }

    @Test
    void aPartyThatFailsLeavesAndTheOthersGoOn() throws Exception {
        StepBarrier b = new StepBarrier(3);
        List<CompletableFuture<RdmaConnection>> fs = connect(3, options(b));
        List<FakeId> ids = port.ids();
        deliver(ids.get(0), CmEventType.ADDR_RESOLVED);
        deliver(ids.get(1), CmEventType.ADDR_RESOLVED);
        assertThat(port.count("resolveRoute")).isZero();

        port.cmEvent(ids.get(2), CmEventType.ADDR_ERROR, -110, new EventParams.None());
        port.wakeup();

        eventually("the two others resolve their route", () -> port.count("resolveRoute") == 2);
        assertThat(fs.get(2)).failsWithin(Duration.ofSeconds(5));
        eventually("the failed id is destroyed", () -> ids.get(2).destroyed());
        port.autoResolve = true;
        deliver(ids.get(0), CmEventType.ROUTE_RESOLVED);
        deliver(ids.get(1), CmEventType.ROUTE_RESOLVED);
        fs.get(0).get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
        fs.get(1).get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
        assertThat(port.liveIds()).isEmpty();
    }

    @Test
    void cancelWhileHeldStepsWhatWasHeldThenCancelsAndFreesEverything() throws Exception {
        StepBarrier b = new StepBarrier(2);
        List<CompletableFuture<RdmaConnection>> fs = connect(2, options(b));
        List<FakeId> ids = port.ids();
        deliver(ids.get(0), CmEventType.ADDR_RESOLVED);   // held: its QP is not created yet
        assertThat(port.names(ids.get(0))).containsExactly("createId", "resolveAddr");

        fs.get(0).cancel(true);

        eventually("cancelled id destroyed", () -> ids.get(0).destroyed());
        // The held ADDR_RESOLVED was stepped first (it happened first), then the cancel tore it down in order.
        assertThat(port.names(ids.get(0))).containsSubsequence("createQp", "resolveRoute", "destroyQp", "destroyCq",
                "destroyCompChannel", "destroyId");
        assertThat(fs.get(0)).isCancelled();
        // The other party does not wait for the one that left.
        deliver(ids.get(1), CmEventType.ADDR_RESOLVED);
        assertThat(port.names(ids.get(1))).endsWith("createQp", "resolveRoute");
        port.autoResolve = true;
        deliver(ids.get(1), CmEventType.ROUTE_RESOLVED);
        fs.get(1).get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
        assertThat(port.liveIds()).isEmpty();
    }

    @Test
    void theConnectDeadlineRunsWhileHeld() throws Exception {
        StepBarrier b = new StepBarrier(2);
        List<CompletableFuture<RdmaConnection>> fs = connect(2, options(b));
        List<FakeId> ids = port.ids();
        deliver(ids.get(0), CmEventType.ADDR_RESOLVED);   // held; the other never resolves

        port.awaitIdle();
        now.addAndGet(Duration.ofSeconds(2).toNanos());
        port.wakeup();

        for (CompletableFuture<RdmaConnection> f : fs) {
            assertThat(f).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(ConnectTimeoutException.class);
        }
        eventually("both ids destroyed", () -> port.liveIds().isEmpty());
    }

    @Test
    void fewerConnectsThanPartiesFailAtTheirDeadlineInsteadOfWaitingForever() throws Exception {
        StepBarrier b = new StepBarrier(3);
        List<CompletableFuture<RdmaConnection>> fs = connect(2, options(b));
        assertThat(port.count("resolveAddr")).isZero();

        port.awaitIdle();
        now.addAndGet(Duration.ofMillis(1999).toNanos());
        port.wakeup();
        port.awaitIdle();
        assertThat(fs).noneMatch(CompletableFuture::isDone);
        now.addAndGet(Duration.ofMillis(1).toNanos());
        port.wakeup();

        for (CompletableFuture<RdmaConnection> f : fs) {
            assertThat(f).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(ConnectTimeoutException.class)
                    .withMessageContaining("step barrier");
        }
        eventually("both ids destroyed", () -> port.liveIds().isEmpty());
    }

    @Test
    void aConnectCancelledBeforeItStartedDoesNotHoldTheOthers() throws Exception {
        StepBarrier b = new StepBarrier(2);
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        port.onCall("createId", id -> {   // keeps the dispatcher in the first connect's task
            try {
                busy.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        CompletableFuture<RdmaConnection> first = dispatcher.connect(SERVER, options(b), new Recorder());
        port.awaitCall("createId", 1);
        // Queued behind it and cancelled before the dispatcher runs it: it never creates an id.
        CompletableFuture<RdmaConnection> second = dispatcher.connect(SERVER, options(b), new Recorder());
        second.cancel(true);
        port.onCall("createId", null);
        busy.countDown();

        eventually("the first goes on alone", () -> port.count("resolveAddr") == 1);
        assertThat(port.count("createId")).isEqualTo(1);
        assertThatCancelled(second);
        port.autoResolve = true;
        deliver(port.ids().getFirst(), CmEventType.ADDR_RESOLVED);
        first.get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
        assertThat(port.liveIds()).isEmpty();
    }

    private static void assertThatCancelled(CompletableFuture<?> f) {
        try {
            f.join();
            throw new AssertionError("not cancelled");
        } catch (CancellationException expected) {
            // as CompletableFuture requires
        }
    }
}
