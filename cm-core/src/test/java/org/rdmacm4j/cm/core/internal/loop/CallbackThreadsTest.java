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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class CallbackThreadsTest {

    @Test
    void runsEachTaskOnAVirtualThreadWithTheExecutorsName() throws Exception {
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
        assertThat(seen).hasSize(3).allSatisfy(t -> {
            assertThat(t.isVirtual()).isTrue();
            assertThat(t.getName()).isEqualTo("rdmacm4j-7-callback");
        });
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
