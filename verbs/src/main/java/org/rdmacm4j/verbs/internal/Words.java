package org.rdmacm4j.verbs.internal;

import java.nio.ByteOrder;

/**
 * Several small struct fields as one 8-byte word: packed or unpacked with shifts, so that fields
 * sharing a word cost one segment access instead of one each (a sockaddr_in's family, port and
 * address; rdma_conn_param's seven u8s; two adjacent u32s).
 *
 * <p>Why: the launchers run C1 only, where each {@code MemorySegment.get/set(ValueLayout, offset)}
 * is a VarHandle invocation chain; JFR of the dispatcher in a warm CmBench run (issue 21) put 13.5 %
 * of its Java samples in such accesses. Fewer accesses, not a different kind: a bulk
 * {@code MemorySegment.copy} of a whole struct into a per-thread {@code long[]} (tried first) was
 * slower under C1 than the accesses it replaced. That copy ends in {@code Unsafe.copyMemory0}, a JNI
 * call C1 does not intrinsify: ~50 ns, while a constant-offset get or set runs in ~3 ns (C1
 * microbenchmark on the host, 2026-11-28: ten ibv_qp_init_attr field writes 31 ns, the same struct
 * through a per-thread image 64 ns even when written word by word, for the image's own calls).
 *
 * <p>Little-endian only (x86-64 and aarch64 Linux, the targets): the first byte of a field is the
 * low byte of the word. The class refuses to load on a big-endian platform, and each user checks at
 * class initialisation, from the {@link Layouts} offsets, that the fields it packs share the word.
 */
public final class Words {
    static {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new ExceptionInInitializerError("Words packs struct fields little-endian; this platform is "
                    + ByteOrder.nativeOrder());
        }
    }

    private Words() { }

    /** Two 32-bit fields, {@code lo} at the word's address and {@code hi} 4 bytes after it. */
    public static long ints(int lo, int hi) {
        return (lo & 0xFFFFFFFFL) | ((long) hi << 32);
    }

    /** Two 16-bit fields, {@code lo} at the int's address and {@code hi} 2 bytes after it. */
    public static int shorts(int lo, int hi) {
        return (lo & 0xFFFF) | (hi & 0xFFFF) << 16;
    }

    /** The 32-bit field at the word's address. */
    public static int lo(long word) {
        return (int) word;
    }

    /** The 32-bit field 4 bytes after the word's address. */
    public static int hi(long word) {
        return (int) (word >>> 32);
    }

    /** The unsigned 16-bit field at byte {@code at} (0..6) of the word. */
    public static int u16(long word, int at) {
        return (int) (word >>> (at << 3)) & 0xFFFF;
    }

    /** Eight bytes (the low 8 bits of each argument), {@code b0} at the word's address. */
    public static long bytes(int b0, int b1, int b2, int b3, int b4, int b5, int b6, int b7) {
        return (b0 & 0xFFL) | (b1 & 0xFFL) << 8 | (b2 & 0xFFL) << 16 | (b3 & 0xFFL) << 24
                | (b4 & 0xFFL) << 32 | (b5 & 0xFFL) << 40 | (b6 & 0xFFL) << 48 | (b7 & 0xFFL) << 56;
    }

    /** Bytes {@code at .. at + 7} of {@code b} as the word that holds them in memory, {@code b[at]} first. */
    public static long bytesOf(byte[] b, int at) {
        return bytes(b[at], b[at + 1], b[at + 2], b[at + 3], b[at + 4], b[at + 5], b[at + 6], b[at + 7]);
    }

    /** The word's eight bytes into {@code b} from {@code at}, the byte at the word's address first. */
    public static void unpack(long word, byte[] b, int at) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (word >>> (i << 3));
        }
    }

    /**
     * For class initialisers: throws unless {@code offsets[i] == word + i * step} for every field,
     * with {@code word} 8-byte aligned and the last field ending within the word ({@code step}: each
     * field's size).
     */
    public static void check(String what, long word, int step, long... offsets) {
        if ((word & 7) != 0) {
            throw new ExceptionInInitializerError(what + ": the word at " + word + " is not 8-byte aligned");
        }
        for (int i = 0; i < offsets.length; i++) {
            if (offsets[i] != word + (long) i * step || offsets[i] + step > word + 8) {
                throw new ExceptionInInitializerError(what + ": field " + i + " at " + offsets[i]
                        + " is not at " + (word + (long) i * step) + " in the word at " + word);
            }
        }
    }
}
