package org.rdmacm4j.cm.core.internal.poll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A command that comes after (or races) the poller's stop is refused by name, never by the closed
 * eventfd underneath: what the application sees from a first {@code raw()} after its RdmaCm closed.
 * Needs no RDMA: a poller is an epoll, an eventfd and a thread.
 */
class CompletionPollerStopTest {

    @Test
    void aCommandAfterTheStopIsRefusedByName() {
        CompletionPoller poller = new CompletionPoller("rdmacm4j-test-poller-1");
        poller.stop();
        assertThatThrownBy(() -> poller.register(null, null, null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("rdmacm4j-test-poller-1 has stopped (its RdmaCm is closed): no completion queue can be"
                        + " registered or drained any more");
        assertThatThrownBy(() -> poller.drain(1, () -> { })).hasMessageContaining("has stopped");
    }

    /**
     * Every command is either refused by name or run, never dropped: a command queued after the
     * poller thread's last look at its queue and before the stop closed it used to be neither, and
     * a dispatcher waiting for its callback (a quiesce, a drain) would have waited for nothing.
     */
    @Test
    void commandsRacingTheStopAreRunOrRefusedByNameNeverDroppedNorAClosedDescriptor() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 200; round++) {
                CompletionPoller poller = new CompletionPoller("rdmacm4j-test-poller-" + round);
                CountDownLatch go = new CountDownLatch(1);
                AtomicInteger ran = new AtomicInteger();
                List<Future<Integer>> racers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    racers.add(threads.submit(() -> {
                        go.await();
                        int accepted = 0;
                        for (int i = 0; i < 200; i++) {
                            try {
                                poller.drain(i, ran::incrementAndGet);
                                accepted++;
                            } catch (IllegalStateException e) {
                                assertThat(e).hasMessageContaining("has stopped (its RdmaCm is closed)");
                            }
                        }
                        return accepted;
                    }));
                }
                go.countDown();
                poller.stop();
                int accepted = 0;
                for (Future<Integer> f : racers) {
                    accepted += f.get(10, TimeUnit.SECONDS);
                }
                assertThat(ran).as("round %d: commands run of %d accepted", round, accepted).hasValue(accepted);
                assertThatThrownBy(() -> poller.drain(0, () -> { })).hasMessageContaining("has stopped");
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
