package org.rdmacm4j.cm.core;

import java.io.IOException;
import java.lang.module.ModuleReader;
import java.lang.module.ResolvedModule;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.rdmacm4j.verbs.Rdma;

/**
 * The cold-start training run behind the AOT caches that the build makes for the examples and the
 * benchmarks (JEP 483/514/515: {@code java -XX:AOTCacheOutput=FILE ... } around a program that
 * calls {@link #train}). A fresh JVM's first connection spends most of its time loading and linking
 * classes, spinning the downcall stubs and interpreting; a JVM that maps a cache trained by this
 * finds all of that done. It needs no RDMA device, only the two libraries:
 * <ol>
 *   <li>links every librdmacm/libibverbs/libc downcall handle without calling one ({@link Rdma#linkAll});</li>
 *   <li>loads every class of the three rdmacm4j modules (the real native port's classes too, which
 *       cannot run here);</li>
 *   <li>runs {@code connections} connections through the public API (listen, accept raw and with
 *       private data, connect, close both ends, a rejected and a refused connect) on the real
 *       dispatcher and machines over an in-memory port whose ids connect to each other.</li>
 * </ol>
 * Any thread; each call makes its own {@link RdmaCm}, closed before it returns. Every wait has a
 * deadline ({@link #WAIT}).
 */
public final class ColdStart {
    private ColdStart() { }

    /** The longest any one step of the training waits. */
    public static final Duration WAIT = RdmaCm.LOOPBACK_WAIT;

    /**
     * What one training run did.
     *
     * @param linkedFunctions exported native functions linked (0 if linking was impossible)
     * @param linkProblem why linking did not happen, or null
     * @param classesLoaded classes of the rdmacm4j modules loaded by name
     * @param connections connections set up and closed over the in-memory port
     * @param nanos the whole run's time
     */
    public record Report(int linkedFunctions, String linkProblem, int classesLoaded, int connections, long nanos) {
        @Override
        public String toString() {
            return String.format("cold-start training: %d native functions linked%s, %d classes loaded,"
                    + " %d connections in %.1f ms", linkedFunctions,
                    linkProblem == null ? "" : " (" + linkProblem + ")", classesLoaded, connections, nanos / 1e6);
        }
    }

    /**
     * Runs the training (see the class comment) with {@code connections} connections.
     *
     * @throws IllegalStateException if a connection does not behave as over a healthy device, or
     *     the in-memory port is left with ids after the RdmaCm closed
     */
    public static Report train(int connections) {
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be at least 1, was " + connections);
        }
        long t0 = System.nanoTime();
        int linked = 0;
        String linkProblem = null;
        try {
            linked = Rdma.linkAll();
        } catch (IllegalStateException e) {
            linkProblem = e.getMessage();
        }
        int loaded = loadClasses();
        try {
            RdmaCm.loopbackConnections(connections, "rdmacm4j-training", () -> false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the cold-start training", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cold-start training failed: " + e, e);
        }
        return new Report(linked, linkProblem, loaded, connections, System.nanoTime() - t0);
    }

    /**
     * {@code java -m org.rdmacm4j.cm.core/org.rdmacm4j.cm.core.ColdStart [CONNECTIONS]}: trains
     * (default 200 connections), prints the report, and exits 1 if linking was impossible (a
     * training run for a cache must have linked: without it the cache misses the largest part).
     */
    public static void main(String[] args) {
        Report r = train(args.length > 0 ? Integer.parseInt(args[0]) : 200);
        System.out.println(r);
        if (r.linkProblem() != null) {
            System.exit(1);
        }
    }

    // ------------------------------------------------------------------ class loading

    private static final List<String> MODULES = List.of("org.rdmacm4j.verbs", "org.rdmacm4j.cm.statemachine",
            "org.rdmacm4j.cm.core");
    private static final List<String> PACKAGES = List.of("org/rdmacm4j/verbs/", "org/rdmacm4j/cm/");

    /** Loads (without initialising) every class of the rdmacm4j modules; returns how many. */
    private static int loadClasses() {
        Module self = ColdStart.class.getModule();
        List<String> names = new ArrayList<>();
        if (self.isNamed()) {
            for (String m : MODULES) {
                Optional<ResolvedModule> rm = self.getLayer().configuration().findModule(m);
                if (rm.isPresent()) {
                    try (ModuleReader r = rm.get().reference().open(); Stream<String> s = r.list()) {
                        s.forEach(names::add);
                    } catch (IOException e) {
                        throw new IllegalStateException("cannot list module " + m + ": " + e, e);
                    }
                }
            }
        } else {
            names.addAll(classPathEntries());
        }
        int n = 0;
        ClassLoader loader = ColdStart.class.getClassLoader();
        for (String entry : names) {
            if (!entry.endsWith(".class") || entry.endsWith("module-info.class") || entry.startsWith("META-INF/")
                    || PACKAGES.stream().noneMatch(entry::startsWith)) {
                continue;
            }
            try {
                Class.forName(entry.substring(0, entry.length() - 6).replace('/', '.'), false, loader);
                n++;
            } catch (ClassNotFoundException | LinkageError e) {
                // a class that cannot load here cannot load in the trained JVM either: nothing to cache
            }
        }
        return n;
    }

    /**
     * The class files of the jars or directories the three modules' classes came from (class path
     * runs: one shaded jar, or a classes directory per module), by their entry names.
     */
    private static List<String> classPathEntries() {
        List<String> names = new ArrayList<>();
        for (Class<?> anchor : List.of(ColdStart.class, Rdma.class, org.rdmacm4j.cm.statemachine.CmEventType.class)) {
            try {
                Path where = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
                if (Files.isDirectory(where)) {
                    try (Stream<Path> s = Files.walk(where)) {
                        s.filter(Files::isRegularFile).map(p -> where.relativize(p).toString().replace('\\', '/'))
                                .forEach(names::add);
                    }
                } else {
                    try (JarFile jar = new JarFile(where.toFile())) {
                        jar.stream().map(java.util.zip.ZipEntry::getName).forEach(names::add);
                    }
                }
            } catch (IOException | URISyntaxException | SecurityException | NullPointerException e) {
                // no code source to list: the connections below still load what they use
            }
        }
        return names.stream().distinct().toList();
    }

}
