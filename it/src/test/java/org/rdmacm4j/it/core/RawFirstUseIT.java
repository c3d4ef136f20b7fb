package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RawQueuePair;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * A raw connection's CQ is registered with its poller only at the application's first
 * {@code raw()} (CqRegistration): work posted the moment raw() returns, before the poller can
 * have armed the CQ, still has its completion delivered; and a close racing the first raw() from
 * another thread either lets it register first or refuses it, and ends cleanly either way.
 */
@SoftRoceTest
class RawFirstUseIT {
    private static final int ROUNDS = 40;

    @Test
    void workPostedRightAfterTheFirstRawGetsItsCompletion() throws Exception {
        try (RdmaCm cm = RdmaCm.open(); SendRequests wr = SendRequests.allocate(1, 1)) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(),
                    r -> r.accept(ConnectionHandler.none(), AcceptOptions.defaults().raw()));
            for (int round = 0; round < ROUNDS; round++) {
                var done = new CompletableFuture<String>();
                ConnectionHandler handler = new ConnectionHandler() {
                    @Override
                    public void onCompletion(RdmaConnection c, WorkCompletions wc, int i) {
                        done.complete(wc.wrId(i) + " " + wc.status(i));
                    }
                };
                RdmaConnection c = await(cm.connect(CmFixtures.target(l), ConnectOptions.builder().raw().build(),
                        handler));
                // A zero-length RDMA WRITE (no rkey needed), posted at once: its completion may be in
                // the CQ before the poller ran the register command that arms it.
                wr.set(0, round + 1, WrOpcode.RDMA_WRITE, SendFlags.SIGNALED).rdma(0, 0, 0);
                c.raw().queuePair().postSend(wr, 1);
                assertThat(done.get(10, TimeUnit.SECONDS)).as("round %s", round)
                        .isEqualTo((round + 1) + " " + WcStatus.SUCCESS);
                await(c.close());
            }
            await(l.close());
        }
    }

    /**
     * The first raw() from another thread at a sweep of delays after close() was called: early ones
     * register the CQ while the teardown runs (after DrainQp answered at once for a CQ nobody had
     * registered, so QuiesceCq goes through the poller), later ones find it quiesced ("is closing")
     * or the connection closed. Every round ends with the connection closed and its ids gone.
     */
    @Test
    void aFirstRawRacingTheCloseRegistersOrIsRefusedAndTheTeardownEndsCleanly() throws Exception {
        int returned = 0;
        int closing = 0;
        int closed = 0;
        ExecutorService app = Executors.newSingleThreadExecutor();
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(),
                    r -> r.accept(ConnectionHandler.none(), AcceptOptions.defaults().raw()));
            for (int round = 0; round < ROUNDS; round++) {
                RdmaConnection c = await(cm.connect(CmFixtures.target(l), ConnectOptions.builder().raw().build(),
                        ConnectionHandler.none()));
                long delayMicros = round * 250_000L / ROUNDS;   // 0 to 250 ms: a guest close takes 100-300 ms
                CyclicBarrier go = new CyclicBarrier(2);
                Future<RawQueuePair> first = app.submit(() -> {
                    go.await(10, TimeUnit.SECONDS);
                    TimeUnit.MICROSECONDS.sleep(delayMicros);
                    return c.raw();
                });
                go.await(10, TimeUnit.SECONDS);
                CompletableFuture<Void> closeDone = c.close();
                try {
                    assertThat(first.get(10, TimeUnit.SECONDS).queuePair()).isNotNull();
                    returned++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).as("round %s", round).isInstanceOf(IllegalStateException.class);
                    if (e.getCause().getMessage().contains("is closing")) {
                        closing++;
                    } else {
                        assertThat(e.getCause()).hasMessageContaining("no queue pair");
                        closed++;
                    }
                }
                closeDone.get(30, TimeUnit.SECONDS);   // the teardown finishes whichever way the race went
                assertThat(c.isClosed()).isTrue();
            }
            await(l.close());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cm.statistics().liveIds() != 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(cm.statistics().liveIds()).as("every id of every round destroyed").isZero();
        } finally {
            app.shutdownNow();
        }
        assertThat(returned + closing + closed).isEqualTo(ROUNDS);
        System.out.println("RawFirstUseIT: the first raw() returned " + returned + ", was refused as closing "
                + closing + ", found the connection closed " + closed + " (of " + ROUNDS + ")");
    }
}
