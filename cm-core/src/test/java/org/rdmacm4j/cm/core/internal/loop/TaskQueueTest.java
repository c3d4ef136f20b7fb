package org.rdmacm4j.cm.core.internal.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.loop.TaskQueue.Task;

/**
 * The loop's lock-free queue: one consumer, many producers, a door. What the old lock guaranteed
 * must still hold: each producer's tasks run in its order, nothing is lost, and an offer racing the
 * close is either refused or reaches the final drain, never stranded.
 */
class TaskQueueTest {

    @Test
    void runsInOfferOrderAndIsEmptyAfter() {
        TaskQueue q = new TaskQueue();
        List<Integer> ran = new ArrayList<>();
        assertThat(q.hasWork()).isFalse();
        assertThat(q.poll()).isNull();
        for (int i = 0; i < 5; i++) {
            int n = i;
            assertThat(q.offer(new Task(() -> ran.add(n), null))).isTrue();
        }
        assertThat(q.hasWork()).isTrue();
        Task t;
        while ((t = q.poll()) != null) {
            TaskQueue.run(t);
        }
        assertThat(ran).containsExactly(0, 1, 2, 3, 4);
        assertThat(q.hasWork()).isFalse();
    }

    @Test
    void closeRefusesLaterOffersButKeepsEarlierOnes() {
        TaskQueue q = new TaskQueue();
        CompletableFuture<Void> owner = new CompletableFuture<>();
        AtomicInteger ran = new AtomicInteger();
        q.offer(new Task(ran::incrementAndGet, owner));
        q.close();
        q.close();   // idempotent: a second close must not lose the first one's last node
        assertThat(q.offer(new Task(ran::incrementAndGet, owner))).isFalse();
        assertThat(q.hasWork()).isTrue();
        Task t = q.poll();
        assertThat(t.owner()).isSameAs(owner);
        TaskQueue.run(t);
        assertThat(ran.get()).isEqualTo(1);
        assertThat(q.hasWork()).isFalse();
        assertThat(q.poll()).isNull();
    }

    @Test
    void closedEmptyQueueHasNoWork() {
        TaskQueue q = new TaskQueue();
        q.close();
        assertThat(q.hasWork()).isFalse();
        assertThat(q.poll()).isNull();
    }

    @Test
    void manyProducersKeepTheirOrderAndLoseNothing() throws Exception {
        int producers = 4;
        int perProducer = 50_000;
        TaskQueue q = new TaskQueue();
        int[] next = new int[producers];   // consumer thread only
        AtomicInteger outOfOrder = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int id = p;
            Thread th = new Thread(() -> {
                await(start);
                for (int i = 0; i < perProducer; i++) {
                    int seq = i;
                    q.offer(new Task(() -> {
                        if (next[id] != seq) {
                            outOfOrder.incrementAndGet();
                        }
                        next[id] = seq + 1;
                    }, null));
                }
            });
            th.start();
            threads.add(th);
        }
        start.countDown();
        int taken = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (taken < producers * perProducer && System.nanoTime() < deadline) {
            Task t = q.poll();
            if (t == null) {
                Thread.onSpinWait();
                continue;
            }
            TaskQueue.run(t);
            taken++;
        }
        for (Thread th : threads) {
            th.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertThat(taken).isEqualTo(producers * perProducer);
        assertThat(outOfOrder.get()).isZero();
        assertThat(q.hasWork()).isFalse();
    }

    @Test
    void anOfferRacingTheCloseIsEitherRefusedOrDrained() throws Exception {
        for (int round = 0; round < 200; round++) {
            TaskQueue q = new TaskQueue();
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger ran = new AtomicInteger();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                Thread th = new Thread(() -> {
                    await(start);
                    while (q.offer(new Task(ran::incrementAndGet, null))) {
                        accepted.incrementAndGet();
                    }
                });
                th.start();
                threads.add(th);
            }
            start.countDown();
            for (int i = 0; i < 100; i++) {   // consume a little while they offer
                Task t = q.poll();
                if (t != null) {
                    TaskQueue.run(t);
                }
            }
            q.close();
            for (Thread th : threads) {
                th.join(TimeUnit.SECONDS.toMillis(10));
                assertThat(th.isAlive()).isFalse();
            }
            Task t;
            while ((t = q.poll()) != null) {   // the loop's final drain
                TaskQueue.run(t);
            }
            assertThat(ran.get()).as("round %d: every accepted offer runs", round).isEqualTo(accepted.get());
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
