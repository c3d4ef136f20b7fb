package org.rdmacm4j.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This JVM's footprint as the kernel counts it, for the load and leak tests: resident memory and
 * open file descriptors, read from {@code /proc/self}. Any thread may call it.
 */
public final class ProcessFootprint {
    private ProcessFootprint() {
    }

    /** Runs the collector three times, so that heap-used readings after it compare across samples. */
    public static void collectGarbage() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
    }

    /** Resident set size in bytes ({@code VmRSS} of /proc/self/status), 0 if the line is missing. */
    public static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        return 0;
    }

    /** Open file descriptors of this process (entries of /proc/self/fd). */
    public static long openFds() throws IOException {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }
}
