package org.rdmacm4j.cm.core.internal.nativeport;

import static org.rdmacm4j.cm.core.internal.nativeport.PortFailures.closeQuietly;
import static org.rdmacm4j.cm.core.internal.nativeport.PortFailures.failed;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.cm.CmDevices;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.ibv.DeviceAttributes;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.sys.Epoll;

/**
 * The devices in use: opens an id's device on first use (its PD and slot pool, its async fd in
 * the port's epoll, epoll tokens from 100 up, clear of the port's own), keeps it while any id of
 * the port is bound to it, releases it when its last bound id goes (before that id's
 * rdma_destroy_id), keeps a released PD that still holds the application's memory regions until
 * they are gone, closes them all with the port, and caches each device's limits.
 *
 * <p>Why a device outlives its last QP (issue 21): connections made one at a time used to reopen
 * it every time (rdma_get_devices with its device scan, a PD, the pool's registered slab, two
 * epoll_ctl, and all of it freed again at close), work C's loop does once. It stays open only
 * while an id of the port is bound to it, and librdmacm keeps the device context open for exactly
 * as long (a bound id holds its reference), so the PD is always freed before librdmacm may close
 * the context it was made from (a removed device included: see {@link #beforeDestroy}).
 *
 * <p>Threads: the dispatcher's.
 */
final class Devices {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private static final int ENODEV = 19;

    private final Epoll epoll;
    /** The port's ids (shared with VerbsCmPort): which of them are still bound to an idle device. */
    private final BoundIds<VerbsId> bound;
    private final Map<Long, Device> devices = new HashMap<>();
    /** Devices open with no id using them (kept for the ids still bound to them). */
    private int idle;
    /**
     * Devices whose last id is gone but whose PD still holds the application's own memory
     * regions (raw access: registered on {@link org.rdmacm4j.cm.core.RawQueuePair#protectionDomain()}
     * and deregistered after the connection closed). Closed at the next release or at close().
     */
    private final List<Device> lingering = new ArrayList<>();
    private final Map<Long, CmTuning> limitsByContext = new HashMap<>();
    private final Map<Long, Boolean> iwarpByContext = new HashMap<>();
    /**
     * The last device and context answers looked up, in front of the maps: a port nearly always
     * has one device, and each lookup by a context handle (an address, so a new {@code Long} each)
     * came once or twice per connection. {@link #lastDevice} is cleared when its device leaves
     * {@link #devices}; the limits and iWARP answers are never evicted, like the maps' entries.
     */
    private Device lastDevice;
    private long lastLimitsHandle;
    private CmTuning lastLimits;
    private long lastIwarpHandle;
    private boolean lastIwarp;
    private long nextDeviceToken = 100;
    /** When the devices' spare CQs beyond the steady number go (shared by every device's CqSpares). */
    final SpareTrim spareTrim;

    Devices(Epoll epoll, Map<CmId, VerbsId> ids, SpareTrim spareTrim) {
        this.epoll = epoll;
        this.bound = new BoundIds<>(ids.values(), VerbsId::boundToDevice);
        this.spareTrim = spareTrim;
    }

    /**
     * Destroys up to {@code batch} spare CQs beyond the steady number, device by device, and tells
     * {@link #spareTrim} whether any device still holds a surplus.
     */
    void trimSpares(int batch) {
        int budget = batch;   // one batch per turn over all devices
        boolean left = false;
        for (Device d : devices.values()) {
            budget -= d.spares.trimSurplus(budget);
            left |= d.spares.size() > CqSpares.STEADY;
        }
        spareTrim.trimmed(left);
    }

    /** The devices open now, as a copy (their async events are drained while ids come and go). */
    List<Device> inUse() {
        return List.copyOf(devices.values());
    }

    /** True while our PD, pool or a lingering PD on the context {@code handle} is open (DeviceLoss). */
    boolean holds(long handle) {
        if (devices.containsKey(handle)) {
            return true;
        }
        for (Device d : lingering) {
            if (d.context.handle() == handle) {
                return true;
            }
        }
        return false;
    }

