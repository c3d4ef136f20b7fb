package org.rdmacm4j.cm.core.internal.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class CallbackThreadsTest {

    @Test
    void runsTasksOnDaemonPlatformThreadsWithTheExecutorsName() throws Exception {
        CallbackThreads e = new CallbackThreads("rdmacm4j-7-callback");
        Set<Thread> seen = ConcurrentHashMap.newKeySet();
        CountDownLatch done = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            e.execute(() -> {
                seen.add(Thread.currentThread());
                done.countDown();
            });
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).isNotEmpty().allSatisfy(t -> {
            assertThat(t.isVirtual()).isFalse();
            assertThat(t.isDaemon()).isTrue();
            assertThat(t.getName()).isEqualTo("rdmacm4j-7-callback");
        });
        e.shutdown();
        assertThat(e.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /** Tasks one after another reuse the idle worker: one thread, no thread per task. */
    @Test
    void anIdleWorkerIsReused() throws Exception {
        CallbackThreads e = new CallbackThreads("cb");
        Set<Thread> seen = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 20; i++) {
            CountDownLatch done = new CountDownLatch(1);
            e.execute(() -> {
                seen.add(Thread.currentThread());
                done.countDown();
            });
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            await("the worker is idle again", () -> e.running() == 0);
        }
        assertThat(seen).hasSize(1);
        assertThat(e.threads()).isEqualTo(1);
        e.shutdown();
        await("the idle worker ends at shutdown", () -> e.threads() == 0);
    }

    /** The reason for a thread per busy task: a callback that blocks never holds up another one. */
    @Test
    void aBlockedTaskDoesNotHoldUpTheNext() throws Exception {
        CallbackThreads e = new CallbackThreads("cb");
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch second = new CountDownLatch(1);
        e.execute(() -> {
            blocked.countDown();
            try {
                release.await();
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        e.execute(second::countDown);
        assertThat(second.await(10, TimeUnit.SECONDS)).as("the second task ran while the first was blocked").isTrue();
        assertThat(e.threads()).isEqualTo(2);
        release.countDown();
        e.shutdown();
        assertThat(e.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        await("both workers end", () -> e.threads() == 0);
    }

    @Test
    void idleWorkersEndAfterTheKeepAlive() throws Exception {
        CallbackThreads e = new CallbackThreads("cb", TimeUnit.MILLISECONDS.toNanos(50));
        CountDownLatch done = new CountDownLatch(1);
        e.execute(done::countDown);
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        await("the idle worker times out", () -> e.threads() == 0);
        // A task after the time-out gets a new worker.
        CountDownLatch again = new CountDownLatch(1);
        e.execute(again::countDown);
        assertThat(again.await(10, TimeUnit.SECONDS)).isTrue();
        e.shutdown();
        await("it ends at shutdown", () -> e.threads() == 0);
    }

    /** An interrupt left by one callback is not seen by the next one on the same worker. */
    @Test
    void anInterruptDoesNotLeakIntoTheNextTask() throws Exception {
        CallbackThreads e = new CallbackThreads("cb");
        CountDownLatch first = new CountDownLatch(1);
        e.execute(() -> {
            Thread.currentThread().interrupt();
            first.countDown();
        });
        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
        await("the worker is idle again", () -> e.running() == 0);
        AtomicInteger interrupted = new AtomicInteger(-1);
        Set<Thread> seen = ConcurrentHashMap.newKeySet();
        CountDownLatch second = new CountDownLatch(1);
        e.execute(() -> {
            seen.add(Thread.currentThread());
            interrupted.set(Thread.currentThread().isInterrupted() ? 1 : 0);
            second.countDown();
        });
        assertThat(second.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(interrupted).hasValue(0);
        assertThat(e.threads()).isEqualTo(1);
        e.shutdown();
        assertThat(e.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /** Submitting threads hammering idle workers: every task runs exactly once, the pool stays small. */
    @Test
    void everyTaskRunsOnceUnderConcurrentSubmitters() throws Exception {
        CallbackThreads e = new CallbackThreads("cb", TimeUnit.MILLISECONDS.toNanos(1));
        AtomicInteger ran = new AtomicInteger();
        List<Thread> submitters = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            submitters.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 5_000; i++) {
                    e.execute(ran::incrementAndGet);
                    if (i % 64 == 0) {
                        LockSupport.parkNanos(1_000_000);   // let workers idle and time out now and then
                    }
                }
            }));
        }
        for (Thread t : submitters) {
            t.join(60_000);
        }
        e.shutdown();
        assertThat(e.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).hasValue(20_000);
        await("every worker ends", () -> e.threads() == 0);
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as(what).isNegative();
            Thread.sleep(1);
        }
    }

    @Test
    void refusesTasksAfterShutdownAndWaitsForThoseAccepted() throws Exception {
        CallbackThreads e = new CallbackThreads("cb");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger finished = new AtomicInteger();
        e.execute(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            finished.incrementAndGet();
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        e.shutdown();
        assertThatThrownBy(() -> e.execute(finished::incrementAndGet))
                .isInstanceOf(RejectedExecutionException.class).hasMessageContaining("shut down");
        // The accepted task still runs: termination times out while it is held, then comes.
        assertThat(e.awaitTermination(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(e.running()).isEqualTo(1);
        release.countDown();
        assertThat(e.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(finished).hasValue(1);
        assertThat(e.running()).isZero();
    }

    @Test
    void aThrowingTaskStillCountsAsFinished() throws Exception {
        CallbackThreads e = new CallbackThreads("cb");
        CountDownLatch thrown = new CountDownLatch(1);
        Thread.UncaughtExceptionHandler quiet = (t, x) -> thrown.countDown();
        e.execute(() -> {
            Thread.currentThread().setUncaughtExceptionHandler(quiet);
            throw new IllegalStateException("a callback bug");
        });
        assertThat(thrown.await(10, TimeUnit.SECONDS)).isTrue();
        e.shutdown();
        assertThat(e.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * Submitters racing a shutdown: every task is either refused or run, never lost, and
     * awaitTermination returns only once every accepted one has run.
     */
    @Test
    void noTaskIsLostOrOutlivesTerminationWhenSubmittersRaceTheShutdown() throws Exception {
        for (int round = 0; round < 50; round++) {
            CallbackThreads e = new CallbackThreads("cb");
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger ran = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> submitters = new ArrayList<>();
            for (int s = 0; s < 4; s++) {
                submitters.add(Thread.ofPlatform().start(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException ie) {
                        return;
                    }
                    for (int i = 0; i < 200; i++) {
                        try {
                            e.execute(ran::incrementAndGet);
                            accepted.incrementAndGet();
                        } catch (RejectedExecutionException r) {
                            refused.incrementAndGet();
                        }
                    }
                }));
            }
            go.countDown();
            Thread.sleep(round % 3);
            e.shutdown();
            assertThat(e.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            int ranAtTermination = ran.get();
            for (Thread t : submitters) {
                t.join(10_000);
            }
            // An execute() that returned had counted its task before it read the shutdown flag, so
            // termination waited for it: every accepted task had run by then, none refused ran.
            assertThat(accepted.get() + refused.get()).isEqualTo(800);
            assertThat(ranAtTermination).as("round %d", round).isEqualTo(accepted.get());
            assertThat(ran.get()).isEqualTo(accepted.get());
        }
    }
}
