package org.rdmacm4j.cm.core.internal.poll;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.MemoryRegion;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;

/**
 * The per-device pool of registered message buffers: slabs registered once (local access only),
 * sliced into fixed-size slots by size class (powers of two from 64 bytes), leased to connections
 * for their sends and receives and returned when their QP is gone. Nothing is registered per
 * message or per connection. Any thread (leases and returns are rare and synchronized).
 */
public final class SlotPool implements AutoCloseable {
    /** One registered buffer: its native view, address and local key. */
    public record Slot(MemorySegment segment, long address, int lkey) { }

    private static final int MIN_SLOT = 64;
    private static final long SLAB_BYTES = 1 << 20;
    /**
     * At most this many slots per slab. Without the cap a slab of the smallest class held 16,384
     * slots: every connection's one-sided results (16 slots of 8 bytes) on a fresh pool paid for
     * zeroing and registering 1 MiB and building 16,384 slices, and connections made one at a
     * time paid it again each time the device was reopened (docs/benchmarks.md, profile). Classes of
     * 4 KiB and more are unchanged (a 1 MiB slab holds at most 256 of them anyway).
     */
    private static final long MAX_SLOTS_PER_SLAB = 256;

    private record Slab(Arena arena, MemoryRegion region) { }

    private final ProtectionDomain pd;
    private final Map<Integer, ArrayDeque<Slot>> free = new HashMap<>();
    private final List<Slab> slabs = new ArrayList<>();
    private boolean closed;

    public SlotPool(ProtectionDomain pd) {
        this.pd = pd;
    }

    public static int sizeClass(int bytes) {
        return Math.max(MIN_SLOT, Integer.highestOneBit(Math.max(1, bytes) - 1) << 1);
    }

    /** {@code count} slots of at least {@code bytes} each; registers a new slab if needed. */
    public synchronized Slot[] lease(int count, int bytes) {
        if (closed) {
            throw new IllegalStateException("the device's buffer pool is closed");
        }
        int size = sizeClass(bytes);
        ArrayDeque<Slot> q = free.computeIfAbsent(size, k -> new ArrayDeque<>());
        while (q.size() < count) {
            addSlab(size, q, count - q.size());
        }
        Slot[] out = new Slot[count];
        for (int i = 0; i < count; i++) {
            out[i] = q.poll();
        }
        return out;
    }

    public synchronized void release(Slot[] slots) {
        for (Slot s : slots) {
            if (s != null) {
                free.get((int) s.segment().byteSize()).add(s);
            }
        }
    }

    private void addSlab(int size, ArrayDeque<Slot> q, int atLeast) {
        long n = Math.max(atLeast, Math.min(SLAB_BYTES / size, MAX_SLOTS_PER_SLAB));
        Arena arena = Arena.ofShared();
        try {
            MemorySegment mem = arena.allocate(n * size, 4096);
            MemoryRegion mr = pd.register(mem, Access.LOCAL_WRITE);
            slabs.add(new Slab(arena, mr));
            for (long i = 0; i < n; i++) {
                MemorySegment s = mem.asSlice(i * size, size);
                q.add(new Slot(s, s.address(), mr.lkey()));
            }
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** Deregisters every slab. Every lease must have been returned (the device's last QP is gone). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Slab s : slabs) {
            s.region().close();
            s.arena().close();
        }
        slabs.clear();
        free.clear();
    }
}
