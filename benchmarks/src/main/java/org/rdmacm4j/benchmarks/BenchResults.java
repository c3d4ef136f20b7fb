package org.rdmacm4j.benchmarks;

import com.google.common.math.Quantiles;
import com.google.common.math.Stats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The results of one guest run of benchmarks/guest-driver.sh: the figure values
 * ({@code results.tsv}: figure, implementation, repetition, value), the run's environment
 * ({@code meta.txt}: key and value per line) and the exact commands ({@code commands.txt}).
 */
record BenchResults(Map<String, Map<String, List<Double>>> values, Map<String, String> meta,
                    Map<String, String> commands) {

    /** The C side's name in results.tsv. */
    static final String C = "C";

    static BenchResults read(Path dir) throws IOException {
        Map<String, Map<String, List<Double>>> values = new LinkedHashMap<>();
        for (String line : Files.readAllLines(dir.resolve("results.tsv"))) {
            String[] f = line.split("\t");
            if (f.length != 4 || f[3].isBlank()) {
                continue;
            }
            double v;
            try {
                v = Double.parseDouble(f[3]);
            } catch (NumberFormatException e) {
                continue;   // a tool printed no figure: that repetition is missing, not zero
            }
            values.computeIfAbsent(f[0], k -> new LinkedHashMap<>()).computeIfAbsent(f[1], k -> new ArrayList<>()).add(v);
        }
        return new BenchResults(values, pairs(dir.resolve("meta.txt"), " "), pairs(dir.resolve("commands.txt"), "\t"));
    }

    private static Map<String, String> pairs(Path file, String separator) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                int i = line.indexOf(separator);
                if (i > 0) {
                    m.put(line.substring(0, i), line.substring(i + 1).trim());
                }
            }
        }
        return m;
    }

    /** The samples of one implementation for one figure, if the run produced any. */
    Optional<Summary> summary(String figure, String impl) {
        List<Double> v = values.getOrDefault(figure, Map.of()).get(impl);
        return v == null || v.isEmpty() ? Optional.empty() : Optional.of(Summary.of(v));
    }

    /** min, median (of an even count, the mean of the middle two), max of a figure's samples: Guava's Stats and Quantiles. */
    record Summary(int n, double min, double median, double max) {
        static Summary of(List<Double> samples) {
            Stats s = Stats.of(samples);
            return new Summary((int) s.count(), s.min(), Quantiles.median().compute(samples), s.max());
        }
    }
}
