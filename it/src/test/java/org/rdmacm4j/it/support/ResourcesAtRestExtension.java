package org.rdmacm4j.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class that leaves kernel RDMA objects behind. The resting counts are the
 * snapshot the rig took before the JVM started (system property {@code rdmacm4j.it.resting}).
 * The kernel finishes some teardown asynchronously (cm_id destruction after TIMEWAIT, deferred
 * QP cleanup), so the check polls for up to {@link #SETTLE} before it fails.
 *
 * <p>A missing snapshot is a failure, not a skip: without it nothing would be checked.
 */
public final class ResourcesAtRestExtension implements BeforeAllCallback, AfterAllCallback {
    static final Duration SETTLE = Duration.ofSeconds(15);
    private static final Duration POLL = Duration.ofMillis(200);

    @Override
    public void beforeAll(ExtensionContext context) {
        resting(); // fail before the tests if the snapshot cannot be read
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        RdmaResources expected = resting();
        long deadline = System.nanoTime() + SETTLE.toNanos();
        RdmaResources now = RdmaResources.current();
        while (!now.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(POLL);
            now = RdmaResources.current();
        }
        if (!now.equals(expected)) {
            throw new AssertionError(context.getDisplayName()
                    + " left RDMA resources behind (checked for " + SETTLE.toSeconds() + " s)."
                    + "\nresting:\n" + expected + "\nnow:\n" + now
                    + "\n" + ExternalProcess.run(Duration.ofSeconds(20), "rdma", "resource", "show", "cm_id").output()
                    + ExternalProcess.run(Duration.ofSeconds(20), "rdma", "resource", "show", "qp").output());
        }
    }

    private static RdmaResources resting() {
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
