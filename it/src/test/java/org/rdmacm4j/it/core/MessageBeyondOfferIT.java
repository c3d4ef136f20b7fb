package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.DataPathException;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.cm.CmEventType;

/**
 * A raw verbs peer ({@link RawVerbsPeer}) sends a message longer than the victim offered but within
 * the victim's receive slot (offer 200 bytes, slot 256: the pool's size class). Found by the fuzz
 * work of issue 19 (docs/fuzz.md): such a message used to be delivered to a handler promised at
 * most 200 bytes; now it is a protocol violation (PeerConduct.lengthViolation) and the connection
 * is torn down with a DataPathException, nothing delivered. A 200-byte message first shows the
 * limit itself is still delivered. (A frame beyond the slot: WireFaultsIT.)
 */
@SoftRoceTest
class MessageBeyondOfferIT {
    private static final MessagingOptions VICTIM = new MessagingOptions(200, 8, 64);

    /** The recorder's events plus the sizes of the messages delivered. */
    private record Victim(RdmaConnection connection, CmFixtures.Recorder events, List<Long> delivered) { }

    @Test
    void aMessageBeyondTheOfferButWithinTheSlotIsAProtocolViolation() throws Exception {
        LinkedBlockingQueue<Victim> victims = new LinkedBlockingQueue<>();
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener listener = cm.listen(CmFixtures.server(0), ListenOptions.defaults(), r -> {
                CmFixtures.Recorder rec = new CmFixtures.Recorder("victim");
                List<Long> delivered = new CopyOnWriteArrayList<>();
                ConnectionHandler h = new ConnectionHandler() {
                    @Override public void onError(RdmaConnection c, RdmaCmException e) { rec.onError(c, e); }
                    @Override public void onDisconnected(RdmaConnection c) { rec.onDisconnected(c); }
                    @Override public void onClosed(RdmaConnection c) { rec.onClosed(c); }
                    @Override public void onMessage(RdmaConnection c, MemorySegment m) { delivered.add(m.byteSize()); }
                };
                r.accept(h, AcceptOptions.defaults().messaging(VICTIM))
                        .thenAccept(c -> victims.add(new Victim(c, rec, delivered)));
            });
            try (RawVerbsPeer peer = new RawVerbsPeer(CmFixtures.target(listener),
                    RawVerbsPeer.offer(0xD1, 4096, 8))) {
                assertThat(peer.outcome.type()).as("the raw peer's connect: " + peer.outcome)
                        .isEqualTo(CmEventType.ESTABLISHED);
                Victim victim = victims.poll(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(victim).as("the victim connection accepted").isNotNull();
                assertThat(victim.connection().maxMessageSize()).isEqualTo(200);

                peer.sendMessages(1, 200, 0);   // exactly the offer: delivered
                org.awaitility.Awaitility.await().atMost(CmFixtures.WAIT).until(() -> victim.delivered().size() == 1);
                assertThat(victim.delivered()).containsExactly(200L);

                peer.sendMessages(1, 256, 0);   // the slot's size, 56 bytes beyond the offer
                RdmaCmException error = victim.events().error.get(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(error).isInstanceOf(DataPathException.class);
                assertThat(error.getMessage()).contains("protocol violation")
                        .contains("a message of 256 bytes but was offered at most 200");
                victim.events().closed.get(CmFixtures.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(victim.delivered()).as("nothing beyond the offer delivered").containsExactly(200L);
            }
            await(listener.close());
        }
    }
}
