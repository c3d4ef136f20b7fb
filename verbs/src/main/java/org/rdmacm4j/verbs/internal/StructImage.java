package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A C struct copied into (or assembled in) a {@code long[]} of the calling thread, so that its
 * fields are read and written with plain shifts and the native memory is touched by one bulk
 * {@code MemorySegment.copy} per struct instead of one segment access per field.
 *
 * <p>Why: the launchers run C1 only, and under C1 every {@code MemorySegment.get/set(ValueLayout,
 * offset)} is a whole VarHandle invocation chain (guards, segment and session checks,
 * ScopedMemoryAccess, Unsafe), ~100+ instructions per field. JFR of the dispatcher in a warm
 * CmBench run (issue 21, 1 ms sampling) put 13.5 % of its Java samples in such accesses, led by
 * {@code QpInitAttributes.write} (156 of 6,176), {@code Decode.connParam} (106) and
 * {@code CmEventChannel.copy} (43). A bulk copy has its own fixed cost (argument checks and an
 * Unsafe copy, a few hundred instructions), so this pays from about three fields up; one or two
 * fields stay plain {@code get}s (or are cached where the value cannot change).
 *
 * <pre>{@code
 * StructImage img = StructImage.mine().load(segment, offset, SIZE);   // SIZE = StructImage.size(struct)
 * int x = img.u32(FIELD_OFFSET);
 * }</pre>
 *
 * <p>Offsets are the {@link Layouts}/{@link CStruct} offsets, relative to where the image was loaded
 * (or will be stored). The words are little-endian images of the memory, so the class refuses to
 * load on a big-endian platform (x86-64 and aarch64 Linux, the targets, are little-endian). A field
 * may straddle two words; sizes are multiples of 8 (C structs with a pointer or a 64-bit member are).
 *
 * <p>One image per thread, not reentrant: take everything out of it before calling code that may
 * use it again (each user here loads, reads into locals, and is done; nothing in between calls out).
 */
public final class StructImage {
    static {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new ExceptionInInitializerError("StructImage decodes native memory as little-endian; this platform is "
                    + ByteOrder.nativeOrder());
        }
    }

    /** The largest struct (part) an image holds, in bytes. */
    public static final int CAPACITY = 256;
    private static final PerThread<StructImage> MINE = new PerThread<>(StructImage::new);

    private final long[] words = new long[CAPACITY / 8];

    private StructImage() { }

    /** The calling thread's image (see the class comment: not reentrant). */
    public static StructImage mine() {
        return MINE.get();
    }

    /** {@code bytes} checked for use as an image size (a multiple of 8, at most {@link #CAPACITY}); for static finals. */
    public static int size(long bytes) {
        if (bytes <= 0 || bytes > CAPACITY || (bytes & 7) != 0) {
            throw new IllegalArgumentException("struct image size must be a positive multiple of 8 up to " + CAPACITY
                    + ": " + bytes);
        }
        return (int) bytes;
    }

    /** {@link #size(long)} of the whole struct. */
    public static int size(CStruct struct) {
        return size(struct.size());
    }

    /** Copies {@code size} bytes of {@code s} from {@code offset} into this image, in one bulk copy. */
    public StructImage load(MemorySegment s, long offset, int size) {
        MemorySegment.copy(s, JAVA_LONG_UNALIGNED, offset, words, 0, size >>> 3);
        return this;
    }

    /** Zeroes the first {@code size} bytes of this image (before assembling a struct in it). */
    public StructImage clear(int size) {
        Arrays.fill(words, 0, size >>> 3, 0L);
        return this;
    }

    /** Copies the first {@code size} bytes of this image to {@code s} at {@code offset}, in one bulk copy. */
    public void store(MemorySegment s, long offset, int size) {
        MemorySegment.copy(words, 0, s, JAVA_LONG_UNALIGNED, offset, size >>> 3);
    }

    public long u64(long offset) {
        return get(offset, 8);
    }

    /** A 32-bit field as Java's int (signed: as {@code get(JAVA_INT, ...)} gives it). */
    public int i32(long offset) {
        return (int) get(offset, 4);
    }

    public int u16(long offset) {
        return (int) get(offset, 2);
    }

    public int u8(long offset) {
        return (int) get(offset, 1);
    }

    public void putU64(long offset, long value) {
        put(offset, 8, value);
    }

    public void putI32(long offset, int value) {
        put(offset, 4, value);
    }

    public void putU16(long offset, int value) {
        put(offset, 2, value);
    }

    public void putU8(long offset, int value) {
        put(offset, 1, value);
    }

    /** The {@code bytes}-byte little-endian field at {@code offset}, zero-extended. */
    private long get(long offset, int bytes) {
        int i = (int) (offset >>> 3);
        int shift = (int) (offset & 7) << 3;
        long v = words[i] >>> shift;
        if (shift + (bytes << 3) > 64) {   // straddles into the next word (shift > 0 here)
            v |= words[i + 1] << (64 - shift);
        }
        return bytes == 8 ? v : v & ((1L << (bytes << 3)) - 1);
    }

    /** Writes the low {@code bytes} bytes of {@code value} at {@code offset}, leaving the other bytes as they are. */
    private void put(long offset, int bytes, long value) {
        int i = (int) (offset >>> 3);
        int shift = (int) (offset & 7) << 3;
        long mask = bytes == 8 ? -1L : (1L << (bytes << 3)) - 1;
        long v = value & mask;
        words[i] = (words[i] & ~(mask << shift)) | (v << shift);
        if (shift + (bytes << 3) > 64) {   // the rest goes to the next word (shift > 0 here)
            int rest = 64 - shift;
            words[i + 1] = (words[i + 1] & ~(mask >>> rest)) | (v >>> rest);
        }
    }
}
