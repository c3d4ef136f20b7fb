package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.CancelRaceTest.Gate;
import org.rdmacm4j.cm.core.internal.FakeCmPort;
import org.rdmacm4j.cm.core.internal.Recorder;

/**
 * The dispatcher posts a future's outcome to its waiters when the id's callback queue is idle
 * (CmFuture), and never ahead of a callback still queued for the id. Over a callback executor that
 * runs nothing until told, so what completes before that was posted by the dispatcher.
 */
class EarlyPostTest {
    static final java.net.InetSocketAddress SERVER = CancelRaceTest.SERVER;

    @Test
    void connectAndCloseWaitersWakeFromTheDispatcherAndDependentsWaitForTheExecutor() throws Exception {
        FakeCmPort port = new FakeCmPort();
        Gate gate = new Gate();
        try (RdmaCm cm = RdmaCm.builder().port(port).callbackExecutor(gate).build()) {
            RdmaConnection c = cm.connect(SERVER, ConnectionHandler.none()).get(5, TimeUnit.SECONDS);
            // The connect future's settle: run by this thread on its way out of get() if it was parked
            // there when the outcome came, else held by the gate. Only a settle either way, so it does
            // not stop the close's post.
            CompletableFuture<Void> closing = c.close();
            // A dependent attached before the outcome: the settle is the executor's (CmFuture.settleThrough).
            CompletableFuture<Void> dependent = closing.thenRun(() -> { });
            assertThat(closing.get(5, TimeUnit.SECONDS)).isNull();
            assertThat(dependent).isNotDone();
            assertThat(c.isClosed()).as("posted before the close future, for its waiter").isTrue();
            CompletableFuture<Void> closedCopy = c.closeFuture();
            assertThat(closedCopy).as("a mirror of the closed future: posted with it").isDone();
            CompletableFuture<Void> afterClosed = closedCopy.thenRun(() -> { });
            assertThat(afterClosed).as("its dependent waits for the executor's settle").isNotDone();
            gate.open();
            assertThat(afterClosed).succeedsWithin(java.time.Duration.ofSeconds(5));
            assertThat(dependent).succeedsWithin(java.time.Duration.ofSeconds(5));
            assertThat(port.violations()).isEmpty();
        }
    }

    @Test
    void aQueuedCallbackIsNeverOvertakenByAPostedFuture() throws Exception {
        FakeCmPort port = new FakeCmPort();
        Gate gate = new Gate();
        try (RdmaCm cm = RdmaCm.builder().port(port).callbackExecutor(gate).build()) {
            Recorder h = new Recorder();   // overrides every callback
            RdmaConnection c = cm.connect(SERVER, h).get(5, TimeUnit.SECONDS);   // posted: onEstablished comes after it
            CompletableFuture<Void> closing = c.close();
            // onEstablished is still queued, so the close outcome must wait its turn.
            assertThatThrownBy(() -> closing.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            assertThat(h.events()).isEmpty();
            gate.open();
            assertThat(closing.get(5, TimeUnit.SECONDS)).isNull();
            h.await("closed");
            assertThat(h.events()).containsExactly("established", "closed");
            assertThat(port.violations()).isEmpty();
        }
    }
}
