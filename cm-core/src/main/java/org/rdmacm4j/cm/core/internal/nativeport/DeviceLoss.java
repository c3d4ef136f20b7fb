package org.rdmacm4j.cm.core.internal.nativeport;

import java.lang.System.Logger.Level;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.function.Supplier;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.verbs.cm.CmDevices;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.ibv.RemovedDeviceHold;

/**
 * What the port does when a device goes away, so that losing the last device hangs nothing and
 * the device can come back under the same {@code RdmaCm}.
 *
 * <p>Two things, both from rdma-core 44's {@code librdmacm/cma.c} (docs/architecture.md, "When the
 * last device goes"):
 * <ul>
 * <li><b>librdmacm's context on the removed device is let go</b> once nothing of ours is left on
 *     it: librdmacm closes that context only while some other device is listed, and the kernel's
 *     unregister of a device without {@code disassociate_ucontext} (rxe, siw) waits for it. With a
 *     device listed, {@code rdma_get_devices} makes librdmacm close it; with none,
 *     {@link RemovedDeviceHold#replaceFiles()} does.</li>
 * <li><b>No new id while no device is listed.</b> Between a DEVICE_REMOVAL and the next time
 *     libibverbs lists a device, every new id (connect, listen, a listener's re-listen, a datagram
 *     endpoint) is refused with ENODEV before any librdmacm call: librdmacm's global device list is
 *     what its {@code ucma_init} re-enters itself on (a self-deadlock on its global mutex when that
 *     list is empty and a re-sync finds nothing new), and nothing useful can be made without a
 *     device anyway. Looking costs one {@code ibv_get_device_list} (netlink, no librdmacm lock),
 *     and only in this state.</li>
 * </ul>
 *
 * <p>Threads: the dispatcher's.
 */
final class DeviceLoss {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private static final int ENODEV = 19;
    /** How often pending holds are looked at (each look is a netlink dump). */
    private static final long LOOK_EVERY_NANOS = 200_000_000L;

    /** Whether a removal is outstanding. */
    enum State {
        /** No removal outstanding: new ids go straight to librdmacm, nothing is looked up. */
        NORMAL,
        /** A device was removed: the device list is looked at before each new id, and holds are pending or none is listed. */
        REMOVED
    }

    /** librdmacm's context on a removed device ({@link RemovedDeviceHold} in the port; fakes in tests). */
    interface Hold {
        long handle();

        String deviceName();

        /** {@link RemovedDeviceHold#replaceFiles()}. */
        RemovedDeviceHold.Outcome replaceFiles();
    }

    private final Supplier<List<String>> listed;
    private final Runnable resync;
    private State state = State.NORMAL;
    /** librdmacm's contexts on removed devices, by context handle, until they are let go. */
    private final Map<Long, Hold> pending = new LinkedHashMap<>();
    private long lastLook;
    private boolean looked;

    /**
     * Diagnostic switch, {@code -Drdmacm4j.deviceLossGuard=off}: the port then does none of this
     * (as before it existed), so a test can show what happens without it. Not for production.
     */
    static final boolean ENABLED = !"off".equals(System.getProperty("rdmacm4j.deviceLossGuard"));

    /** The real one: libibverbs' device list, and rdma_get_devices as librdmacm's re-sync. */
    DeviceLoss() {
        this(DeviceLoss::listedNow, DeviceLoss::resyncLibrdmacm);
    }

    /**
     * @param listed the names of the devices listed now (never librdmacm's list)
     * @param resync makes librdmacm re-sync its device list (throws if it lists no device)
     */
    DeviceLoss(Supplier<List<String>> listed, Runnable resync) {
        this.listed = listed;
        this.resync = resync;
    }

    State state() {
        return state;
    }

