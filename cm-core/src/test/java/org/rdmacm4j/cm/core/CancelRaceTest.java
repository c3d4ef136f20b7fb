package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.core.internal.FakeCmPort;
import org.rdmacm4j.cm.core.internal.Recorder;

/**
 * A cancel that wins the race against the delivery of an established connection: the dispatcher
 * has seen ESTABLISHED, the future is not completed yet (the callback executor is slow), the user
 * cancels. Nobody will ever hold the connection, so it must be torn down, not left open.
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
            CompletableFuture<RdmaConnection> f = cm.connect(SERVER, h);
            eventually("established in the dispatcher", () -> cm.statistics().connectsSucceeded() == 1);
            assertThat(f).isNotDone();

            assertThat(f.cancel(true)).isTrue();
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
}
