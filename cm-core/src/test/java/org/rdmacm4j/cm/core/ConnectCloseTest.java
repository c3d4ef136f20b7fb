package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.cm.core.internal.Recorder.bytes;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;
import static org.rdmacm4j.cm.core.internal.Recorder.framedPadded;
import static org.rdmacm4j.cm.core.internal.Recorder.pause;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.core.internal.Recorder;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.Deadlines;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;

/** The active connect and close through RdmaCm over the fake port (real clock, short waits). */
class ConnectCloseTest extends OverFakePort {
    @Test
    void connectHappyPathCallsInOrderAndPeerDataIsExact() throws Exception {
        byte[] mine = bytes(54, 1);
        byte[] theirs = bytes(194, 7);
        port.acceptData = framedPadded(MessageKind.ACCEPT, theirs);
        Recorder h = new Recorder();

        RdmaConnection c = cm.connect(SERVER, ConnectOptions.builder().privateData(mine).raw().build(), h)
                .get(5, TimeUnit.SECONDS);

        FakeId id = port.ids().getFirst();
        assertThat(port.names(id)).containsExactly("createId", "resolveAddr", "createQp", "resolveRoute", "connect");
        assertThat(port.calls()).allSatisfy(call -> assertThat(call.thread()).startsWith("rdmacm4j-dispatcher-"));
        // What went on the wire: the 2-byte header and exactly my bytes.
        byte[] sent = id.connectData().toArray();
        assertThat(sent).hasSize(56);
        assertThat(sent[1]).isEqualTo((byte) 54);
        assertThat(java.util.Arrays.copyOfRange(sent, 2, 56)).isEqualTo(mine);
        assertThat(c.peerPrivateData()).isEqualTo(theirs);
        assertThat(c.state()).isEqualTo("ESTABLISHED");
        assertThat(c.peerAddress()).isEqualTo(port.peer);
        assertThat(c.localAddress()).isEqualTo(port.local);
        h.await("established");
        assertThat(cm.statistics().connectsSucceeded()).isEqualTo(1);
        assertThat(cm.statistics().liveIds()).isEqualTo(1);

        c.close().get(5, TimeUnit.SECONDS);

        // Graceful close: DREQ, the peer's DISCONNECTED answered (DREP), flush, stop the poller, and
        // only after the poller answered: QP, CQ, channel, id.
        assertThat(port.names(id)).containsExactly("createId", "resolveAddr", "createQp", "resolveRoute", "connect",
                "disconnect", "disconnect", "drainQp", "quiesceCq", "quiesced", "destroyQp", "destroyCq",
                "destroyCompChannel", "destroyId");
        assertThat(id.destroyed()).isTrue();
        assertThat(id.leaked()).isFalse();
        assertThat(c.isClosed()).isTrue();
        assertThat(c.closeFuture()).succeedsWithin(Duration.ofSeconds(5));
        h.await("closed");
        assertThat(h.events()).startsWith("established").endsWith("closed");
        assertThat(h.threads()).noneMatch(t -> t.startsWith("rdmacm4j-dispatcher"));
        assertThat(cm.statistics().liveIds()).isZero();
        // A second close is a no-op that completes.
        assertThat(c.close()).succeedsWithin(Duration.ofSeconds(5));
        assertThat(port.count("destroyId")).isEqualTo(1);
    }

    @Test
    void peerDisconnectCallsOnDisconnectedThenOnClosed() throws Exception {
        port.autoDisconnect = false;
        Recorder h = new Recorder();
        RdmaConnection c = cm.connect(SERVER, h).get(5, TimeUnit.SECONDS);
        FakeId id = port.ids().getFirst();

        port.cmEvent(id, CmEventType.DISCONNECTED);
        port.wakeup();

        assertThat(c.closeFuture()).succeedsWithin(Duration.ofSeconds(5));
        h.await("closed");
        assertThat(h.events()).containsExactly("established", "disconnected", "closed");
        // The peer's DREQ answered with our DREP, then the teardown in order.
        assertThat(port.names(id)).endsWith("disconnect", "drainQp", "quiesceCq", "quiesced", "destroyQp",
                "destroyCq", "destroyCompChannel", "destroyId");
        assertThat(cm.statistics().disconnects()).isEqualTo(1);
        assertThat(cm.statistics().liveIds()).isZero();
    }

    @Test
    void quiesceIsAnsweredBeforeQpAndCqAreDestroyed() throws Exception {
        port.holdQuiesce = true;
        // The test holds the poller's answer while it looks; with the default 1 s quiesce deadline a
        // starved test thread (a loaded host: it failed so beside two soft-RoCE guests) let the deadline
        // pass first, and the teardown checked was the one that gives the objects up, not this one.
        Deadlines d = Deadlines.defaults();
        Deadlines patient = new Deadlines(d.connect(), d.resolveAddr(), d.resolveRoute(), d.decision(), d.accept(),
                d.disconnect(), d.timewait(), d.drain(), Duration.ofSeconds(60));
        RdmaConnection c = cm.connect(SERVER, ConnectOptions.builder().deadlines(patient).build(), new Recorder())
                .get(5, TimeUnit.SECONDS);
        FakeId id = port.ids().getFirst();

        var closed = c.close();
        port.awaitCall("quiesceCq");
        pause(100);
        // The poller has not answered: nothing may be destroyed yet.
        assertThat(port.names(id)).doesNotContain("destroyQp", "destroyCq", "destroyCompChannel", "destroyId");
        assertThat(closed).isNotDone();
        assertThat(port.releaseQuiesces()).isEqualTo(1);

        assertThat(closed).succeedsWithin(Duration.ofSeconds(5));
        assertThat(id.leaked()).as("objects given up: the quiesce deadline passed").isFalse();
        List<String> names = port.names(id);
        assertThat(names.indexOf("quiesced")).isLessThan(names.indexOf("destroyQp"));
        assertThat(names.indexOf("quiesced")).isLessThan(names.indexOf("destroyCq"));
        assertThat(names.subList(names.indexOf("quiesced") + 1, names.size()))
                .containsExactly("destroyQp", "destroyCq", "destroyCompChannel", "destroyId");
        assertThat(id.destroyed()).isTrue();
    }

