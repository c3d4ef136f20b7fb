package org.rdmacm4j.it.support;

import java.time.Duration;
import org.rdmacm4j.verbs.cm.CmDevices;

/**
 * {@code rdma link add/delete} for tests that remove a soft-RoCE device under live connections,
 * with the one thing that makes a delete complete while this JVM runs.
 *
 * <p>rxe has no {@code disassociate_ucontext}, so the kernel's unregister waits for every open
 * uverbs context on the device, and librdmacm keeps one per device it ever touched
 * ({@code librdmacm/cma.c}). It drops a vanished device's context only in
 * {@code sync_devices_list} (run by {@code rdma_get_devices}), which returns early with ENODEV
 * when {@code ibv_get_device_list} lists no device at all. So while a delete waits, this calls
 * {@code rdma_get_devices}; when the device being deleted is the only one, the caller must have
 * added another first (a helper device), or the delete waits until the process exits.
 */
public final class RdmaLinks {
    private RdmaLinks() {
    }

    /** Starts {@code rdma link delete device}, nudging librdmacm until it finishes or {@code bound} passes. */
    public static ExternalProcess.Result delete(String device, Duration bound) throws InterruptedException {
        try (ExternalProcess p = ExternalProcess.start("rdma", "link", "delete", device)) {
            long deadline = System.nanoTime() + bound.toNanos();
            while (p.isAlive() && System.nanoTime() < deadline) {
                nudgeLibrdmacm();
                Thread.sleep(200);
            }
            return p.await(Duration.ofSeconds(1));
        }
    }

    /** {@code rdma link add device type rxe netdev netdev}, then waits (bounded) for its port to be ACTIVE. */
    public static void add(String device, String netdev, Duration bound) throws InterruptedException {
        var add = ExternalProcess.run(Duration.ofSeconds(30), "rdma", "link", "add", device, "type", "rxe",
                "netdev", netdev);
        if (add.exitCode() != 0) {
            throw new AssertionError("rdma link add failed: " + add);
        }
        awaitActive(device, bound);
    }

    public static boolean exists(String device) {
        return ExternalProcess.run(Duration.ofSeconds(10), "rdma", "link", "show", device + "/1").exitCode() == 0;
    }

    /** Waits (bounded) until {@code device}'s port 1 is ACTIVE. */
    public static void awaitActive(String device, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            if (ExternalProcess.run(Duration.ofSeconds(10), "rdma", "link", "show", device + "/1")
                    .output().contains("state ACTIVE")) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError(device + "/1 not ACTIVE within " + bound);
    }

    /** rdma_get_devices: librdmacm re-syncs its device cache, closing the contexts of vanished devices. */
    public static void nudgeLibrdmacm() {
        try (CmDevices d = CmDevices.open()) {
            // the call is the point
        } catch (RuntimeException noDevice) {
            // no device listed: nothing to sync against
        }
    }
}
