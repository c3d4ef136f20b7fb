package org.rdmacm4j.cm.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;

/**
 * How the dispatcher's loop shares a turn between a burst of user tasks, the CM events the first
 * of them caused and the completion pollers' answers: tasks are bounded per turn, events are read
 * every turn, answers are never queued behind tasks.
 */
class DispatcherBatchTest extends DispatcherOnFakeClock {
    static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);
    /** Three turns of user tasks: bounded, the first connects are resolved long before the last is created. */
    static final int BURST = 3 * Dispatcher.TASKS_PER_TURN;

    @Test
    void theFirstConnectOfABurstIsResolvedBeforeTheWholeBurstRan() throws Exception {
        CountDownLatch queued = new CountDownLatch(1);
        List<CompletableFuture<RdmaConnection>> connects = holdTheDispatcherWhileQueueing(queued, BURST);
        queued.countDown();

        eventually("every connect resolved its route", () -> port.count("resolveRoute") == BURST + 1);
        List<String> names = port.names();
        int firstRouteResolve = names.indexOf("resolveRoute");
        int lastCreate = names.lastIndexOf("createId");
        // Unbounded, all BURST + 1 createIds would run before the first ADDR_RESOLVED is read.
        assertThat(firstRouteResolve).isLessThan(lastCreate);
        assertThat(names.subList(0, firstRouteResolve).stream().filter("createId"::equals).count())
                .isLessThanOrEqualTo(1 + Dispatcher.TASKS_PER_TURN);
        closeAll(connects);
    }

    @Test
    void aQuiesceAnswerIsNotStarvedByALongTaskQueue() throws Exception {
        port.holdQuiesce = true;
        RdmaConnection first = dispatcher.connect(SERVER, ConnectOptions.defaults(), new Recorder())
                .get(5, TimeUnit.SECONDS);
        FakeId id = port.ids().getFirst();
        CompletableFuture<Void> closed = first.close();
        port.awaitCall("quiesceCq");

        // Each queued connect costs 25 ms of (fake) time: the burst outlasts the 1 s quiesce deadline.
        port.onCall("createId", x -> ticker.advance(25, TimeUnit.MILLISECONDS));
        CountDownLatch queued = new CountDownLatch(1);
        List<CompletableFuture<RdmaConnection>> connects = holdTheDispatcherWhileQueueing(queued, BURST);
        port.holdQuiesce = false;   // for the burst's own closes
        assertThat(port.releaseQuiesces()).isEqualTo(1);   // the poller answers while the burst waits
        queued.countDown();

        assertThat(closed).succeedsWithin(Duration.ofSeconds(5));
        assertThat(id.leaked()).as("quiesce answer handled before its deadline").isFalse();
        assertThat(id.destroyed()).isTrue();
        port.onCall("createId", null);
        closeAll(connects);
    }

    /**
     * Blocks the dispatcher inside a first connect's createId until {@code release}, and queues
     * {@code burst} more connects meanwhile; returns all of them.
     */
    private List<CompletableFuture<RdmaConnection>> holdTheDispatcherWhileQueueing(CountDownLatch release,
                                                                                   int burst) throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        AtomicBoolean once = new AtomicBoolean();
        var previous = port.hookFor("createId");
        port.onCall("createId", x -> {
            if (previous != null) {
                previous.accept(x);
            }
            if (once.compareAndSet(false, true)) {
                inside.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        List<CompletableFuture<RdmaConnection>> all = new ArrayList<>();
        all.add(dispatcher.connect(SERVER, ConnectOptions.defaults(), new Recorder()));
        assertThat(inside.await(5, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < burst; i++) {
            all.add(dispatcher.connect(SERVER, ConnectOptions.defaults(), new Recorder()));
        }
        return all;
    }

    private static void closeAll(List<CompletableFuture<RdmaConnection>> connects) throws Exception {
        List<CompletableFuture<Void>> closes = new ArrayList<>();
        for (var f : connects) {
            closes.add(f.get(5, TimeUnit.SECONDS).close());
        }
        CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
    }
}
