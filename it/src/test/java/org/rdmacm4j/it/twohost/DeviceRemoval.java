package org.rdmacm4j.it.twohost;

import java.time.Duration;
import java.util.Locale;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.RdmaLinks;
import org.rdmacm4j.it.support.ResourcesAtRestExtension;
import org.rdmacm4j.verbs.cm.CmDevices;

/**
 * {@code rdma link delete rxe0} on this host while this JVM uses it, and its undoing; both roles
 * use it. The delete only completes once librdmacm has let go of its context on rxe0, which it
 * does only while another RDMA device is listed ({@link RdmaLinks}), so a helper device on a
 * fresh veth pair is added first; it stays until the JVM has exited ({@link #restoreRxe0} says why).
 * (Not a test class.)
 */
final class DeviceRemoval {
    static final String DEVICE = "rxe0";
    private static final String HELPER = "rxe_help";
    private static final String HELPER_NETDEV = "vhelp0";

    private DeviceRemoval() { }

    /** A second rxe device on a veth pair, so librdmacm's device list is never empty while rxe0 goes. */
    private static void addHelperDevice() throws InterruptedException {
        ResourcesAtRestExtension.fixtureDevice(HELPER);
        if (RdmaLinks.exists(HELPER)) {
            return;   // kept from an earlier removal in this JVM (see restoreRxe0)
        }
        String modprobe = System.getenv("RIG_KTREE") == null ? "modprobe veth"
                : "modprobe -d \"$RIG_KTREE\" -S \"$RIG_KVER\" veth";
        var veth = ExternalProcess.run(Duration.ofSeconds(30), "sh", "-c", modprobe + " && ip link add "
                + HELPER_NETDEV + " type veth peer name vhelp1 && ip link set " + HELPER_NETDEV + " up && "
                + "ip link set vhelp1 up");
        if (veth.exitCode() != 0) {
            throw new AssertionError("no helper netdev: " + veth);
        }
        RdmaLinks.add(HELPER, HELPER_NETDEV, Duration.ofSeconds(30));
    }

    /** Adds the helper, then deletes rxe0; returns how long the delete took, in ms, or throws if it did not finish. */
    static double deleteRxe0() throws InterruptedException {
        addHelperDevice();
        long t0 = System.nanoTime();
        var r = RdmaLinks.delete(DEVICE, Duration.ofSeconds(30));
        double ms = (System.nanoTime() - t0) / 1e6;
        if (r.timedOut() || r.exitCode() != 0) {
            throw new AssertionError(String.format(Locale.ROOT, "rdma link delete %s did not complete within 30 s: %s",
                    DEVICE, r));
        }
        return ms;
    }

    /**
     * As {@link #deleteRxe0()}, for a process whose {@code RdmaCm} must hear DEVICE_REMOVAL first:
     * starts the delete without touching librdmacm, waits (bounded) for {@code removalHeard}, then
     * runs {@code quiesce} (closing that {@code RdmaCm}, so no other thread is inside librdmacm) and
     * only then lets librdmacm drop its context on rxe0 ({@link RdmaLinks#nudgeLibrdmacm}) until the
     * delete completes. On host b, nudging while the dispatcher handled the removal left both threads
     * in futex waits inside librdmacm (docs/reliability.md). Returns the delete's duration in ms.
     */
    static double deleteRxe0Serialized(java.util.concurrent.CompletableFuture<?> removalHeard, Runnable quiesce,
            java.util.function.Consumer<String> log) throws Exception {
        addHelperDevice();
        long t0 = System.nanoTime();
        try (ExternalProcess p = ExternalProcess.start("rdma", "link", "delete", DEVICE)) {
            removalHeard.get(15, java.util.concurrent.TimeUnit.SECONDS);
            log.accept(String.format(Locale.ROOT, "DEVICE_REMOVAL heard after %.0f ms", ms(t0)));
            long q = System.nanoTime();
            quiesce.run();
            log.accept(String.format(Locale.ROOT, "RdmaCm closed in %.0f ms", ms(q)));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (p.isAlive() && System.nanoTime() < deadline) {
                RdmaLinks.nudgeLibrdmacm();
                Thread.sleep(200);
            }
            var r = p.await(Duration.ofSeconds(1));
            double ms = ms(t0);
            if (r.timedOut() || r.exitCode() != 0) {
                throw new AssertionError(String.format(Locale.ROOT,
                        "rdma link delete %s did not complete within 30 s: %s", DEVICE, r));
            }
            log.accept(String.format(Locale.ROOT, "rdma link delete %s completed after %.0f ms", DEVICE, ms));
            return ms;
        }
    }

    static void restoreRxe0() throws InterruptedException {
        restoreRxe0(step -> { });
    }

    /**
     * Puts rxe0 back on eth0 (if it is gone) and re-pins librdmacm's cache on it. Idempotent.
     *
     * <p>The helper device stays until the JVM has exited (the role's job deletes it then, when
     * nothing holds it; {@code it/rig/run-two-hosts.sh}), and this JVM's at-rest checks leave its line
     * out. Deleting it here is what hung role b: librdmacm's device list became empty during the
     * helper's delete and re-sync although the new rxe0 was listed and librdmacm had just opened it,
     * and the next {@code rdma_get_devices} re-entered {@code ucma_init} on its own global mutex
     * (gdb: rdma_get_devices -> ucma_init -> rdma_create_id -> ucma_init; the clean-clone CI of db13ead,
     * and a local two-host run even with rxe0 open in librdmacm before the delete). With the helper
     * kept, librdmacm lists at least one device whenever rxe0 is gone or back, so that list never
     * empties and ucma_init never takes its re-sync path in this JVM.
     */
    static void restoreRxe0(java.util.function.Consumer<String> log) throws InterruptedException {
        long t0 = System.nanoTime();
        if (!RdmaLinks.exists(DEVICE)) {
            RdmaLinks.add(DEVICE, "eth0", Duration.ofSeconds(60));
            log.accept(String.format(Locale.ROOT, "rdma link add %s and ACTIVE: %.0f ms", DEVICE, ms(t0)));
        }
        long t1 = System.nanoTime();
        // librdmacm's context on the new rxe0: the resting baseline counts one
        awaitLibrdmacmLists(DEVICE, Duration.ofSeconds(30));
        log.accept(String.format(Locale.ROOT, "librdmacm lists %s open: %.0f ms; restore in all %.0f ms (the helper "
                + "device %s stays until the JVM exits)", DEVICE, ms(t1), ms(t0), HELPER));
    }

    /**
     * Re-syncs librdmacm ({@code rdma_get_devices}) until it returns an open context for {@code device},
     * bounded. Only called while the helper device is listed, so librdmacm's list is not empty and the
     * call cannot enter ucma_init's re-sync.
     */
    private static void awaitLibrdmacmLists(String device, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        String seen = "nothing";
        while (System.nanoTime() < deadline) {
            try (CmDevices d = CmDevices.open()) {
                if (d.byName(device) != null) {
                    return;
                }
                seen = d.contexts().stream().map(c -> c.deviceName()).toList().toString();
            } catch (RuntimeException e) {
                seen = e.toString();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("librdmacm did not list " + device + " within " + bound.toSeconds()
                + " s after it was added back (rdma_get_devices last gave " + seen + ")");
    }

    private static double ms(long since) {
        return (System.nanoTime() - since) / 1e6;
    }
}

