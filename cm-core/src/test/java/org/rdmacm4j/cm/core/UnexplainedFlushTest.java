package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort;
import org.rdmacm4j.cm.core.internal.Recorder;
import org.rdmacm4j.cm.statemachine.CmEventType;

/**
 * The verdict on a flush no teardown of ours explains ({@code FailedCompletion.UNEXPLAINED_FLUSH}),
 * over the fake port: the message channel's report ({@code ConnectionImpl.queuePairFlushed}) is
 * judged on the dispatcher after {@code Dispatcher.FLUSH_GRACE_NANOS}. Still ESTABLISHED then: a typed
 * {@link DataPathException} naming the status, once, and the teardown. A disconnect, a device
 * removal or a close that arrives within the grace explains it: no error. The guest half (a raw
 * peer's RDMA WRITE with a foreign rkey, and graceful closes reporting nothing) is WireFaultsIT.
 */
class UnexplainedFlushTest extends OverFakePort {
    static final Duration GRACE = FakeCmPort.FLUSH_GRACE;

    private RdmaConnection connect(Recorder h) throws Exception {
        RdmaConnection c = cm.connect(SERVER, h).get(5, TimeUnit.SECONDS);
        h.await("established");
        return c;
    }

    /**
     * A connection whose receives flush, then {@code event} within the grace; waits until it is
     * closed and past the verdict (which must find the teardown), and returns its recorder.
     */
    private Recorder flushThenWithinTheGrace(CmEventType event) throws Exception {
        Recorder h = new Recorder();
        RdmaConnection c = connect(h);
        FakeCmPort.FakeId id = port.ids().getFirst();
        FakeCmPort.receivesFlushed(c);
        port.cmEvent(id, event);
        port.wakeup();

        assertThat(c.closeFuture()).succeedsWithin(Duration.ofSeconds(10));
        h.await("closed");
        Thread.sleep(GRACE.multipliedBy(2).toMillis());
        return h;
    }

    @Test
    void aFlushOfAnEstablishedConnectionFailsItTypedOnceAndTearsItDown() throws Exception {
        Recorder h = new Recorder();
        RdmaConnection c = connect(h);
        FakeCmPort.FakeId id = port.ids().getFirst();
        long flushedAt = System.nanoTime();
        FakeCmPort.receivesFlushed(c);
        FakeCmPort.receivesFlushed(c);   // the next receive's flush: not news

        assertThat(c.closeFuture()).succeedsWithin(Duration.ofSeconds(10));
        h.await("closed");
        assertThat(System.nanoTime() - flushedAt).as("judged after the grace, not before")
                .isGreaterThanOrEqualTo(GRACE.toNanos());
        assertThat(h.events()).containsExactly("established", "error", "closed");
        assertThat(h.lastError).isExactlyInstanceOf(DataPathException.class)
                .hasMessageContaining("IBV_WC_WR_FLUSH_ERR").hasMessageContaining("error state")
                .hasMessageContaining("never allowed");
        assertThat(((DataPathException) h.lastError).completionStatus()).isEqualTo("IBV_WC_WR_FLUSH_ERR");
        assertThat(port.names(id)).containsSubsequence("disconnect", "drainQp", "quiesceCq", "destroyQp", "destroyCq",
                "destroyCompChannel", "destroyId");
        // A new connection works afterwards.
        cm.connect(SERVER, new Recorder()).get(5, TimeUnit.SECONDS).close().get(5, TimeUnit.SECONDS);
    }

    @Test
    void aPeerDisconnectWithinTheGraceExplainsTheFlush() throws Exception {
        Recorder h = flushThenWithinTheGrace(CmEventType.DISCONNECTED);
        assertThat(h.events()).containsExactly("established", "disconnected", "closed");
        assertThat(h.lastError).isNull();
    }

    @Test
    void aDeviceRemovalWithinTheGraceExplainsTheFlush() throws Exception {
        Recorder h = flushThenWithinTheGrace(CmEventType.DEVICE_REMOVAL);
        assertThat(h.events()).as("one error: the device's, not the flush's").containsExactly("established", "error",
                "closed");
        assertThat(h.lastError).isInstanceOf(DeviceRemovedException.class);
    }

    @Test
    void aFlushAfterOurOwnCloseBeganIsNotNews() throws Exception {
        Recorder h = new Recorder();
        RdmaConnection c = connect(h);
        port.autoDisconnect = false;   // hold the close in DISCONNECTING while the flush is judged
        var closing = c.close();
        Recorder.eventually("disconnecting", () -> !"ESTABLISHED".equals(c.state()));
        FakeCmPort.receivesFlushed(c);
        Thread.sleep(GRACE.multipliedBy(2).toMillis());
        port.cmEvent(port.ids().getFirst(), CmEventType.DISCONNECTED);
        port.wakeup();

        assertThat(closing).succeedsWithin(Duration.ofSeconds(10));
        h.await("closed");
        assertThat(h.events()).doesNotContain("error");
        assertThat(h.lastError).isNull();
    }
}
