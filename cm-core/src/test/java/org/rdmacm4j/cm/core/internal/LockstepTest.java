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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectTimeoutException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.StepBarrier;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.RetryPolicy;

/**
 * Step barriers on the dispatcher with the fake port and a fake clock: every step waits for every
 * party, a party that fails, is cancelled or times out leaves without the others waiting for it, and
 * nothing is leaked or stepped out of the machines' contract (the fake port records violations).
 */
class LockstepTest extends DispatcherOnFakeClock {
    static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);

    LockstepTest() {
        port.autoResolve = false;   // the test delivers ADDR_RESOLVED / ROUTE_RESOLVED itself
    }

    ConnectOptions options(StepBarrier b) {
        return ConnectOptions.builder().raw().stepBarrier(b).retries(RetryPolicy.never())
                .timeout(Duration.ofSeconds(2)).build();
    }

    /** {@code n} connects as parties of {@code b}, once the dispatcher has created their ids. */
    List<CompletableFuture<RdmaConnection>> connect(int n, StepBarrier b) {
        List<CompletableFuture<RdmaConnection>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fs.add(dispatcher.connect(SERVER, options(b), new Recorder()));
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

    /** Resolves the routes of {@code ids}, whose connects the fake then answers, all before any of them is awaited. */
    void resolveRoutes(FakeId... ids) {
        port.autoResolve = true;
        for (FakeId id : ids) {
            deliver(id, CmEventType.ROUTE_RESOLVED);
        }
    }

    /** Closes each connection once established; then no id may be left. */
    void closeAllAndCheckNothingIsLeft(List<CompletableFuture<RdmaConnection>> connects) throws Exception {
        for (CompletableFuture<RdmaConnection> f : connects) {
            f.get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
        }
        assertThat(port.liveIds()).isEmpty();
    }

    /** Each connect fails with a ConnectTimeoutException (whose message has each of {@code why}), and every id is freed. */
    void assertEachTimesOut(List<CompletableFuture<RdmaConnection>> connects, String... why) {
        for (CompletableFuture<RdmaConnection> f : connects) {
            var failure = assertThat(f).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(ConnectTimeoutException.class);
            for (String part : why) {
                failure.withMessageContaining(part);
            }
        }
        eventually("every id destroyed", () -> port.liveIds().isEmpty());
    }

    @Test
    void everyStepWaitsForEveryParty() throws Exception {
        StepBarrier b = new StepBarrier(3);
        List<CompletableFuture<RdmaConnection>> fs = connect(2, b);
        assertThat(port.count("resolveAddr")).as("no resolve before all 3 ids exist").isZero();
        fs.addAll(connect(1, b));
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
        closeAllAndCheckNothingIsLeft(fs);
        // Each id's own calls are in the machine's usual order; the barrier only delayed them.
        assertThat(port.names(ids.get(1))).startsWith("createId", "resolveAddr", "createQp", "resolveRoute", "connect");
    }

    @Test
    void aPartyThatFailsLeavesAndTheOthersGoOn() throws Exception {
        List<CompletableFuture<RdmaConnection>> fs = connect(3, new StepBarrier(3));
        List<FakeId> ids = port.ids();
        deliver(ids.get(0), CmEventType.ADDR_RESOLVED);
        deliver(ids.get(1), CmEventType.ADDR_RESOLVED);
        assertThat(port.count("resolveRoute")).isZero();

        port.cmEvent(ids.get(2), CmEventType.ADDR_ERROR, -110, new EventParams.None());
        port.wakeup();

        eventually("the two others resolve their route", () -> port.count("resolveRoute") == 2);
        assertThat(fs.get(2)).failsWithin(Duration.ofSeconds(5));
        eventually("the failed id is destroyed", () -> ids.get(2).destroyed());
        resolveRoutes(ids.get(0), ids.get(1));
        closeAllAndCheckNothingIsLeft(fs.subList(0, 2));
    }

    @Test
    void cancelWhileHeldStepsWhatWasHeldThenCancelsAndFreesEverything() throws Exception {
        List<CompletableFuture<RdmaConnection>> fs = connect(2, new StepBarrier(2));
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
        resolveRoutes(ids.get(1));
        closeAllAndCheckNothingIsLeft(fs.subList(1, 2));
    }

    @Test
    void theConnectDeadlineRunsWhileHeld() throws Exception {
        List<CompletableFuture<RdmaConnection>> fs = connect(2, new StepBarrier(2));
        deliver(port.ids().getFirst(), CmEventType.ADDR_RESOLVED);   // held; the other never resolves

        advance(Duration.ofSeconds(2));

        assertEachTimesOut(fs);
    }

    @Test
    void fewerConnectsThanPartiesFailAtTheirDeadlineInsteadOfWaitingForever() throws Exception {
        List<CompletableFuture<RdmaConnection>> fs = connect(2, new StepBarrier(3));
        assertThat(port.count("resolveAddr")).isZero();

        advance(Duration.ofMillis(1999));
        port.awaitIdle();
        assertThat(fs).noneMatch(CompletableFuture::isDone);
        advance(Duration.ofMillis(1));

        assertEachTimesOut(fs, "step barrier");
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
        closeAllAndCheckNothingIsLeft(List.of(first));
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