    /** A DEVICE_REMOVAL for an id bound to {@code context} (librdmacm's): remember its context. */
    void removed(DeviceContext context) {
        if (!ENABLED) {
            return;
        }
        if (!pending.containsKey(context.handle())) {
            RemovedDeviceHold h = RemovedDeviceHold.of(context);
            removed(new Hold() {
                @Override
                public long handle() {
                    return h.handle();
                }

                @Override
                public String deviceName() {
                    return h.deviceName();
                }

                @Override
                public RemovedDeviceHold.Outcome replaceFiles() {
                    return h.replaceFiles();
                }

                @Override
                public String toString() {
                    return h.toString();
                }
            });
        }
        state = State.REMOVED;
    }

    /** A DEVICE_REMOVAL: remember {@code hold} (once per context). */
    void removed(Hold hold) {
        state = State.REMOVED;
        if (!pending.containsKey(hold.handle())) {
            pending.put(hold.handle(), hold);
            LOG.log(Level.INFO, "device " + hold.deviceName() + " removed: new ids wait for a device; "
                    + "librdmacm's context on it is let go once nothing of ours is left on it (" + hold + ")");
        }
    }

    /**
     * True if new ids must be refused now: a removal is outstanding and libibverbs lists no device.
     * Leaves the REMOVED state when a device is listed and no hold is pending.
     */
    boolean noDeviceListed() {
        if (state == State.NORMAL) {
            return false;
        }
        boolean none = listedSafely().isEmpty();
        if (!none && pending.isEmpty()) {
            state = State.NORMAL;
            LOG.log(Level.INFO, "an RDMA device is listed again: new ids go ahead");
        }
        return none;
    }

    /** ENODEV for {@code function}, raised before any native call. */
    static PortCallException noDevice(String function) {
        return new PortCallException(function, ENODEV, "no RDMA device is listed (the last one was removed);"
                + " nothing was called: retry once a device is back", null);
    }

    /**
     * Lets go of every pending context on which {@code ours} says nothing of ours is left (at most
     * every 200 ms; called once per dispatcher turn).
     */
    void tick(long nowNanos, LongPredicate ours) {
        if (state == State.NORMAL || (looked && nowNanos - lastLook < LOOK_EVERY_NANOS)) {
            return;
        }
        looked = true;
        lastLook = nowNanos;
        for (Iterator<Hold> it = pending.values().iterator(); it.hasNext(); ) {
            Hold hold = it.next();
            if (ours.test(hold.handle())) {
                continue;
            }
            if (letGo(hold)) {
                it.remove();
            }
        }
        noDeviceListed();
    }

    private boolean letGo(Hold hold) {
        RemovedDeviceHold.Outcome outcome;
        try {
            outcome = hold.replaceFiles();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "letting go of librdmacm's context on removed device " + hold + " failed; not retried", e);
            return true;
        }
        switch (outcome) {
            case REPLACED -> LOG.log(Level.INFO, "no RDMA device listed: librdmacm's files on removed device "
                    + hold.deviceName() + " now name /dev/null, so its removal can complete");
            case DEVICE_LISTED -> {
                // librdmacm's own way: a re-sync against a non-empty list closes the vanished device's context
                try {
                    resync.run();
                    LOG.log(Level.INFO, "librdmacm re-synced its devices: it closes its context on removed device "
                            + hold.deviceName());
                } catch (RuntimeException e) {
                    LOG.log(Level.DEBUG, "rdma_get_devices after removal of " + hold.deviceName() + ": " + e);
                    return false;   // the listed device went too: look again next time
                }
            }
            case ALREADY_CLOSED -> LOG.log(Level.DEBUG, "librdmacm already closed its context on " + hold.deviceName());
        }
        return true;
    }

    private List<String> listedSafely() {
        try {
            return listed.get();
        } catch (RuntimeException e) {
            return List.of();   // ibv_get_device_list failed: no device usable either
        }
    }

    private static List<String> listedNow() {
        return DeviceContext.deviceNames();
    }

    private static void resyncLibrdmacm() {
        try (CmDevices synced = CmDevices.open()) {
            if (synced.contexts().isEmpty()) {
                throw new IllegalStateException("rdma_get_devices listed no device");
            }
        }
    }
}
