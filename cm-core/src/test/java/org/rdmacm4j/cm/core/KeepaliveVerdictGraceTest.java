package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.core.internal.FakeCmPort;
import org.rdmacm4j.cm.core.internal.Recorder;
import org.rdmacm4j.cm.statemachine.CmEventType;

/**
 * The keepalive's verdict is decided on the dispatcher after the same grace as an unexplained
 * flush ({@code Dispatcher.FLUSH_GRACE_NANOS}): a peer that closed normally stops answering probes
 * while its DISCONNECTED is still on the way (the two-host runs saw the probe connection end as
 * "unresponsive" on the survivor of a normal close). A DISCONNECTED within the grace ends the
 * connection as disconnected, no error; a verdict nothing explains fails it typed after the grace.
 */
class KeepaliveVerdictGraceTest extends OverFakePort {
    static final Duration GRACE = FakeCmPort.FLUSH_GRACE;

    private RdmaConnection connectWithKeepalive(Recorder h) throws Exception {
        RdmaConnection c = cm.connect(SERVER, ConnectOptions.builder().keepalive(Duration.ofMillis(100), 3).build(), h)
                .get(5, TimeUnit.SECONDS);
        h.await("established");
        port.awaitCallOn(port.ids().getFirst(), "startKeepalive");
        return c;
    }

    @Test
    void aDisconnectedWithinTheGraceEndsTheConnectionAsDisconnected() throws Exception {
        Recorder h = new Recorder();
        RdmaConnection c = connectWithKeepalive(h);
        FakeId id = port.ids().getFirst();

        port.keepaliveGivesUp(id);             // the poller's verdict first...
        port.cmEvent(id, CmEventType.DISCONNECTED);   // ...the peer's normal close right behind it
        port.wakeup();

        assertThat(c.closeFuture()).succeedsWithin(Duration.ofSeconds(10));
        h.await("closed");
        Thread.sleep(GRACE.multipliedBy(2).toMillis());   // past the verdict's judgement, which must find the teardown
        assertThat(h.events()).containsExactly("established", "disconnected", "closed");
        assertThat(h.lastError).isNull();
    }

    @Test
    void aVerdictNothingExplainsFailsTheConnectionAfterTheGrace() throws Exception {
        Recorder h = new Recorder();
        RdmaConnection c = connectWithKeepalive(h);
        FakeId id = port.ids().getFirst();
        port.autoDisconnect = false;   // the peer is dead: nobody answers the disconnect

        long verdictAt = System.nanoTime();
        port.keepaliveGivesUp(id);

        assertThat(c.closeFuture()).succeedsWithin(Duration.ofSeconds(10));
        h.await("closed");
        assertThat(System.nanoTime() - verdictAt).as("judged after the grace, not before")
                .isGreaterThanOrEqualTo(GRACE.toNanos());
        assertThat(h.events()).containsExactly("established", "error", "closed");
        assertThat(h.lastError).isInstanceOf(PeerUnresponsiveException.class).hasMessageContaining("keepalive probe");
    }
}
