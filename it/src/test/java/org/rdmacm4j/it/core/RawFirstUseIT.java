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

    @Test
    void aCloseRacingTheFirstRawEitherLetsItRegisterOrRefusesIt() throws Exception {
        int returned = 0;
        int refused = 0;
        ExecutorService app = Executors.newSingleThreadExecutor();
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(),
                    r -> r.accept(ConnectionHandler.none(), AcceptOptions.defaults().raw()));
            for (int round = 0; round < ROUNDS; round++) {
                RdmaConnection c = await(cm.connect(CmFixtures.target(l), ConnectOptions.builder().raw().build(),
                        ConnectionHandler.none()));
                CyclicBarrier go = new CyclicBarrier(2);
                Future<RawQueuePair> first = app.submit(() -> {
                    go.await(10, TimeUnit.SECONDS);
                    return c.raw();
                });
                go.await(10, TimeUnit.SECONDS);
                CompletableFuture<Void> closed = c.close();
                try {
                    assertThat(first.get(10, TimeUnit.SECONDS).queuePair()).isNotNull();
                    returned++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).as("round %s", round).isInstanceOf(IllegalStateException.class);
                    refused++;
                }
                closed.get(30, TimeUnit.SECONDS);   // the teardown finishes whichever way the race went
                assertThat(c.isClosed()).isTrue();
            }
            await(l.close());
        } finally {
            app.shutdownNow();
        }
        assertThat(returned + refused).isEqualTo(ROUNDS);
        System.out.println("RawFirstUseIT: raw() returned " + returned + ", refused " + refused + " of " + ROUNDS);
    }
}
