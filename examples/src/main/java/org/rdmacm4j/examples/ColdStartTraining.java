package org.rdmacm4j.examples;

import java.io.IOException;
import java.lang.module.ModuleReader;
import java.util.stream.Stream;
import org.rdmacm4j.cm.core.ColdStart;

/**
 * The training run of the examples' build-time AOT cache ({@code RDMACM4J_AOT=train
 * examples/launch.sh aot-train ColdStartTraining}, run by {@code ./mvnw package}): cm-core's
 * {@link ColdStart} (downcall linking, the library's classes, connections over an in-memory port;
 * no RDMA device needed), then every class of this module loaded, so that each example finds its
 * own classes in the cache too. It runs as every example does, through {@link Launch} on the same
 * module path and with the same JVM flags: the cache is only valid for that command line.
 * {@code ARGS}: the number of connections (default 200).
 */
public final class ColdStartTraining {
    private ColdStartTraining() { }

    public static void main(String[] args) throws IOException {
        ColdStart.Report report = ColdStart.train(args.length > 0 ? Integer.parseInt(args[0]) : 200);
        int loaded = 0;
        Module self = ColdStartTraining.class.getModule();
        if (!self.isNamed()) {
            System.out.println(report + "; on the class path: the examples' classes were not listed");
            return;
        }
        try (ModuleReader r = self.getLayer().configuration().findModule(self.getName()).orElseThrow()
                .reference().open(); Stream<String> entries = r.list()) {
            for (String e : entries.filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class")).toList()) {
                try {
                    Class.forName(self, e.substring(0, e.length() - ".class".length()).replace('/', '.'));
                    loaded++;
                } catch (LinkageError err) {
                    // not loadable here, so not loadable in the cached JVM either: nothing to cache
                }
            }
        }
        System.out.println(report + "; " + loaded + " example classes loaded");
        if (report.linkProblem() != null) {
            System.err.println("aot-train: the downcalls were not linked (" + report.linkProblem()
                    + "): a cache without them misses most of the cold start");
            System.exit(1);
        }
    }
}
