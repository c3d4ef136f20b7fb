package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.it.support.ThreadAllocations;

/**
 * Steady-state messaging allocates nothing per message in the library: offer() on the sending
 * thread, and receive, delivery, re-post and credit return on the completion poller (measured
 * under C1, where no escape analysis hides an allocation).
 */
@SoftRoceTest
class MessagingAllocationIT {

    @Test
    void offerAndDeliveryAllocateNothingPerMessage() throws Exception {
        // 128 credits and windows of 8: grants (every 64 messages) may lag far behind under load
        // before a send would have to queue (the queued path copies, by design).
        MessagingOptions options = new MessagingOptions(64, 128, 1024);
        var received = new AtomicLong();
        ConnectionHandler counting = new ConnectionHandler() {
            @Override
            public void onMessage(RdmaConnection c, MemorySegment message) {
                received.incrementAndGet();
            }
        };
        try (RdmaCm cm = RdmaCm.open(); Arena arena = Arena.ofConfined()) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(),
                    r -> r.accept(counting, AcceptOptions.defaults().messaging(options)));
            RdmaConnection c = await(cm.connect(CmFixtures.target(l), ConnectOptions.builder().messaging(options)
                    .build(), ConnectionHandler.none()));
            MemorySegment message = arena.allocate(48);
            long sent = exchange(c, message, 0, 30_000, received);   // warm up (C1 in the guest)

            long pollersBefore = ThreadAllocations.threadsNamed(cm + "-poller");
            long senderBefore = ThreadAllocations.currentThread();
            sent = exchange(c, message, sent, 10_000, received);
            long sender = ThreadAllocations.currentThread() - senderBefore;
            long pollers = ThreadAllocations.threadsNamed(cm + "-poller") - pollersBefore;
            System.out.printf("FIGURE 10,000 messages: sender thread allocated %d bytes, pollers %d bytes%n",
                    sender, pollers);
            // Anything per message would be at least 10,000 x 16 bytes; allow a little fixed noise.
            assertThat(sender).as("bytes allocated by offer() over 10,000 messages").isLessThan(2048);
            assertThat(pollers).as("bytes allocated by the pollers over 10,000 messages").isLessThan(2048);
            await(c.close());
            await(l.close());
        }
    }

    /** Offers in windows of 8 (well inside the 128 credits), waiting for delivery: never queues. */
    private static long exchange(RdmaConnection c, MemorySegment message, long sent, int count, AtomicLong received) {
        long end = sent + count;
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (sent < end) {
            for (int i = 0; i < 8; i++) {
                if (!c.offer(message)) {
                    throw new AssertionError("offer refused at message " + sent);
                }
                sent++;
            }
            while (received.get() < sent) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("delivery stalled at " + received.get() + " of " + sent);
                }
                Thread.onSpinWait();
            }
        }
        return sent;
    }
}
