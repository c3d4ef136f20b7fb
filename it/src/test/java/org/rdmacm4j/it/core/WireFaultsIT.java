package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.DataPathException;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.it.support.ReliabilityReport;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.cm.CmEventType;
import org.rdmacm4j.verbs.ibv.WcStatus;

/**
 * Bad input on the wire: a raw {@code verbs} peer ({@link RawVerbsPeer}) connects to an rdmacm4j
 * listener with a well-formed channel offer and then breaks the message channel's protocol (an
 * oversized frame, garbage immediate data, a flood beyond its credits, an RDMA WRITE to a region it
 * was never given). In every case the victim connection, and only it, ends with a clear error and
 * is torn down, while a healthy connection on the same {@link RdmaCm} carries checked traffic
 * (sequence numbers + CRC-32) before and after. One row per scenario lands in docs/reliability.md.
 */
@SoftRoceTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WireFaultsIT {
    /** The victim's channel: 256-byte receive slots, 8 credits. */
    private static final MessagingOptions VICTIM = new MessagingOptions(256, 8, 64);
    private static final int HEALTHY_BATCH = 200;
    /** The stray write's victim must be told within this (the verdict's 200 ms grace plus TCG's slack). */
    private static final java.time.Duration STRAY_WRITE_BOUND = java.time.Duration.ofSeconds(5);

    private RdmaCm cm;
    private RdmaListener healthyListener;
    private RdmaListener victimListener;
    private RdmaConnection healthy;
    private final CheckedTraffic.Receiver healthyReceiver = new CheckedTraffic.Receiver();
    private final CheckedTraffic.Sender healthySender = new CheckedTraffic.Sender();
    private final LinkedBlockingQueue<Victim> victims = new LinkedBlockingQueue<>();
    private final List<String> rows = new ArrayList<>();

    /** One accepted victim connection and what happened to it. */
    private record Victim(RdmaConnection connection, CmFixtures.Recorder events, byte[] requestData) { }

    @BeforeAll
    void openCmAndHealthyConnection() throws Exception {
        cm = RdmaCm.open();
        healthyListener = cm.listen(CmFixtures.server(0), ListenOptions.defaults(),
                r -> r.accept(healthyReceiver));
        victimListener = cm.listen(CmFixtures.server(0), ListenOptions.defaults(), r -> {
            CmFixtures.Recorder rec = new CmFixtures.Recorder("victim");
            byte[] data = r.privateData();
            r.accept(rec, AcceptOptions.defaults().messaging(VICTIM))
                    .thenAccept(c -> victims.add(new Victim(c, rec, data)));
        });
        healthy = await(cm.connect(CmFixtures.target(healthyListener), ConnectOptions.defaults(),
                ConnectionHandler.none()));
        checkHealthyTraffic();
    }

    @AfterAll
    void closeAll() throws Exception {
        try {
            if (healthy != null) {
                await(healthy.close());
            }
            if (victimListener != null) {
                await(victimListener.close());
            }
            if (healthyListener != null) {
                await(healthyListener.close());
            }
        } finally {
            if (cm != null) {
                cm.close();
            }
        }
        if (rows.size() == 5) {
            ReliabilityReport.write("wire-faults", """
                    ## Bad input on the wire (`WireFaultsIT`)

                    A raw `verbs` peer connects to an rdmacm4j listener (channel of 256-byte slots, 8 credits)
                    with a well-formed offer, then breaks the protocol. Every case: the victim connection
                    ends with the error below and is torn down; a healthy connection on the same `RdmaCm`
                    carried %d checked messages (sequence + CRC-32) in order, none corrupted, before and
                    after every case; `rdma resource show` back at rest after the class.

                    | the raw peer sends | the victim connection's error | the raw peer's first send completion |
                    |---|---|---|
                    %s
                    """.formatted(healthySender.sent(), String.join("\n", rows)));
        }
    }

    @Test
    void aFrameLargerThanTheReceiveSlotFailsThatConnectionOnly() throws Exception {
        scenario("one 1024-byte SEND_WITH_IMM (slot: 256 bytes)", peer -> peer.sendMessages(1, 1024, 0),
                e -> assertThat(e.completionStatus()).as("the receive's completion status").isNotNull());
    }

    @Test
    void garbageImmediateDataIsAProtocolViolation() throws Exception {
        scenario("one SEND_WITH_IMM with immediate data 0xDEADBEEF", peer -> peer.sendMessages(1, 16, 0xDEADBEEF),
                e -> assertThat(e.getMessage()).contains("protocol violation").contains("0xdeadbeef"));
    }

    @Test
    void aMessageWithoutImmediateDataIsAProtocolViolation() throws Exception {
        scenario("one plain SEND (no immediate data, so no grant field)", peer -> peer.sendMessages(1, 16, null),
                e -> assertThat(e.getMessage()).contains("protocol violation").contains("without immediate data"));
    }

    @Test
    void aFloodBeyondTheGrantedCreditsIsAProtocolViolation() throws Exception {
        // The peer offers 2 credits and never grants: the victim can send it 2 grant messages, so it
        // can grant at most 8 + 2 x 4 receives; 200 messages at once must overrun that.
        scenario("200 SEND_WITH_IMM at once, ignoring the 8 credits", 2, peer -> peer.sendMessages(200, 16, 0),
                e -> assertThat(e.getMessage()).contains("protocol violation").contains("ignores the flow control"));
    }

    /**
     * A connect request whose private data is not a valid offer (wrong magic, fields out of range,
     * truncated) is, by design, a plain librdmacm peer's request: its bytes reach the application
     * untouched and an accepted connection has no message channel (rdma-core tools' private data may
     * start with any byte, so rejecting on a look-alike would break interoperability). The listener
     * keeps serving, and send() on that connection fails clearly before any native call.
     */
    @Test
    void aMalformedOfferMakesAPlainConnectionWithoutAChannel() throws Exception {
        byte[][] malformed = {
            RawVerbsPeer.offer(0xD2, 4096, 8),   // wrong magic
            RawVerbsPeer.offer(0xD1, 0, 8),      // message size out of range
            RawVerbsPeer.offer(0xD1, 4096, 1),   // fewer than 2 credits
            {(byte) 0xD1, 0, 0},                 // truncated
        };
        for (byte[] data : malformed) {
            checkHealthyTraffic();
            try (RawVerbsPeer peer = new RawVerbsPeer(CmFixtures.target(victimListener), data)) {
                assertThat(peer.outcome.type()).isEqualTo(CmEventType.ESTABLISHED);
                Victim victim = victims.poll(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(victim).as("the request accepted").isNotNull();
                assertThat(victim.requestData()).as("the bytes reach the application").startsWith(data);
                assertThat(victim.connection().maxMessageSize()).isZero();
                assertThatThrownBy(() -> victim.connection().send(new byte[1]))
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no message channel");
                await(victim.connection().close());
            }
        }
        checkHealthyTraffic();
    }

    /**
     * An RDMA WRITE with an rkey the victim never gave: the RC responder answers with a remote
     * access NAK (IBA class C; rxe_resp.c RESPST_ERR_RKEY_VIOLATION), so the raw peer's WRITE
     * completes with IBV_WC_REM_ACCESS_ERR and nothing is written, and the responder's QP moves to
     * the error state. rxe raises no async event for it and completes nothing but the flushes of the
     * victim's posted receives; with no teardown of ours and no event to explain them, the flushes
     * are the failure (cm-core's FailedCompletion): the victim gets a typed DataPathException naming
     * the status promptly, while the raw peer is still connected and silent.
     */
    @Test
    void anRdmaWriteWithAnRkeyItWasNeverGiven() throws Exception {
        checkHealthyTraffic();
        Victim victim;
        WcStatus status;
        RdmaCmException error;
        long detectedMs;
        try (RawVerbsPeer peer = new RawVerbsPeer(CmFixtures.target(victimListener),
                RawVerbsPeer.offer(0xD1, 4096, 8))) {
            assertThat(peer.outcome.type()).isEqualTo(CmEventType.ESTABLISHED);
            victim = victims.poll(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(victim).isNotNull();
            long t0 = System.nanoTime();
            peer.write(0x10000, 0x12345, 64);
            status = peer.nextSendStatus();
            assertThat(status).as("the raw peer's WRITE with a foreign rkey").isEqualTo(WcStatus.REM_ACCESS_ERR);
            // Before the peer disconnects: the victim must notice by itself.
            error = victim.events().error.get(STRAY_WRITE_BOUND.toMillis(), TimeUnit.MILLISECONDS);
            detectedMs = (System.nanoTime() - t0) / 1_000_000;
            victim.events().closed.get(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        assertThat(error).as("the victim's error").isExactlyInstanceOf(DataPathException.class)
                .hasMessageContaining("error state").hasMessageContaining("IBV_WC_WR_FLUSH_ERR");
        assertThat(((DataPathException) error).completionStatus()).isEqualTo("IBV_WC_WR_FLUSH_ERR");
        assertThat(victim.events().mine()).as("told, then closed")
                .containsSubsequence("victim:error", "victim:closed");
        assertThat(victim.events().errors).as("told once").hasSize(1);
        System.out.println("FIGURE stray write: victim told after " + detectedMs + " ms: " + firstLine(error));
        rows.add("| one RDMA WRITE with an rkey it was never given | `DataPathException` (IBV_WC_WR_FLUSH_ERR), "
                + detectedMs + " ms after the WRITE was posted (bound " + STRAY_WRITE_BOUND.toSeconds()
                + " s; the flush verdict waits 200 ms for an explaining event): "
                + firstLine(error).replaceAll("^.*?: (the queue pair)", "$1").replace("|", "\\|")
                + " | IBV_WC_" + status.name() + " |");
        checkHealthyTraffic();
    }

    private interface PeerAction {
        void apply(RawVerbsPeer peer) throws Exception;
    }

    private interface ErrorCheck {
        void check(DataPathException e);
    }

    private void scenario(String what, PeerAction action, ErrorCheck check) throws Exception {
        scenario(what, 8, action, check);
    }

    private void scenario(String what, int peerCredits, PeerAction action, ErrorCheck check) throws Exception {
        checkHealthyTraffic();
        Victim victim;
        String peerCompletion;
        try (RawVerbsPeer peer = new RawVerbsPeer(CmFixtures.target(victimListener),
                RawVerbsPeer.offer(0xD1, 4096, peerCredits))) {
            assertThat(peer.outcome.type()).as("the raw peer's connect: " + peer.outcome)
                    .isEqualTo(CmEventType.ESTABLISHED);
            victim = victims.poll(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(victim).as("the victim connection accepted").isNotNull();
            action.apply(peer);
            RdmaCmException error = victim.events().error.get(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(error).as("the victim's error").isInstanceOf(DataPathException.class);
            check.check((DataPathException) error);
            WcStatus status = peer.nextSendStatus();
            peerCompletion = "IBV_WC_" + status.name();
            victim.events().closed.get(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            DataPathException e = (DataPathException) error;
            rows.add("| " + what + " | `" + e.getClass().getSimpleName() + "`"
                    + (e.completionStatus() == null ? "" : " (" + e.completionStatus() + ")") + ": "
                    + firstLine(e).replaceAll("^.*?: (protocol violation|a work completion)", "$1")
                            .replace("|", "\\|") + " | " + peerCompletion + " |");
        }
        assertThat(victim.events().mine()).as("the victim's callbacks").contains("victim:error", "victim:closed");
        checkHealthyTraffic();
    }

    /** The exception's message without the id's history that follows it (one table cell). */
    private static String firstLine(Exception e) {
        return e.getMessage().lines().findFirst().orElse("");
    }

    /** A batch of checked messages on the healthy connection: all acknowledged, all in order, none corrupted. */
    private void checkHealthyTraffic() throws Exception {
        healthySender.send(healthy, HEALTHY_BATCH, 64);
        for (var f : healthySender.sends) {
            await(f);
        }
        org.awaitility.Awaitility.await().atMost(CmFixtures.WAIT)
                .until(() -> healthyReceiver.inOrder.get() == healthySender.sent());
        assertThat(healthyReceiver.outOfOrder.get()).as(healthyReceiver.describe()).isZero();
        assertThat(healthyReceiver.corrupted.get()).as(healthyReceiver.describe()).isZero();
    }
}
