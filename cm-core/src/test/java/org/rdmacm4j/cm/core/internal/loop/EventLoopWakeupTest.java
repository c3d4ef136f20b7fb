package org.rdmacm4j.cm.core.internal.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.training.EventQueue;

/**
 * The loop signals its selector only while it waits (EventLoop.sleeping): no wake-up for work the
 * loop thread queues itself, and none lost when other threads queue work while it goes to sleep.
 */
class EventLoopWakeupTest {
    /** A selector like the port's eventfd: a signal stays pending until an await consumes it. */
    static final class CountingSelector implements EventLoop.Selector {
        final AtomicInteger wakeups = new AtomicInteger();
        final AtomicInteger longWaits = new AtomicInteger();
        final AtomicLong longestWaitNanos = new AtomicLong();
        private final EventQueue<Void> signal = new EventQueue<>();   // a wake-up stays pending until an await

        @Override
        public void await(long timeoutNanos) {
            long start = System.nanoTime();
            signal.await(timeoutNanos, () -> { });
            long waited = System.nanoTime() - start;
            longestWaitNanos.accumulateAndGet(waited, Math::max);
            if (waited >= TimeUnit.MILLISECONDS.toNanos(400)) {
                longWaits.incrementAndGet();
            }
        }

        @Override
        public void wakeup() {
            wakeups.incrementAndGet();
            signal.wakeup();
        }
    }

    static final EventLoop.Turn NOTHING = new EventLoop.Turn() {
        @Override public void events() { }
        @Override public void timers(long now) { }
        @Override public void stopped(Throwable cause) { }
        @Override public void close() { }
    };

    final CountingSelector selector = new CountingSelector();
    final EventLoop loop = new EventLoop(selector, System::nanoTime, new TimerQueue<>());

    @AfterEach
    void stop() throws Exception {
        loop.requestStop();
        loop.stoppedFuture().get(5, TimeUnit.SECONDS);
        assertThat(loop.brokenCause()).isNull();
    }

    @Test
    void workTheLoopQueuesItselfCostsNoWakeup() throws Exception {
        loop.start(NOTHING);
        CountDownLatch done = new CountDownLatch(1);
        CompletableFuture<Integer> before = new CompletableFuture<>();
        loop.execute(() -> {
            before.complete(selector.wakeups.get());
            // 100 answers and tasks queued by the loop thread: it is awake, nobody needs waking.
            for (int i = 0; i < 100; i++) {
                loop.answer(() -> { });
                loop.execute(() -> { });
            }
            loop.execute(done::countDown);
        });
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(selector.wakeups.get()).isEqualTo(before.get(5, TimeUnit.SECONDS));
    }

    @Test
    void noWakeupIsLostWhileOtherThreadsQueueWork() throws Exception {
        loop.start(NOTHING);
        int threads = 4;
        int perThread = 20_000;
        AtomicInteger ran = new AtomicInteger();
        Thread[] producers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            producers[t] = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    // Each task waits for its own run, so the loop goes back to sleep between most of
                    // them: every one is a race between the producer's enqueue and the loop's check.
                    CompletableFuture<Void> f = new CompletableFuture<>();
                    loop.submit(f, () -> {
                        ran.incrementAndGet();
                        f.complete(null);
                    });
                    f.join();
                }
            });
            producers[t].start();
        }
        for (Thread p : producers) {
            p.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(p.isAlive()).as("a producer is stuck: a lost wake-up").isFalse();
        }
        assertThat(ran.get()).isEqualTo(threads * perThread);
        // A lost wake-up leaves a task queued through a whole idle wait (500 ms, no timers).
        assertThat(selector.longWaits.get()).as("waits that ran to their timeout with work queued").isZero();
        assertThat(selector.wakeups.get()).as("at most one wake-up per task").isLessThanOrEqualTo(threads * perThread);
    }
}
