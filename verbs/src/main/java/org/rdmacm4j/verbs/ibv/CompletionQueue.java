package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Native;
import org.rdmacm4j.verbs.internal.OpsTable;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Registry;
import java.util.function.Supplier;

/**
 * A completion queue ({@code struct ibv_cq}). {@link #poll} and {@link #requestNotify} go
 * through the context's ops table as the verbs.h inlines do, and allocate nothing.
 *
 * <p>Completion events received through its channel are counted; {@link #ackEvents()} acks
 * them in one batch (ibv_ack_cq_events takes a mutex). Closing with unacked events is an
 * IllegalStateException: ibv_destroy_cq would wait for them forever.
 *
 * <p>Threads: only the poller thread that owns the CQ.
 */
public final class CompletionQueue implements AutoCloseable {
    private final MemorySegment cq;
    private final Ownership ownership;
    private final CompletionChannel channel;
    private final MemorySegment pollFn;
    private final MemorySegment notifyFn;
    private final int capacity;
    private int unackedEvents;   // owner thread only

    // offsets as constants: a by-name lookup per CQ made is work on every connection's way up
    private static final long CQ_CQE = Layouts.IBV_CQ.offset("cqe");
    private static final long CQ_HANDLE = Layouts.IBV_CQ.offset("handle");

    CompletionQueue(DeviceContext context, CompletionChannel channel, MemorySegment cq) {
        this.cq = cq;
        this.channel = channel;
        // cq->context is the context it was made on: its ops, read once per context
        this.pollFn = context.op(OpsTable.Op.POLL_CQ);
        this.notifyFn = context.op(OpsTable.Op.REQ_NOTIFY_CQ);
        int cqe = cq.get(JAVA_INT_UNALIGNED, CQ_CQE);
        int handle = cq.get(JAVA_INT_UNALIGNED, CQ_HANDLE);
        this.capacity = cqe;
        // the description holds values, never this wrapper: the wrapper's cleaner holds the description
        this.ownership = new Ownership(new What(cqe, handle), context.ownership(), channel == null ? null : channel.ownership());
        ownership.watch(this);
        Registry.put(cq.address(), this);
    }

    MemorySegment segment() {
        ownership.ensureOpen();
        return cq;
    }

    Ownership ownership() {
        return ownership;
    }

    /** The number of entries the provider actually gave (at least what was asked). */
    public int capacity() {
        return capacity;
    }

    /** The completion channel, or null. */
    public CompletionChannel channel() {
        return channel;
    }

    /**
     * {@code ibv_poll_cq} into {@code completions}, at most {@code completions.capacity()}.
     * Returns how many were written (0 if none). Allocation-free.
     */
    public int poll(WorkCompletions completions) {
        return poll(completions, completions.capacity());
    }

    /** {@code ibv_poll_cq} for at most {@code max} completions. Allocation-free. */
    public int poll(WorkCompletions completions, int max) {
        MemorySegment self = segment();
        checkArgument(max >= 0 && max <= completions.capacity(),
                "max %s is outside 0..%s", max, completions.capacity());
        int n;
        try {
            n = (int) OpsTable.POLL_CQ.invokeExact(pollFn, self, max, completions.segment());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        if (n < 0) {
            throw pollFailure(n);
        }
        completions.filled(n);
        return n;
    }

    private static RdmaException pollFailure(int n) {
        return Native.failure("ibv_poll_cq", -n);
    }

    /** {@code ibv_req_notify_cq}: arm the CQ for one completion event on its channel. */
    public void requestNotify(boolean solicitedOnly) {
        MemorySegment self = segment();
        int rc;
        try {
            rc = (int) OpsTable.REQ_NOTIFY_CQ.invokeExact(notifyFn, self.address(), solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        if (rc != 0) {
            throw Native.failure("ibv_req_notify_cq", Math.abs(rc));
        }
    }

    void eventReceived() {
        unackedEvents++;
    }

    /** Completion events received and not yet acked. */
    public int unackedEvents() {
        return unackedEvents;
    }

    /** {@code ibv_ack_cq_events} for every event received so far (one call, one mutex). */
    public void ackEvents() {
        MemorySegment self = segment();
        int n = unackedEvents;
        if (n > 0) {
            IbvLib.ackCqEvents(self, n);
            unackedEvents = 0;
        }
    }

    public boolean isClosed() {
        return ownership.isClosed();
    }

    /**
     * {@code ibv_destroy_cq}. QPs using it must be closed and its events acked first
     * (IllegalStateException otherwise). Idempotent.
     */
    @Override
    public void close() {
        if (ownership.isClosed()) {
            return;
        }
        if (unackedEvents > 0) {
            throw new IllegalStateException("cannot close " + ownership + ": " + unackedEvents
                    + " completion events are not acked (ackEvents() first; ibv_destroy_cq would wait for them)");
        }
        ownership.close(new Destroy(cq));
    }

    /**
     * ibv_destroy_cq, then the registry forgets the CQ: a record, not a capturing lambda, because
     * under C1 (the launchers' JIT) each capturing lambda made is a native call into the VM
     * (docs/benchmarks.md, "Capturing lambdas under C1"), and a CQ may be closed per connection.
     */
    private record Destroy(MemorySegment cq) implements Runnable {
        @Override
        public void run() {
            IbvLib.destroyCq(cq.address());
            Registry.remove(cq.address());
        }
    }

    @Override
    public String toString() {
        return ownership.toString();
    }

    /**
     * The description {@link Ownership} builds on first use: a record, not a lambda, so making one links
     * no call site at a process's first connection (a lambda's would be, since the build's AOT training
     * runs without a device and never reaches this constructor).
     */
    private record What(int cqe, int handle) implements Supplier<String> {
        @Override
        public String get() {
            return "CompletionQueue(cqe " + cqe + ", handle " + handle + ")";
        }
    }
}
