package org.rdmacm4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build's AOT cache mechanism on the host (no RDMA device): the training run the examples'
 * package step makes (ColdStartTraining through Launch on the module path, JDK 25's one-step
 * -XX:AOTCacheOutput) succeeds without a device and produces a cache; a JVM started the way the
 * launchers start one, with -XX:AOTMode=on (an unusable cache is then an error, not a silent
 * fallback), maps it (-Xlog:aot) and loads the library's classes from it (-Xlog:class+load says
 * "shared objects file"), and a JVM given a corrupted cache with -XX:AOTMode=on fails.
 */
class ColdStartCacheTest {
    /** The launchers' JVM flags, read from scripts/jvm-flags.sh as examples/launch.sh reads them. */
    private static final List<String> FLAGS = launcherFlags();

    /** One module path for every run of the test: the cache is valid for exactly that one. */
    private String modulePath;

    @Test
    void trainingWithoutADeviceMakesACacheTheJvmMaps(@TempDir Path dir) throws Exception {
        modulePath = modulePath(dir);
        Path cache = dir.resolve("examples.aot");
        String training = run(List.of("-XX:AOTCacheOutput=" + cache), "20");
        assertThat(training).contains("cold-start training: ").contains("20 connections").contains("example classes loaded")
                .doesNotContain("Exception in thread", "\tat ");
        assertThat(Files.size(cache)).as("%s", cache).isGreaterThan(1 << 20);

        String mapped = run(List.of("-XX:AOTCache=" + cache, "-XX:AOTMode=on", "-Xlog:aot=info",
                "-Xlog:class+load=info"), "1");
        assertThat(mapped).contains("Opened AOT cache " + cache).doesNotContain("[error")
                .containsPattern("org\\.rdmacm4j\\.cm\\.core\\.ColdStart source: shared objects file")
                .containsPattern("org\\.rdmacm4j\\.verbs\\.internal\\.CmLib source: shared objects file")
                .contains("1 connections");

        Files.write(cache, new byte[4096]);
        Process p = start(List.of("-XX:AOTCache=" + cache, "-XX:AOTMode=on"), "1");
        String out = output(p);
        assertThat(p.exitValue()).as("a corrupted cache with -XX:AOTMode=on: %s", out).isNotZero();
    }

    /**
     * The examples' module path: this module's classes and the main dependencies, no test jars.
     * A dependency that Maven hands over as a classes directory (a reactor build that has not
     * packaged it yet) is jarred into {@code dir} first: the JVM caches classes from jars only, as
     * the launchers' module path (target/classpath.txt) has them.
     */
    private static String modulePath(Path dir) throws IOException {
        String all = String.join(File.pathSeparator, System.getProperty("jdk.module.path", ""),
                System.getProperty("java.class.path", ""));
        Path own = Path.of(ColdStartTraining.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        List<String> entries = new ArrayList<>();
        for (String e : Arrays.stream(all.split(File.pathSeparator)).filter(e -> !e.isEmpty())
                .filter(e -> !e.endsWith("test-classes"))
                .filter(e -> !e.matches(".*(junit|assertj|opentest4j|apiguardian|byte-buddy|surefire|hamcrest).*"))
                .distinct().toList()) {
            Path p = Path.of(e);
            entries.add(Files.isDirectory(p) && !p.equals(own) ? jar(p, dir.resolve("dep" + entries.size() + ".jar")) : e);
        }
        return String.join(File.pathSeparator, entries);
    }

    private static String jar(Path classes, Path jar) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
        return jar.toString();
    }

    private Process start(List<String> aot, String connections) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow()));
        command.addAll(FLAGS);
        command.addAll(aot);
        command.addAll(List.of("--module-path", modulePath, "--enable-native-access=org.rdmacm4j.verbs",
                "-m", "org.rdmacm4j.examples/org.rdmacm4j.examples.Launch", "aot-train", "ColdStartTraining",
                connections));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static List<String> launcherFlags() {
        try {
            Process p = new ProcessBuilder("bash", "-c",
                    "source ../scripts/jvm-flags.sh && printf '%s\\n' \"${rdmacm4j_launcher_flags[@]}\"")
                    .redirectErrorStream(true).start();
            String out = output(p);
            assertThat(p.exitValue()).as("sourcing scripts/jvm-flags.sh: %s", out).isZero();
            List<String> flags = out.lines().toList();
            assertThat(flags).as("the launchers' flags").contains("-XX:TieredStopAtLevel=1");
            return flags;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the launchers' JVM flags from scripts/jvm-flags.sh", e);
        }
    }

    private static String output(Process p) throws Exception {
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("exits within 120 s").isTrue();
            return out;
        } finally {
            p.destroyForcibly();
        }
    }

    private String run(List<String> aot, String connections) throws Exception {
        Process p = start(aot, connections);
        String out = output(p);
        assertThat(p.exitValue()).as("exit status; output:%n%s", out).isZero();
        return out;
    }
}
