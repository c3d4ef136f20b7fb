package org.rdmacm4j.it.core;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.RdmaConnection;

/**
 * Messages that prove what arrived: each carries its sequence number, a payload derived from it,
 * and a CRC-32 of both. The receiving side counts messages delivered in order and intact, and
 * every anomaly (a gap, a duplicate, a reordering, a bad checksum) separately, so a scenario can
 * assert "every acknowledged send delivered exactly once, in order, nothing corrupted".
 * (Not a test class; also used by the two-host scenarios.)
 */
public final class CheckedTraffic {
    static final int HEADER = 12;   // seq (8) + crc (4)

    private CheckedTraffic() { }

    /** Message {@code seq} of {@code size} bytes (at least the header). */
    public static byte[] message(long seq, int size) {
        byte[] m = new byte[Math.max(size, HEADER)];
        MemorySegment s = MemorySegment.ofArray(m);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
        for (int i = HEADER; i < m.length; i++) {
            m[i] = (byte) (seq * 131 + i * 7);
        }
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 8, crc(s, m.length));
        return m;
    }

    private static int crc(MemorySegment m, int length) {
        CRC32 c = new CRC32();
        for (int i = 0; i < length; i++) {
            if (i < 8 || i >= HEADER) {
                c.update(m.get(ValueLayout.JAVA_BYTE, i));
            }
        }
        return (int) c.getValue();
    }

    /** The receiving side: checks every message on the poller thread. */
    public static final class Receiver implements ConnectionHandler {
        public final AtomicLong inOrder = new AtomicLong();
        public final AtomicLong corrupted = new AtomicLong();
        public final AtomicLong outOfOrder = new AtomicLong();

        @Override
        public void onMessage(RdmaConnection c, MemorySegment m) {
            if (m.byteSize() < HEADER
                    || m.get(ValueLayout.JAVA_INT_UNALIGNED, 8) != crc(m, (int) m.byteSize())) {
                corrupted.incrementAndGet();
                return;
            }
            long seq = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            if (seq == inOrder.get()) {
                inOrder.incrementAndGet();
            } else {
                outOfOrder.incrementAndGet();   // a gap, a duplicate or a reordering
            }
        }

        public String describe() {
            return inOrder.get() + " in order, " + outOfOrder.get() + " out of order, " + corrupted.get() + " corrupted";
        }
    }

    /** The sending side: sends a numbered run and keeps the futures (an acknowledged send = a completed one). */
    public static final class Sender {
        private long next;
        public final List<CompletableFuture<Void>> sends = new ArrayList<>();

        public void send(RdmaConnection c, int count, int size) {
            for (int i = 0; i < count; i++) {
                sends.add(c.send(message(next++, size)));
            }
        }

        public long sent() {
            return next;
        }

        public long acknowledged() {
            return sends.stream().filter(f -> f.isDone() && !f.isCompletedExceptionally()).count();
        }
    }
}
