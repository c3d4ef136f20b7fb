package org.rdmacm4j.it.support;

import static com.google.common.base.Preconditions.checkArgument;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One scenario's table for {@code docs/reliability.md}, written by the test that measured it:
 * {@code reliability-<scenario>.md} in the run's results directory (next to the resting snapshot
 * the rig passes in), which {@code run-it.sh} copies to {@code it/target/it-reports/} and
 * {@code scripts/ReliabilityDoc.java} assembles into the document. The table is written only by
 * a run that passed its assertions, so the document never shows figures of a failed run.
 */
public final class ReliabilityReport {
    private ReliabilityReport() {
    }

    /** Writes {@code markdown} (a heading, what was done, the table) for {@code scenario}. */
    public static void write(String scenario, String markdown) {
        checkArgument(scenario.matches("[a-z0-9-]+"),
                "scenario names are lower-case words with dashes: %s", scenario);
        Path dir = SoftRoce.RESTING_FILE.isEmpty() ? Path.of("it", "target", "it-reports")
                : Path.of(SoftRoce.RESTING_FILE).toAbsolutePath().getParent();
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("reliability-" + scenario + ".md"), markdown);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the reliability table of " + scenario + " to " + dir, e);
        }
    }
}
