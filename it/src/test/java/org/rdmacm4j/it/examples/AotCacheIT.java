package org.rdmacm4j.it.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.examples.ExampleFixtures.bin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * The launchers' own recorded AOT cache (examples/launch.sh, RDMACM4J_AOT=record: not the build's
 * cache, which the default mode would map instead) with a real program (the echo demo, one process,
 * over rxe): two first runs at once record one whole cache between them; the next run maps it (the
 * JVM's own log says so); a corrupted cache is survived (the run still succeeds) and replaced by
 * the run after it.
 */
@SoftRoceTest
class AotCacheIT {
    /** A run that maps the cache. */
    private static final Duration RUN = Duration.ofSeconds(150);
    /**
     * A run that records one: after the demo the JVM assembles the cache (JDK 25 forks a JVM for it),
     * which under TCG with the default JIT takes minutes, two at once on one host core (thread=single)
     * longer still. The demo itself ended well inside 150 s in the clean-clone CI of 2026-11-26 20:52Z
     * and the run was killed at that deadline during the assembly (the whole test passed in 267-275 s
     * in two other CI runs, so 150 s was the edge, not the middle).
     */
    private static final Duration RECORDING_RUN = Duration.ofSeconds(420);

    @Test
    @Timeout(value = 1500, unit = TimeUnit.SECONDS)
    void firstRunsRecordLaterRunsMapACorruptCacheIsReplaced() throws Exception {
        Path dir = Files.createTempDirectory("rdmacm4j-aot");
        try {
            // Two first runs at once: each records to its own temporary name, the last rename wins.
            try (ExternalProcess a = demo(dir, 7601); ExternalProcess b = demo(dir, 7602)) {
                ExampleFixtures.succeeded("echo demo, first run A", a.await(RECORDING_RUN));
                ExampleFixtures.succeeded("echo demo, first run B", b.await(RECORDING_RUN));
            }
            Path cache = onlyCache(dir);
            assertThat(Files.size(cache)).as("recorded cache %s", cache).isGreaterThan(1 << 20);

            // The next run maps it.
            ExampleFixtures.succeeded("echo demo, with the cache", run(dir, 7603));
            Path log = Path.of(cache + ".log");
            String mapped = Files.readString(log);
            assertThat(mapped).as("%s", log).contains("Opened AOT cache").doesNotContain("[error");

            // A corrupted cache: the run still succeeds (the JVM runs without it and logs why) ...
            Files.write(cache, new byte[4096]);
            String survived = ExampleFixtures.succeeded("echo demo, corrupted cache", run(dir, 7604));
            assertThat(Files.readString(log)).as("%s after the corrupted run", log).contains("[error");
            assertThat(survived).contains("echo: ");
            // ... and the run after it records a new one.
            String replaced = ExampleFixtures.succeeded("echo demo, after the rejection",
                    ExternalProcess.run(RECORDING_RUN, command(dir, 7605)));
            assertThat(replaced).contains("rejected the AOT cache");
            assertThat(Files.size(onlyCache(dir))).as("re-recorded cache").isGreaterThan(1 << 20);
            ExampleFixtures.succeeded("echo demo, with the new cache", run(dir, 7606));
            assertThat(Files.readString(log)).contains("Opened AOT cache").doesNotContain("[error");
        } finally {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /** The one cache file in {@code dir}, and no temporary left behind. */
    private static Path onlyCache(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> all = files.toList();
            assertThat(all).as("files in %s", dir).noneMatch(p -> p.getFileName().toString().contains(".tmp."));
            List<Path> caches = all.stream().filter(p -> p.getFileName().toString().endsWith(".aot")).toList();
            assertThat(caches).as("caches in %s", dir).hasSize(1);
            return caches.getFirst();
        }
    }

    private static String[] command(Path dir, int port) {
        return new String[] {"env", "RDMACM4J_AOT=record", "RDMACM4J_AOT_DIR=" + dir, bin("echo"), "-a", SoftRoce.SERVER_ADDR,
                "-b", SoftRoce.CLIENT_ADDR, "-p", String.valueOf(port), "-n", "20", "-S", "64", "-t", "60"};
    }

    private static ExternalProcess demo(Path dir, int port) {
        return ExternalProcess.start(command(dir, port));
    }

    private static ExternalProcess.Result run(Path dir, int port) {
        return ExternalProcess.run(RUN, command(dir, port));
    }
}
