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
 * <p>Bounded: {@link #STEADY} per device for as long as the device is held (two per lone
 * connection), and up to {@link #KEPT} for a while after a burst: a storm's teardown keeps its CQs
 * instead of destroying them (on rxe an {@code ibv_destroy_cq} is an ioctl, the ring's unmapping and
 * the channel's close: about a third of the teardown's kernel work, s41), and the next storm's setup
 * takes them; once the spares have been left alone for the idle period ({@link SpareTrim}, {@code
 * RdmaCm.Builder.spareCqIdle}, 1 s by default) those beyond {@link #STEADY} go, the coldest first.
 * A burst's spares never outnumber the CQs the burst had open at once, so they hold no more memory
 * or descriptors (a channel's fd each) than the burst did. Destroyed, with their channels, when the
 * device is released (before its last bound id's {@code rdma_destroy_id}: the device context
 * outlives them, as it does the PD) and when the port closes. They show in {@code rdma resource
 * show} while the device is held by a bound id (a listener's), and never after.
 *
 * <p>Threads: the dispatcher's.
 */
final class CqSpares {
    /** The CQs a device keeps for as long as it is held. */
    static final int STEADY = 16;
    /** The most CQs a device keeps after a burst, until {@link SpareTrim} says the surplus goes. */
    static final int KEPT = 1024;
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");

    /** A kept CQ, the size it was asked with, and its completion channel. */
    record Spare(int asked, CompletionChannel channel, CompletionQueue cq) { }

    private final ArrayDeque<Spare> spares = new ArrayDeque<>(STEADY);
    /** The port's, shared by its devices: told of every spare kept or taken. */
    private final SpareTrim trim;
    /** One entry to poll a CQ empty with, made at the first offer. */
    private WorkCompletions probe;

    CqSpares(SpareTrim trim) {
        this.trim = trim;
    }

    /** A kept CQ asked with {@code asked} entries, taken out (now the caller's), or null. */
    Spare take(int asked) {
        for (Iterator<Spare> it = spares.iterator(); it.hasNext(); ) {
            Spare s = it.next();
            if (s.asked() == asked) {
                it.remove();
                trim.changed(false);
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
        if (spares.size() >= KEPT || channel == null || cq.channel() != channel || cq.unackedEvents() != 0) {
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
        trim.changed(spares.size() > STEADY);
        return true;
    }

    /**
     * Destroys up to {@code max} of the spares beyond {@link #STEADY}, the coldest (longest kept)
     * first; returns how many it destroyed.
     */
    int trimSurplus(int max) {
        int destroyed = 0;
        while (destroyed < max && spares.size() > STEADY) {
            Spare s = spares.pollLast();
            closeQuietly(s.cq());
            closeQuietly(s.channel());
            destroyed++;
        }
        return destroyed;
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
