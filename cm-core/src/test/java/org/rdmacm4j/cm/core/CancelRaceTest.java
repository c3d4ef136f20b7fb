package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.core.internal.FakeCmPort;
import org.rdmacm4j.cm.core.internal.Recorder;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.EventParams;

/**
 * A cancel that wins the race against the delivery of an established connection: the dispatcher
 * has seen ESTABLISHED, the future is neither posted nor completed yet, the user cancels. Nobody will ever hold the connection,
 * so it must be torn down, not left open. And its counterpart: with nothing owed, the dispatcher
 * posts the outcome at ESTABLISHED (CmFuture), so a slow executor no longer delays the waiter and a
 * later cancel loses.
 */
class CancelRaceTest {
    static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);

    /** An executor that runs nothing until released. */
    static final class Gate implements Executor {
        private final ArrayDeque<Runnable> held = new ArrayDeque<>();
        private boolean open;

        @Override
        public void execute(Runnable r) {
            synchronized (this) {
                if (!open) {
                    held.add(r);
                    return;
                }
            }
            Thread.ofVirtual().start(r);
        }

        void open() {
            synchronized (this) {
                open = true;
            }
            while (true) {
                Runnable r;
                synchronized (this) {
                    r = held.poll();
                }
                if (r == null) {
                    return;
                }
                Thread.ofVirtual().start(r);
            }
        }
    }

    @Test
    void cancelAfterEstablishedButBeforeDeliveryClosesTheConnection() {
        FakeCmPort port = new FakeCmPort();
        Gate gate = new Gate();
        try (RdmaCm cm = RdmaCm.builder().port(port).callbackExecutor(gate).build()) {
            Recorder h = new Recorder();
            // The cancel lands inside the dispatcher's ESTABLISHED step, after the machine has
            // established the connection and before its outcome is posted or completed.
            AtomicReference<CompletableFuture<RdmaConnection>> connecting = new AtomicReference<>();
            AtomicBoolean cancelled = new AtomicBoolean();
            port.onLocalAddress = () -> {
                if (connecting.get() != null && !cancelled.get()) {
                    cancelled.set(connecting.get().cancel(true));
                }
            };
            port.autoEstablish = false;
            CompletableFuture<RdmaConnection> f = cm.connect(SERVER, h);
            connecting.set(f);
            port.awaitCall("connect");
            port.cmEvent(port.ids().getFirst(), CmEventType.ESTABLISHED, 0, EventParams.Conn.withData(port.acceptData));
            port.wakeup();
            eventually("established in the dispatcher", () -> cm.statistics().connectsSucceeded() == 1);
            assertThat(cancelled).as("the cancel won: nothing was posted or completed yet").isTrue();
            gate.open();

            FakeId id = port.ids().getFirst();
            eventually("the unwanted connection is torn down: " + port.names(id), id::destroyed);
            assertThat(port.names(id)).containsSubsequence("connect", "disconnect", "drainQp", "quiesceCq",
                    "quiesced", "destroyQp", "destroyCq", "destroyCompChannel", "destroyId");
            eventually("nothing live", () -> cm.statistics().liveIds() == 0);
            assertThat(f).isCancelled();
            assertThat(port.violations()).isEmpty();
        }
    }

    @Test
    void withNothingOwedTheOutcomeIsPostedAtEstablishedAndALaterCancelLoses() throws Exception {
        FakeCmPort port = new FakeCmPort();
        Gate gate = new Gate();
        try (RdmaCm cm = RdmaCm.builder().port(port).callbackExecutor(gate).build()) {
            Recorder h = new Recorder();
            CompletableFuture<RdmaConnection> f = cm.connect(SERVER, h);
            CompletableFuture<String> dependent = f.thenApply(c -> Thread.currentThread().getName());
            // The gate runs nothing, yet the waiter gets the connection: posted by the dispatcher.
            RdmaConnection c = f.get(5, TimeUnit.SECONDS);
            assertThat(f.cancel(true)).isFalse();
            assertThat(f).isDone().isNotCancelled();
            assertThat(dependent).as("dependents wait for the executor").isNotDone();
            assertThat(h.events()).isEmpty();

            gate.open();
            assertThat(dependent.get(5, TimeUnit.SECONDS)).isNotEqualTo("rdmacm4j-dispatcher");
            h.await("established");
            assertThat(c.isClosed()).isFalse();
            c.close().get(5, TimeUnit.SECONDS);
            assertThat(c.isClosed()).isTrue();
            h.await("closed");
            assertThat(h.events()).containsExactly("established", "closed");
            assertThat(port.violations()).isEmpty();
        }
    }
}
