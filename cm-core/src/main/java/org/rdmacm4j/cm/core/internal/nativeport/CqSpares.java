package org.rdmacm4j.cm.core.internal.nativeport;

import static org.rdmacm4j.cm.core.internal.nativeport.PortFailures.closeQuietly;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.Iterator;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.ibv.CompletionChannel;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.WorkCompletions;

/**
 * One device's spare CQs: a connection's CQ and completion channel that no poller ever saw, kept
 * when its QP is gone for the device's next QP that asks for a CQ of the same size, instead of
 * destroyed and made again.
 *
 * <p>Why (issue 21): a raw connection that never posts (a control connection, cmtime's and our
 * connect/close benchmarks) created a completion channel and a CQ at each end and destroyed them at
 * close: per end {@code ibv_create_comp_channel}, {@code ibv_create_cq} (an ioctl and rxe's queue
 * mapping), {@code ibv_destroy_cq} (an ioctl and the unmapping, a TLB shoot-down in a process of many
 * threads) and the channel's {@code close}, half of it on the connect path of both ends.
 *
 * <p>Why it is safe. Only a CQ whose registration was closed without ever starting is kept
 * ({@code CqRegistration.closedUnused}): nothing was posted on its QP (every path that posts starts
 * the registration first, the application's {@code raw()} included, which is also the only way the
 * application gets hold of the CQ), so it holds no completion, was never armed and so has no channel
 * event to read or ack, and nobody outside the port has it. It is polled once anyway before it is
 * kept (a defence: a completion found means it is destroyed as before). Reused, it is as a new one
 * is: empty, unarmed, its channel non-blocking and without events.
 *
 * <p>Bounded: at most {@link #MAX} per device (two per lone connection; a storm's teardown keeps
 * the last ones and destroys the rest). Destroyed, with their channels, when the device is released
 * (before its last bound id's {@code rdma_destroy_id}: the device context outlives them, as it does
 * the PD) and when the port closes. They show in {@code rdma resource show} while the device is
 * held by a bound id (a listener's), and never after.
 *
 * <p>Threads: the dispatcher's.
 */
final class CqSpares {
    /** The most CQs kept per device. */
    static final int MAX = 16;
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");

    /** A kept CQ, the size it was asked with, and its completion channel. */
    record Spare(int asked, CompletionChannel channel, CompletionQueue cq) { }

    private final ArrayDeque<Spare> spares = new ArrayDeque<>(MAX);
    /** One entry to poll a CQ empty with, made at the first offer. */
    private WorkCompletions probe;

    /** A kept CQ asked with {@code asked} entries, taken out (now the caller's), or null. */
    Spare take(int asked) {
        for (Iterator<Spare> it = spares.iterator(); it.hasNext(); ) {
            Spare s = it.next();
            if (s.asked() == asked) {
                it.remove();
                return s;
            }
        }
        return null;
    }

    /**
     * Keeps {@code cq} (asked with {@code asked} entries) and its {@code channel} if there is room and
     * the CQ is empty with no unacked event; true if kept (now this object's), false if the caller
     * still owns and destroys them. The caller guarantees no poller ever saw the CQ and its QP is gone.
     */
    boolean offer(int asked, CompletionChannel channel, CompletionQueue cq) {
        if (spares.size() >= MAX || channel == null || cq.channel() != channel || cq.unackedEvents() != 0) {
            return false;
        }
        try {
            if (probe == null) {
                probe = WorkCompletions.allocate(1);
            }
            if (cq.poll(probe) != 0) {
                LOG.log(Level.WARNING, cq + " held a completion though nothing was posted; destroyed, not kept");
                return false;
            }
        } catch (RdmaException e) {
            LOG.log(Level.DEBUG, "polling " + cq + " before keeping it: " + e.getMessage());
            return false;
        }
        spares.push(new Spare(asked, channel, cq));   // last in, first out: the warmest mapping first
        return true;
    }

    /** How many CQs are kept now. */
    int size() {
        return spares.size();
    }

    /** Destroys every kept CQ and its channel (idempotent). */
    void close() {
        for (Spare s; (s = spares.poll()) != null; ) {
            closeQuietly(s.cq());
            closeQuietly(s.channel());
        }
        if (probe != null) {
            probe.close();
            probe = null;
        }
    }
}