    /** The device of the id, opened (PD allocated, async fd watched) on first use. */
    Device deviceOf(VerbsId id) {
        if (id.device != null) {
            return id.device;
        }
        long handle = id.cmId.deviceHandle();   // no context view per id: the device's own serves
        if (handle == 0) {
            throw new PortCallException("rdma_create_qp", ENODEV, "the id is not bound to a device", null);
        }
        Device dev = device(handle);
        if (dev != null && dev.users == 0) {
            idle--;
        }
        if (dev == null) {
            CmDevices snapshot = CmDevices.open();
            DeviceContext ctx = null;
            for (DeviceContext c : snapshot.contexts()) {
                if (c.handle() == handle) {
                    ctx = c;
                }
            }
            if (ctx == null) {
                snapshot.close();
                throw new PortCallException("rdma_create_qp", ENODEV,
                        "the id's device is not in rdma_get_devices' list", null);
            }
            try {
                dev = new Device(snapshot, ctx, nextDeviceToken++, spareTrim);
                ctx.setAsyncNonBlocking(true);
                epoll.add(ctx.asyncFd(), dev.token);
            } catch (RdmaException e) {
                if (dev != null) {
                    closeQuietly(dev.pd);
                }
                closeQuietly(snapshot);
                throw failed(e);
            }
            devices.put(handle, dev);
            lastDevice = dev;
        }
        dev.users++;
        id.device = dev;
        return dev;
    }

    /**
     * Lets go of the id's device once the id has no QP, CQ or channel; with its last user the
     * device stays open (idle) if another id of the port is still bound to it, else it is closed.
     */
    void releaseIfUnused(VerbsId id) {
        Device dev = id.device;
        if (dev == null || id.qp != null || id.cq != null || id.channel != null) {
            return;
        }
        id.device = null;
        if (--dev.users > 0) {
            return;
        }
        if (boundElsewhere(dev, id)) {
            idle++;
            return;
        }
        release(dev);
    }

    /**
     * Called before {@code id}'s rdma_destroy_id: closes an idle device that only this id still
     * holds bound (librdmacm may close the device context once its last bound id is destroyed, and
     * the PD must go first). Cheap when no device is idle, as in every storm.
     */
    void beforeDestroy(VerbsId id) {
        if (idle == 0) {
            return;
        }
        long handle = id.cmId.deviceHandle();
        Device dev = handle == 0 ? null : device(handle);
        if (dev != null && dev.users == 0 && !boundElsewhere(dev, id)) {
            idle--;
            release(dev);
        }
    }

    /**
     * An idle device whose hardware reported a fatal error (IBV_EVENT_DEVICE_FATAL, no id using it
     * to hear it): closed now rather than at its last bound id's destroy.
     */
    void fatal(Device dev) {
        if (dev.users == 0 && devices.get(dev.context.handle()) == dev) {
            idle--;
            release(dev);
        }
    }

    /** The open device of the context {@code handle}, or null. */
    private Device device(long handle) {
        Device last = lastDevice;
        if (last != null && last.context.handle() == handle) {
            return last;
        }
        Device dev = devices.get(handle);
        if (dev != null) {
            lastDevice = dev;
        }
        return dev;
    }

    /** True if an open id of the port other than {@code except} is bound to the device ({@link BoundIds}). */
    private boolean boundElsewhere(Device dev, VerbsId except) {
        return bound.boundElsewhere(dev.context.handle(), except);
    }

