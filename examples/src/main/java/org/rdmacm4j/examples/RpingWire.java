package org.rdmacm4j.examples;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * rping's wire format, for {@link Rping}: the 16-byte buffer advertisement
 * ({@code struct rping_rdma_info { __be64 buf; __be32 rkey; __be32 size; }}) and the ping pattern,
 * {@code rdma-ping-N: } then letters cycling from {@code 'A' + N} through {@code 'z'}, NUL-terminated.
 */
final class RpingWire {
    private static final ValueLayout.OfLong BE64 = JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private RpingWire() { }

    /** {@code struct rping_rdma_info}: a buffer the peer may RDMA READ or WRITE. */
    record RdmaInfo(long address, int rkey, int size) {
        static final int BYTES = 16;

        static RdmaInfo read(MemorySegment s) {
            return new RdmaInfo(s.get(BE64, 0), s.get(BE32, 8), s.get(BE32, 12));
        }

        void write(MemorySegment s) {
            s.set(BE64, 0, address);
            s.set(BE32, 8, rkey);
            s.set(BE32, 12, size);
        }
    }

    static byte[] pattern(int ping, int size) {
        byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        byte[] b = new byte[size];
        for (int i = 0, c = 65 + ping % 58; i < size; i++) {
            if (i < head.length) {
                b[i] = head[i];
                continue;
            }
            b[i] = (byte) c;
            c = c == 122 ? 65 : c + 1;
        }
        b[size - 1] = 0;
        return b;
    }

    /** The NUL-terminated ASCII text at the start of {@code s}. */
    static String text(MemorySegment s) {
        long n = 0;
        while (n < s.byteSize() && s.get(JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(s.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
    }
}
