package org.rdmacm4j.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * A JFR recording started by the program itself, around one window of its own ({@code
 * -Drdmacm4j.bench.jfr=FILE}: the profile settings, execution samples every millisecond). Started
 * in-process because {@code -XX:StartFlightRecording} adds {@code jdk.jfr} to the module options,
 * which makes a JVM refuse an AOT cache dumped without it ("Mismatched values for property
 * jdk.module.addmods", s44-jfrcold), and {@code jcmd JFR.start} took over 9 s to attach in the guest.
 * Start it well before the window (JFR's own start-up is seconds under TCG). Caller's thread only.
 */
final class JfrWindow implements AutoCloseable {
    private final Recording recording;

    private JfrWindow(Recording recording) {
        this.recording = recording;
    }

    /** The recording {@code -Drdmacm4j.bench.jfr} asks for, started now, or null if none is asked for. */
    static JfrWindow startIfAsked() throws IOException, ParseException {
        String file = System.getProperty("rdmacm4j.bench.jfr");
        if (file == null || file.isEmpty()) {
            return null;
        }
        Recording r = new Recording(Configuration.getConfiguration("profile"));
        r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
        r.setDestination(Path.of(file));
        r.start();
        return new JfrWindow(r);
    }

    /** Stops the recording, which writes it to its file. */
    @Override
    public void close() {
        recording.stop();
        recording.close();
    }
}
