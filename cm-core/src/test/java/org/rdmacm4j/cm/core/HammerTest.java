package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort;

/** 8 threads connecting, closing, aborting and cancelling on one RdmaCm over the fake port. */
class HammerTest {
    static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);
    static final int THREADS = 8;
    static final int ROUNDS = 200;

    @Test
    void eightThreadsConnectCloseAndCancel() throws Exception {
        FakeCmPort port = new FakeCmPort();
        RdmaCm cm = RdmaCm.builder().port(port).closeTimeout(Duration.ofSeconds(10)).build();
        AtomicInteger established = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        AtomicInteger closed = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            workers.add(pool.submit(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int i = 0; i < ROUNDS; i++) {
                    CompletableFuture<RdmaConnection> f = cm.connect(SERVER, ConnectionHandler.none());
                    int what = rnd.nextInt(4);
                    if (what >= 2) {
                        if (what == 3) {
                            // Land the cancel in any phase: resolving, connecting, established-but-undelivered.
                            java.util.concurrent.locks.LockSupport.parkNanos(rnd.nextInt(300_000));
                        }
                        f.cancel(true);
                    }
                    RdmaConnection c;
                    try {
                        c = f.get(5, TimeUnit.SECONDS);
                    } catch (CancellationException e) {
                        cancelled.incrementAndGet();
                        continue;
                    }
                    established.incrementAndGet();
                    CompletableFuture<Void> done = what == 1 ? c.abort() : c.close();
                    done.get(5, TimeUnit.SECONDS);
                    assertThat(c.isClosed()).isTrue();
                    closed.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(60, TimeUnit.SECONDS);   // every future completed within its bounded wait
        }
        pool.shutdown();

        assertThat(established.get() + cancelled.get()).isEqualTo(THREADS * ROUNDS);
        assertThat(closed.get()).isEqualTo(established.get());
        eventually("nothing live in the dispatcher: " + cm.statistics(), () -> cm.statistics().liveIds() == 0);
        eventually("every native id freed", () -> port.liveIds().isEmpty());
        CmStatistics s = cm.statistics();
        assertThat(s.connectsStarted()).isLessThanOrEqualTo(THREADS * ROUNDS);
        assertThat(s.connectsSucceeded()).isGreaterThanOrEqualTo(established.get());
        assertThat(s.connectsSucceeded() + s.connectsFailedTotal()).isEqualTo(s.connectsStarted());
        assertThat(s.connectsFailed().keySet()).allMatch(k -> k.equals("CancellationException"));
        assertThat(s.callbackFailures()).isZero();
        assertThat(port.count("createId")).isEqualTo((int) s.connectsStarted());
        assertThat(port.count("destroyId")).isEqualTo((int) s.connectsStarted());
        assertThat(port.count("leak")).isZero();
        assertThat(port.violations()).isEmpty();

        cm.close();
        assertThat(port.isClosed()).isTrue();
    }
}
