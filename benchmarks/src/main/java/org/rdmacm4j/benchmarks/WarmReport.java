package org.rdmacm4j.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The warm-and-cold section of docs/benchmarks.md (issue 21), from the warm group of one run of
 * benchmarks/run-all.sh: rdmacm4j under each JIT setting of the run against the C event loop, min and
 * median of the repetitions, ratios of the medians. Written into the generated part by {@link
 * BenchReport}; {@code WarmReport RESULTS_DIR} prints it alone (for a partial run's notes).
 */
final class WarmReport {
    /** One figure of the section: its results.tsv name, its label and which way it is better. */
    private record Figure(String name, String label, BenchReport.Better better, double target) {
        static final double NONE = Double.NaN;
    }

    private static final List<Figure> FIGURES = List.of(
            new Figure("warm_cold_us", "cold first connection, µs", BenchReport.Better.LOWER, 10),
            new Figure("warm_p50_us", "lone connection p50, µs (warm window)", BenchReport.Better.LOWER, 1.3),
            new Figure("warm_p99_us", "lone connection p99, µs (warm window)", BenchReport.Better.LOWER, Figure.NONE),
            new Figure("warm_storm_setup_rate", "storm setup, connections/s (warm process)", BenchReport.Better.HIGHER, 0.8),
            new Figure("warm_storm_teardown_rate", "storm teardown, connections/s (warm process)", BenchReport.Better.HIGHER, 0.8),
            new Figure("cold_storm_setup_rate", "storm setup, connections/s (fresh process)", BenchReport.Better.HIGHER, Figure.NONE),
            new Figure("cold_storm_teardown_rate", "storm teardown, connections/s (fresh process)", BenchReport.Better.HIGHER, Figure.NONE),
            new Figure("warm_cpu_us", "CPU user + sys per warm connection, µs (whole process)", BenchReport.Better.LOWER, 1.5),
            new Figure("warm_cpu_user_us", "  of which user, µs", BenchReport.Better.LOWER, Figure.NONE),
            new Figure("warm_cpu_sys_us", "  of which sys, µs", BenchReport.Better.LOWER, Figure.NONE),
            new Figure("warm_runq_us", "run-queue wait per warm connection, µs (all threads)", BenchReport.Better.LOWER, Figure.NONE),
            new Figure("warm_syscalls", "syscalls per warm connection", BenchReport.Better.LOWER, Figure.NONE),
            new Figure("warm_cswitches", "context switches per warm connection", BenchReport.Better.LOWER, Figure.NONE));

    private final BenchResults r;
    private final Consumer<String> out;

    WarmReport(BenchResults r, Consumer<String> out) {
        this.r = r;
        this.out = out;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: WarmReport RESULTS_DIR");
            System.exit(2);
        }
        new WarmReport(BenchResults.read(Path.of(args[0])), System.out::println).write();
    }

    /**
     * The Java floors this run's warm group ran (BENCH_FLOORS), under the launchers' JIT: floor-c1
     * (FfmFloor, C's loop call for call over raw FFM) and vfloor-c1 (VerbsFloor, the same loop over the
     * verbs module). Reference columns, not targets: what the JVM costs by itself and what the
     * bindings add, so that rdmacm4j's ratio splits into the JVM's part, the bindings' and cm-core's.
     */
    private List<String> floorImpls() {
        List<String> floors = new ArrayList<>();
        for (String f : r.meta().getOrDefault("floors", "").split("\\s+")) {
            if (!f.isEmpty()) {
                floors.add(f + "-c1");
            }
        }
        return floors;
    }

    /** The rdmacm4j implementations of the warm group in this run: rdmacm4j-JIT, in BENCH_JITS order. */
    private List<String> javaImpls() {
        List<String> impls = new ArrayList<>();
        for (String jit : r.meta().getOrDefault("jits", "c1 jdk").split("\\s+")) {
            impls.add("rdmacm4j-" + jit);
        }
        return impls;
    }

    void write() {
        Map<String, String> m = r.meta();
        List<String> impls = javaImpls();
        List<String> floors = floorImpls();
        List<String> columns = new ArrayList<>(floors);
        columns.addAll(impls);
        out.accept("## Warm and cold apart (issue 21)");
        out.accept("");
        out.accept("One process per implementation and repetition, both ends in it: " + m.getOrDefault("warm", "?")
                + ": K lone connections, one at a time, each closed (both ends) before the next; the first is the"
                + " cold first connection, p50/p99 are over connections FROM..K (the warm window); then a storm of"
                + " STORM_N connections started at once and closed by the client, in the same warm process (setup ="
                + " first connect to the last end established, teardown = first close to the last end closed); a"
                + " second, fresh process runs the same storm cold. Over the warm window: the whole process's CPU"
                + " time (/proc/self/stat user and sys), all its threads' run-queue wait (/proc/self/task/*/schedstat:"
                + " runnable, no CPU), and, from `perf stat` switched on for the window only, syscalls"
                + " (raw_syscalls:sys_enter) and context switches, each per connection. C: `cm_event_loop warm`;"
                + " rdmacm4j: `CmBench warm` (public API, raw, cmtime's QP)."
                + (floors.contains("floor-c1") ? " floor-c1: `FfmFloor warm`, the C loop call for call in Java over"
                + " raw FFM (one thread, no framework, no allocation per connection) under the launchers' JIT: what"
                + " the JVM costs by itself." : "")
                + (floors.contains("vfloor-c1") ? " vfloor-c1: `VerbsFloor warm`, the same loop over the verbs"
                + " module's API (copied events, checked wrappers, ownership; still one thread, no cm-core): what the"
                + " bindings add. rdmacm4j's distance from them is what cm-core's design costs." : ""));
        out.accept("");
        StringBuilder head = new StringBuilder("| figure | better | C min / median");
        StringBuilder sep = new StringBuilder("|---|---|---");
        for (String impl : columns) {
            head.append(" | ").append(impl).append(" min / median | ÷ C");
            sep.append("|---|---");
        }
        out.accept(head + " |");
        out.accept(sep + "|");
        for (Figure f : FIGURES) {
            StringBuilder row = new StringBuilder("| " + f.label() + " | " + f.better().word + " | " + cell(f.name(), BenchResults.C));
            for (String impl : columns) {
                row.append(" | ").append(cell(f.name(), impl)).append(" | ").append(ratio(f.name(), impl).map(WarmReport::fmt).orElse("-"));
            }
            out.accept(row + " |");
        }
        out.accept("");
        out.accept("JIT settings (both with the launchers' serial GC): **" + impls.stream().map(i -> i.substring("rdmacm4j-".length()))
                .map(j -> j + "** = `" + m.getOrDefault("jit_" + j, "?") + "`").reduce((a, b) -> a + "; **" + b).orElse("")
                + ". Repetitions: " + m.getOrDefault("reps", "?") + "; perf: " + m.getOrDefault("perf", "?") + ".");
        out.accept("");
        out.accept("| target (issue 21, ratio of medians) | goal | " + String.join(" | ", columns) + " |");
        out.accept("|---|---|" + "---|".repeat(columns.size()));
        for (Figure f : FIGURES) {
            if (Double.isNaN(f.target())) {
                continue;
            }
            StringBuilder row = new StringBuilder("| " + f.label() + " | " + (f.better() == BenchReport.Better.LOWER ? "≤ " : "≥ ")
                    + fmt(f.target()) + "× C");
            for (String impl : columns) {
                Optional<Double> x = ratio(f.name(), impl);
                row.append(" | ").append(x.map(v -> fmt(v) + ((f.better() == BenchReport.Better.LOWER ? v <= f.target() : v >= f.target())
                        ? " met" : " **missed**")).orElse("missing"));
            }
            out.accept(row + " |");
        }
        out.accept("");
    }

    private String cell(String figure, String impl) {
        String reps = r.meta().getOrDefault("reps", "");
        return r.summary(figure, impl).map(s -> fmt(s.min()) + " / " + fmt(s.median())
                + (String.valueOf(s.n()).equals(reps) ? "" : s.n() == 1 ? " (1 run)" : " (" + s.n() + " runs)")).orElse("missing");
    }

    private Optional<Double> ratio(String figure, String impl) {
        var a = r.summary(figure, impl);
        var c = r.summary(figure, BenchResults.C);
        return a.isPresent() && c.isPresent() && c.get().median() != 0
                ? Optional.of(a.get().median() / c.get().median()) : Optional.empty();
    }

    private static String fmt(double v) {
        double a = Math.abs(v);
        return a >= 100 ? String.format(Locale.ROOT, "%,.0f", v)
                : a >= 10 ? String.format(Locale.ROOT, "%.1f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }
}
