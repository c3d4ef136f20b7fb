package org.rdmacm4j.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report generator on a small hand-made result set: ratios, missing rows, kept notes, the plot. */
class BenchReportTest {

    @Test
    void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        var s = BenchResults.Summary.of(List.of(4.0, 1.0, 3.0, 2.0));
        assertThat(s.min()).isEqualTo(1.0);
        assertThat(s.median()).isEqualTo(2.5);
        assertThat(s.max()).isEqualTo(4.0);
        assertThat(s.n()).isEqualTo(4);
    }

    @Test
    void writesRatiosOfMediansMissingRowsAndKeepsTheHandWrittenNotes(@TempDir Path tmp) throws Exception {
        Path results = Files.createDirectory(tmp.resolve("results"));
        Path docs = Files.createDirectory(tmp.resolve("docs"));
        Files.writeString(results.resolve("results.tsv"), String.join("\n",
                "setup_rate/500\tC\t1\t100", "setup_rate/500\tC\t2\t300", "setup_rate/500\tC\t3\t200",
                "setup_rate/500\tpipelined\t1\t40", "setup_rate/500\tpipelined\t2\t50", "setup_rate/500\tpipelined\t3\tnan?",
                "setup_rate/1\tC\t1\t10", "setup_rate/1\tpipelined\t1\t5",
                "latency_p50_us\tC\t1\t1000", "latency_p50_us\trdmacm4j\t1\t3000",
                "msg_rtt_p50_us\tC\t1\t100", "msg_rtt_p50_us\tC\t2\t120", "msg_rtt_p50_us\trdmacm4j\t1\t150",
                "msg_rtt_p50_us\trdmacm4j\t2\t160", "msg_rtt_p99_us\tC\t1\t200", "msg_rtt_p99_us\trdmacm4j\t1\t400",
                "msg_per_s\tC\t1\t9000", "msg_per_s\trdmacm4j\t1\t6000",
                "msg_cross_rtt_p50_us\trdmacm4j>C\t1\t130", "") + "\n");
        Files.writeString(results.resolve("meta.txt"), "date 2026-11-23T06:00Z\nkernel 6.1.0-test\nreps 3\nlockstep 0\n");
        Files.writeString(results.resolve("commands.txt"), "cmtime/C\tcmtime -s a | b\n");
        Files.writeString(docs.resolve("benchmarks.md"), "# Benchmarks\n\nold generated text\n" + BenchReport.END_MARKER
                + "\n\n## Profile notes\n\nhand-written\n");

        BenchReport.main(new String[] {results.toString(), docs.toString()});

        String md = Files.readString(docs.resolve("benchmarks.md"));
        // pipelined: the unparsable sample is dropped, median of 40 and 50 = 45; C median 200
        assertThat(md).contains("| setup rate, pipelined, N = 500 | ≥ 1.50 | 0.23 | **no** |");
        assertThat(md).contains("| N = 500: rdmacm4j pipelined | 2 | 40.0 | 45.0 | 50.0 | 0.23 |");
        assertThat(md).contains("| setup rate, lockstep, N = 500 | ≥ 1.00 | missing: `examples/bin/cmtime` has no `--lockstep`");
        assertThat(md).contains("| p50: rdmacm4j | 1 | 3,000 | 3,000 | 3,000 | 3.00 |");
        // the in-program round trip: medians 110 (C) and 155 (rdmacm4j), rate 6000 / 9000
        assertThat(md).contains("| message round trip p50 (in-program, primary) | ≤ 1.05 (≥ 0.95× the C speed) | 1.41 | **no** |");
        assertThat(md).contains("| message round trips/s (in-program, primary) | ≥ 0.95 | 0.67 | **no** |");
        assertThat(md).contains("| p50: msg_pingpong (C) | 2 | 100 | 110 | 120 | 1 |");
        assertThat(md).contains("| p50: rdmacm4j CmBench pingpong | 2 | 150 | 155 | 160 | 1.41 |");
        assertThat(md).contains("| p99: rdmacm4j CmBench pingpong | 1 | 400 | 400 | 400 | 2.00 |");
        assertThat(md).contains("| rdmacm4j CmBench pingpong | 1 | 6,000 | 6,000 | 6,000 | 0.67 |");
        assertThat(md).contains("| rdmacm4j client > C server | 130 | missing (no sample) | missing (no sample) |");
        assertThat(md).contains("| C client > rdmacm4j server | missing (no sample) |");
        assertThat(md).contains("| ucmatose per-message time (wall-time difference) | ≤ 1.05 (≥ 0.95× the C speed) | missing");
        assertThat(md).contains("6.1.0-test").contains("`cmtime -s a \\| b`");
        assertThat(md).doesNotContain("old generated text");
        assertThat(md).endsWith(BenchReport.END_MARKER + "\n\n## Profile notes\n\nhand-written\n");

        BufferedImage png = ImageIO.read(docs.resolve("connect-rate.png").toFile());
        assertThat(png.getWidth()).isEqualTo(960);
        assertThat(png.getHeight()).isEqualTo(600);
    }

    @Test
    void warmSectionGivesMinAndMedianPerJitAndTheTargets(@TempDir Path tmp) throws Exception {
        Path results = Files.createDirectory(tmp.resolve("results"));
        Files.writeString(results.resolve("results.tsv"), String.join("\n",
                "warm_p50_us\tC\t1\t2000", "warm_p50_us\tC\t2\t3000", "warm_p50_us\tC\t3\t2500",
                "warm_p50_us\trdmacm4j-c1\t1\t3000", "warm_p50_us\trdmacm4j-c1\t2\t3500", "warm_p50_us\trdmacm4j-c1\t3\t3100",
                "warm_p50_us\trdmacm4j-jdk\t1\t5000",
                "warm_storm_setup_rate\tC\t1\t100", "warm_storm_setup_rate\trdmacm4j-c1\t1\t90",
                "warm_cpu_us\tC\t1\t1000", "warm_cpu_us\trdmacm4j-c1\t1\t2000", "") + "\n");
        Files.writeString(results.resolve("meta.txt"), "reps 3\njits c1 jdk\njit_c1 -XX:TieredStopAtLevel=1\njit_jdk -XX:+UseSerialGC\n");
        var lines = new java.util.ArrayList<String>();

        new WarmReport(BenchResults.read(results), lines::add).write();

        String md = String.join("\n", lines);
        // medians: C 2500, c1 3100 (1.24), jdk 5000 (2.00, one run)
        assertThat(md).contains("| lone connection p50, µs (warm window) | lower | 2,000 / 2,500 | 3,000 / 3,100 | 1.24"
                + " | 5,000 / 5,000 (1 run) | 2.00 |");
        assertThat(md).contains("| lone connection p50, µs (warm window) | ≤ 1.30× C | 1.24 met | 2.00 **missed** |");
        assertThat(md).contains("| storm setup, connections/s (warm process) | ≥ 0.80× C | 0.90 met | missing |");
        assertThat(md).contains("| CPU user + sys per warm connection, µs (whole process) | ≤ 1.50× C | 2.00 **missed** | missing |");
        assertThat(md).contains("| syscalls per warm connection | lower | missing | missing | - | missing | - |");
        assertThat(md).contains("**c1** = `-XX:TieredStopAtLevel=1`; **jdk** = `-XX:+UseSerialGC`");
    }

    @Test
    void warmSectionGivesTheJavaFloorsColumnsBesideCWhenTheRunHadThem(@TempDir Path tmp) throws Exception {
        Path results = Files.createDirectory(tmp.resolve("results"));
        Files.writeString(results.resolve("results.tsv"), String.join("\n",
                "warm_p50_us\tC\t1\t2000", "warm_p50_us\tfloor-c1\t1\t1800", "warm_p50_us\tvfloor-c1\t1\t2200",
                "warm_p50_us\trdmacm4j-c1\t1\t3000",
                "warm_cpu_us\tC\t1\t1000", "warm_cpu_us\tfloor-c1\t1\t1100", "warm_cpu_us\trdmacm4j-c1\t1\t2000", "") + "\n");
        Files.writeString(results.resolve("meta.txt"), "reps 1\njits c1\nfloors floor vfloor\njit_c1 -XX:TieredStopAtLevel=1\n");
        var lines = new java.util.ArrayList<String>();

        new WarmReport(BenchResults.read(results), lines::add).write();

        String md = String.join("\n", lines);
        assertThat(md).contains("| figure | better | C min / median | floor-c1 min / median | ÷ C | vfloor-c1 min / median | ÷ C"
                + " | rdmacm4j-c1 min / median | ÷ C |");
        assertThat(md).contains("| lone connection p50, µs (warm window) | lower | 2,000 / 2,000 | 1,800 / 1,800 | 0.90"
                + " | 2,200 / 2,200 | 1.10 | 3,000 / 3,000 | 1.50 |");
        assertThat(md).contains("| target (issue 21, ratio of medians) | goal | floor-c1 | vfloor-c1 | rdmacm4j-c1 |");
        assertThat(md).contains("| CPU user + sys per warm connection, µs (whole process) | ≤ 1.50× C | 1.10 met | missing | 2.00 **missed** |");
        assertThat(md).contains("`FfmFloor warm`").contains("`VerbsFloor warm`");
    }

    @Test
    void warmSectionOfARunWithoutTheFloorHasNoFloorColumn(@TempDir Path tmp) throws Exception {
        Path results = Files.createDirectory(tmp.resolve("results"));
        Files.writeString(results.resolve("results.tsv"), "warm_p50_us\tC\t1\t2000\nwarm_p50_us\trdmacm4j-c1\t1\t3000\n");
        Files.writeString(results.resolve("meta.txt"), "reps 1\njits c1\n");
        var lines = new java.util.ArrayList<String>();

        new WarmReport(BenchResults.read(results), lines::add).write();

        assertThat(String.join("\n", lines)).doesNotContain("floor-c1").doesNotContain("FfmFloor");
    }
}
