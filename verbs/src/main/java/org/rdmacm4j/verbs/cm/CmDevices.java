package org.rdmacm4j.verbs.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.ADDRESS_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.rdmacm4j.verbs.Rdma;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.internal.CmLib;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Scratch;
import org.rdmacm4j.verbs.internal.Secrets;

/**
 * {@code rdma_get_devices}: the device contexts librdmacm itself uses for its ids, as borrowed
 * views. A PD allocated here can serve every id on that device ({@code rdma_create_qp} needs
 * pd->context == id->verbs, which a context opened with ibv_open_device never is).
 * {@link #close()} is {@code rdma_free_devices}; PDs made from the views must be closed first.
 *
 * <p>Threads: the owner's.
 */
public final class CmDevices implements AutoCloseable {
    private final MemorySegment list;
    private final Ownership ownership;
    private final List<DeviceContext> contexts;

    private CmDevices(MemorySegment list, int count) {
        this.list = list;
        this.ownership = new Ownership("CmDevices(" + count + ")");
        ownership.watch(this);
        MemorySegment array = list.reinterpret(ADDRESS.byteSize() * (count + 1L));
        List<DeviceContext> views = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            views.add(Secrets.ibv().borrowContext(array.getAtIndex(ADDRESS_UNALIGNED, i), "CmDevices.context", ownership));
        }
        this.contexts = List.copyOf(views);
    }

    /** {@code rdma_get_devices}. */
    public static CmDevices open() {
        Rdma.requireLibraries();
        try (Scratch arena = Scratch.open()) {
            MemorySegment n = arena.allocate(JAVA_INT);
            MemorySegment list = CmLib.getDevices(n);
            return new CmDevices(list, n.get(JAVA_INT_UNALIGNED, 0));
        }
    }

    /** Borrowed views, one per device. */
    public List<DeviceContext> contexts() {
        ownership.ensureOpen();
        return contexts;
    }

    /** The view of the device called {@code name}, or null. */
    public DeviceContext byName(String name) {
        for (DeviceContext c : contexts()) {
            if (c.deviceName().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /** Closes the views (fails while PDs made from them are open), then {@code rdma_free_devices}. Idempotent. */
    @Override
    public void close() {
        if (ownership.isClosed()) {
            return;
        }
        for (DeviceContext c : contexts) {
            c.close();
        }
        ownership.close(() -> CmLib.freeDevices(list.address()));
    }

    @Override
    public String toString() {
        return ownership.toString();
    }
}
