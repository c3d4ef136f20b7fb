package org.rdmacm4j.verbs.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;

/**
 * Per-thread scratch memory for the arguments of one native call (a sockaddr, an attribute
 * struct, a conn_param, an out-cell), in place of a confined Arena opened and closed around each
 * call: each thread keeps one 4 KiB block and hands out zeroed slices of it until {@link #close()},
 * so a call allocates no native memory and no arena (issue 21: the dispatcher made a dozen such
 * arenas per connection, each a malloc, a memset and a free, and their objects). The block is
 * zeroed once when it is given back (the bytes handed out, in one copy from a zero array), not
 * slice by slice: a fill per allocation was a bounds-checked call per argument of every call.
 *
 * <pre>{@code
 * try (Scratch s = Scratch.open()) {
 *     CmLib.bindAddr(self, Sockaddrs.write(s, address));
 * }
 * }</pre>
 *
 * <p>A slice is valid only until the scratch is closed and only on the thread that opened it: the
 * callers pass slices to the native call and copy out what they need before closing, as they did
 * with the confined arena. A nested {@link #open()} on the same thread (a call made while another
 * one holds the block) gets its own confined arena instead, as does a request that does not fit.
 */
public final class Scratch implements SegmentAllocator, AutoCloseable {
    private static final long CAPACITY = 4096;
    /**
     * What {@link #close()} copies over the used part of the block. Never written. Native, not a heap
     * segment ({@code MemorySegment.ofArray}): a process's first heap segment loads a second segment
     * implementation, after which C1 devirtualizes no segment access by class hierarchy and the FFM
     * code compiled before is made not entrant (docs/benchmarks.md, "Two artefacts of the measuring").
     */
    private static final MemorySegment ZEROS = Arena.global().allocate(CAPACITY, 16);
    /** The thread's pooled scratch: a {@link PerThread}, not a bare ThreadLocal (a JNI call per lookup under C1). */
    private static final PerThread<Scratch> MINE = new PerThread<>(() -> new Scratch(true));

    /** The thread's block (null for a nested scratch, which uses {@link #overflow} only). */
    private final MemorySegment block;
    private long used;
    private boolean inUse;
    private Arena overflow;

    private Scratch(boolean pooled) {
        // Arena.ofAuto(): the block lives as long as its thread's ThreadLocal entry (and PerThread's cache).
        this.block = pooled ? Arena.ofAuto().allocate(CAPACITY, 16) : null;
    }

    /** This thread's scratch, empty; close it when the call is done (try-with-resources). */
    public static Scratch open() {
        Scratch s = MINE.get();
        if (s.inUse) {
            s = new Scratch(false);
        }
        s.inUse = true;
        return s;
    }

    /** A zeroed slice of {@code byteSize} bytes aligned to {@code byteAlignment}, valid until {@link #close()}. */
    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        if (!inUse) {
            throw new IllegalStateException("scratch used after close");
        }
        if (block != null) {
            long start = (used + byteAlignment - 1) & -byteAlignment;
            if (byteAlignment <= 16 && start + byteSize <= CAPACITY) {
                used = start + byteSize;
                return block.asSlice(start, byteSize);   // zero: the block is zeroed when given back
            }
        }
        if (overflow == null) {
            overflow = Arena.ofConfined();
        }
        return overflow.allocate(byteSize, byteAlignment);   // zeroed by the arena
    }

    /** Gives the block back zeroed (its slices are dead from here on) and frees any overflow. */
    @Override
    public void close() {
        if (used > 0) {
            MemorySegment.copy(ZEROS, 0, block, 0, used);
        }
        used = 0;
        inUse = false;
        if (overflow != null) {
            Arena a = overflow;
            overflow = null;
            a.close();
        }
    }
}