    private void release(Device dev) {
        devices.values().remove(dev);
        if (lastDevice == dev) {
            lastDevice = null;
        }
        try {
            epoll.remove(dev.context.asyncFd());
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "epoll remove of an async fd: " + e);
        }
        dev.spares.close();   // CQs of the device's context: before its last bound id lets it go
        closeQuietly(dev.pool);
        lingering.add(dev);
        closeLingering(false);
    }

    /** Closes the PD and device list of every lingering device whose PD the application has emptied. */
    private void closeLingering(boolean last) {
        for (Iterator<Device> it = lingering.iterator(); it.hasNext(); ) {
            Device dev = it.next();
            try {
                dev.pd.close();
            } catch (IllegalStateException e) {
                if (!last) {
                    LOG.log(Level.DEBUG, "the application still has objects on " + dev.pd + "; closed later");
                    continue;
                }
                LOG.log(Level.ERROR, "closing " + dev.pd + " failed (the application did not close its objects)", e);
            }
            it.remove();
            closeQuietly(dev.snapshot);
        }
    }

    /** The device's limits for the id's tuning (queried once per device), or null if the id is unbound. */
    CmTuning limits(VerbsId id) {
        long handle = id.cmId.deviceHandle();
        if (handle == 0) {
            return null;
        }
        if (handle == lastLimitsHandle) {
            return lastLimits;
        }
        CmTuning known = limitsByContext.get(handle);
        if (known == null) {
            DeviceAttributes a = id.cmId.context().query();
            known = new CmTuning(Math.min(255, a.maxQpRdAtom()), Math.min(255, a.maxQpInitRdAtom()), 7, 7);
            limitsByContext.put(handle, known);
        }
        lastLimitsHandle = handle;
        lastLimits = known;
        return known;
    }

    /**
     * True if the id's device is iWARP (asked once per device, like its limits); IllegalStateException
     * if the id is not bound to a device yet.
     */
    boolean isIwarp(VerbsId id) {
        long handle = id.cmId.deviceHandle();
        if (handle == 0) {
            throw new IllegalStateException(id + " is not bound to a device yet");
        }
        if (handle == lastIwarpHandle) {
            return lastIwarp;
        }
        Boolean known = iwarpByContext.get(handle);
        if (known == null) {
            known = id.cmId.context().isIwarp();
            iwarpByContext.put(handle, known);
        }
        lastIwarpHandle = handle;
        lastIwarp = known;
        return known;
    }

    /**
     * Closes every device (a device still held by an id only if no id was leaked: a leaked QP may
     * still use its PD), then the lingering ones.
     */
    void close(boolean idsLeft) {
        for (Device d : List.copyOf(devices.values())) {
            d.spares.close();   // no QP uses a spare CQ, leaked or not
            if (d.users == 0 || !idsLeft) {
                closeQuietly(d.pool);
                closeQuietly(d.pd);
                closeQuietly(d.snapshot);
            }
        }
        devices.clear();
        lastDevice = null;
        idle = 0;
        closeLingering(true);
    }

    /**
     * Answers {@link Devices}' question "is an open id of the port other than this one still bound to
     * the device?", asking first the id that answered it last time.
     *
     * <p>Why (issue 21): the question comes each time a device's last user lets go and before each
     * destroy of an id while a device is idle, two or three times per connection in a loop of one
     * connection at a time, and it walked the port's whole id table each time: an
     * {@code IdentityHashMap} whose iteration scans its whole array, which never shrinks, so after a
     * storm of connections every walk scanned thousands of empty slots, and read each id's state. In
     * such a loop the id that keeps the device bound is nearly always the same one (the listener, or
     * the other end's id); asking it first answers without the walk. The answer is the walk's: the
     * remembered id is put to the same test (which includes still being in the table), and when it
     * fails the walk runs as before.
     *
     * <p>Threads: the dispatcher's.
     *
     * @param <I> the port's ids ({@link VerbsId}; a stand-in in tests)
     */
    static final class BoundIds<I> {
        /** Whether {@code id} is in the port's table, open, and bound to the device context {@code handle}. */
        @FunctionalInterface
        interface Test<I> {
            boolean boundTo(I id, long handle);
        }

        private final Collection<I> ids;
        private final Test<I> test;
        /** The id the last answer found bound, or null. */
        private I last;

        /** {@code ids}: a live view of the port's table. */
        BoundIds(Collection<I> ids, Test<I> test) {
            this.ids = ids;
            this.test = test;
        }

        /** True if an id other than {@code except} passes the test for the device context {@code handle}. */
        boolean boundElsewhere(long handle, I except) {
            I remembered = last;
            if (remembered != null && remembered != except && test.boundTo(remembered, handle)) {
                return true;
            }
            for (I other : ids) {
                if (other != except && test.boundTo(other, handle)) {
                    last = other;
                    return true;
                }
            }
            last = null;   // nothing to remember, nor to keep reachable
            return false;
        }
    }
}