    @Test
    void abortDoesNotWaitForThePeer() throws Exception {
        port.autoDisconnect = false;   // the peer never answers
        RdmaConnection c = cm.connect(SERVER, new Recorder()).get(5, TimeUnit.SECONDS);
        FakeId id = port.ids().getFirst();
        long t0 = System.nanoTime();
        c.abort().get(5, TimeUnit.SECONDS);
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.MILLISECONDS.toNanos(900));   // < disconnect deadline
        assertThat(port.names(id)).endsWith("disconnect", "drainQp", "quiesceCq", "quiesced", "destroyQp",
                "destroyCq", "destroyCompChannel", "destroyId");
    }

    @Test
    void createQpFailureFailsTypedAndDestroysTheId() {
        port.failNext("createQp", 12);
        var f = cm.connect(SERVER, new Recorder());

        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ConnectionFailedException.class)
                .hasMessageContaining("rdma_create_qp").hasMessageContaining("ENOMEM")
                .hasMessageContaining("errno 12");
        FakeId id = port.ids().getFirst();
        eventually("id destroyed", id::destroyed);
        // The failed CreateQp rolled back its own objects: nothing to drain, quiesce or destroy but the id.
        assertThat(port.names(id)).containsExactly("createId", "resolveAddr", "createQp", "destroyId");
        assertThat(id.leaked()).isFalse();
        assertThat(cm.statistics().connectsFailed()).containsEntry("ConnectionFailedException", 1L);
        eventually("nothing live", () -> cm.statistics().liveIds() == 0);
    }

    @Test
    void consumerRejectCarriesTheExactBytes() {
        byte[] why = bytes(146, 3);
        port.autoEstablish = false;
        port.onCall("connect", id -> port.cmEvent(id, CmEventType.REJECTED, 28,
                org.rdmacm4j.cm.statemachine.EventParams.Conn.withData(framedPadded(MessageKind.REJECT, why))));
        var f = cm.connect(SERVER, new Recorder());

        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS))
                .cause().isInstanceOfSatisfying(ConnectionRejectedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(ConnectionRejectedException.Reason.CONSUMER);
                    assertThat(e.peerData()).isEqualTo(why);
                    assertThat(e.history()).isNotEmpty();
                });
        // A consumer reject is not retried.
        assertThat(port.count("connect")).isEqualTo(1);
        eventually("id freed", () -> port.liveIds().isEmpty());
        assertThat(cm.statistics().connectsFailed()).containsEntry("ConnectionRejectedException/CONSUMER", 1L);
    }

    @Test
    void cancelDuringResolveDestroysTheIdAndNeverConnects() {
        port.autoResolve = false;
        var f = cm.connect(SERVER, new Recorder());
        port.awaitCall("resolveAddr");
        FakeId id = port.ids().getFirst();

        assertThat(f.cancel(true)).isTrue();

        port.awaitCallOn(id, "destroyId");
        assertThat(port.names(id)).containsExactly("createId", "resolveAddr", "destroyId");
        // A late ADDR_RESOLVED for the destroyed id changes nothing.
        pause(50);
        assertThat(port.count("connect")).isZero();
        assertThat(f).isCancelled();
        eventually("nothing live", () -> cm.statistics().liveIds() == 0);
    }

    @Test
    void cancelDuringRouteResolutionFreesTheQueuesInOrder() {
        port.autoResolve = false;
        var f = cm.connect(SERVER, new Recorder());
        port.awaitCall("resolveAddr");
        FakeId id = port.ids().getFirst();
        port.cmEvent(id, CmEventType.ADDR_RESOLVED);
        port.awaitCall("resolveRoute");

        f.cancel(true);

        port.awaitCallOn(id, "destroyId");
        assertThat(port.names(id)).containsExactly("createId", "resolveAddr", "createQp", "resolveRoute",
                "drainQp", "quiesceCq", "quiesced", "destroyQp", "destroyCq", "destroyCompChannel", "destroyId");
        assertThat(port.count("connect")).isZero();
    }

    @Test
    void unexpectedExceptionInThePortFailsOnlyThatId() throws Exception {
        port.failNextWith("resolveRoute", new IllegalStateException("a bug in the port"));
        Recorder h1 = new Recorder();
        var f1 = cm.connect(SERVER, h1);
        assertThatThrownBy(() -> f1.get(5, TimeUnit.SECONDS))
                .cause().isInstanceOf(ConnectionFailedException.class)
                .hasMessageContaining("internal error").hasMessageContaining("a bug in the port");
        FakeId first = port.ids().getFirst();
        eventually("crashed id freed", first::destroyed);
        assertThat(port.names(first)).endsWith("quiesceCq", "quiesced", "destroyQp", "destroyCq",
                "destroyCompChannel", "destroyId");

        RdmaConnection c2 = cm.connect(SERVER, new Recorder()).get(5, TimeUnit.SECONDS);
        assertThat(c2.state()).isEqualTo("ESTABLISHED");
        assertThat(cm.isBroken()).isFalse();
        c2.close().get(5, TimeUnit.SECONDS);
        eventually("nothing live", () -> cm.statistics().liveIds() == 0);
    }
}
