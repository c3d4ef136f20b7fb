package org.rdmacm4j.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.rdmacm4j.verbs.cm.CmDevices;

/**
 * Fails a test class that leaves kernel RDMA objects behind, counted from outside the JVM by
 * {@code rdma resource show}.
 *
 * <p>The baseline is exact, with one documented allowance made once per JVM: librdmacm keeps
 * one {@code ibv_context} per device open from the first time it touches the device until the
 * process exits (rdma-core {@code librdmacm/cma.c}: {@code ucma_init_device} opens
 * {@code cma_dev->verbs}; only the library destructor closes it). Which test first triggers it
 * would otherwise decide which class "leaks" a ctx. So before the first class the extension
 * checks the kernel is exactly at the rig's pre-JVM snapshot, pins librdmacm's cache with
 * {@code rdma_get_devices}/{@code rdma_free_devices}, verifies that added exactly one ctx per
 * device and nothing else, and takes that as the baseline every class must return to. A context
 * of our own left open then shows as one ctx too many. After the JVM exits the rig compares the
 * kernel with the pre-JVM snapshot again, without any allowance.
 *
 * <p>The kernel finishes some teardown asynchronously, so each check polls for up to
 * {@link #SETTLE}. A missing snapshot is a failure, not a skip: without it nothing is checked.
 */
public final class ResourcesAtRestExtension implements BeforeAllCallback, AfterAllCallback {
    static final Duration SETTLE = Duration.ofSeconds(15);
    private static final Duration POLL = Duration.ofMillis(200);
    private static RdmaResources baseline;
    /** A device left out of the checks ({@link #fixtureDevice}), or null. */
    private static volatile String fixtureDevice;

    @Override
    public void beforeAll(ExtensionContext context) throws InterruptedException {
        baseline(); // fail before the tests if there is no trustworthy baseline
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        String leak = awaitRest(baseline(), SETTLE);
        if (leak != null) {
            throw new AssertionError(context.getDisplayName() + " left RDMA resources behind. " + leak);
        }
    }

    /** What the kernel must show whenever no test holds anything (computed once per JVM). */
    public static synchronized RdmaResources baseline() throws InterruptedException {
        if (baseline == null) {
            RdmaResources rig = rigSnapshot();
            String dirty = awaitRest(rig, SETTLE);
            if (dirty != null) {
                throw new IllegalStateException("the kernel was not at the rig's resting counts when the JVM started. " + dirty);
            }
            try (CmDevices devices = CmDevices.open()) {
                if (devices.contexts().isEmpty()) {
                    throw new IllegalStateException("rdma_get_devices found no device");
                }
            }
            RdmaResources expected = withOneMoreContextPerDevice(rig);
            String unexpected = awaitRest(expected, SETTLE);
            if (unexpected != null) {
                throw new IllegalStateException("pinning librdmacm's device cache should add exactly one ctx per device"
                        + " and nothing else. " + unexpected);
            }
            baseline = expected;
        }
        return baseline;
    }

    private static RdmaResources withOneMoreContextPerDevice(RdmaResources rig) {
        Map<String, Map<String, Long>> devices = new TreeMap<>();
        rig.byDevice().forEach((device, counts) -> {
            Map<String, Long> c = new TreeMap<>(counts);
            c.merge("ctx", 1L, Long::sum);
            devices.put(device, c);
        });
        return new RdmaResources(devices);
    }

    /**
     * Polls {@code rdma resource show} until it equals {@code expected} or {@code settle} passes.
     *
     * @return null once at rest, else a description of the difference with the kernel's list
     *         of the cm_ids and QPs still open
     */
    public static String awaitRest(RdmaResources expected, Duration settle) throws InterruptedException {
        long deadline = System.nanoTime() + settle.toNanos();
        RdmaResources now = currentWithoutFixture();
        while (!now.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(POLL);
            now = currentWithoutFixture();
        }
        if (now.equals(expected)) {
            return null;
        }
        return "Not at the expected counts after " + settle.toMillis() + " ms."
                + "\nexpected:\n" + expected + "\nnow:\n" + now
                + "\n" + ExternalProcess.run(Duration.ofSeconds(20), "rdma", "resource", "show", "cm_id").output()
                + ExternalProcess.run(Duration.ofSeconds(20), "rdma", "resource", "show", "qp").output();
    }

    /**
     * Leaves {@code device}'s line out of every later check of this JVM: a device a test added for
     * its own purposes and keeps until the JVM has exited (the two-host tests' helper device, see
     * {@code twohost.DeviceRemoval}), whose counts are the kernel's and librdmacm's, not ours. The
     * rig's check after the JVM, which removes such a device first, still compares every line.
     */
    public static void fixtureDevice(String device) {
        fixtureDevice = device;
    }

    private static RdmaResources currentWithoutFixture() {
        RdmaResources now = RdmaResources.current();
        String fixture = fixtureDevice;
        return fixture == null ? now : now.without(fixture);
    }

    /** The snapshot the rig took before the JVM started. */
    private static RdmaResources rigSnapshot() {
        if (SoftRoce.RESTING_FILE.isEmpty()) {
            throw new IllegalStateException("system property rdmacm4j.it.resting is not set:"
                    + " run the integration tests through it/rig/run-it.sh");
        }
        try {
            return RdmaResources.parse(Files.readString(Path.of(SoftRoce.RESTING_FILE)));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the resting snapshot " + SoftRoce.RESTING_FILE, e);
        }
    }
}
