package org.rdmacm4j.it.support;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableSortedMap;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Per-device resource counts as the kernel reports them through {@code rdma resource show}:
 * one line per device, e.g. {@code 0: rxe0: pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0}.
 * Reading them from outside the JVM is the point: a leak the process cannot see is still a leak.
 *
 * @param byDevice device name to its "kind count" pairs, both sorted for stable comparison
 */
public record RdmaResources(Map<String, Map<String, Long>> byDevice) {

    public RdmaResources {
        ImmutableSortedMap.Builder<String, Map<String, Long>> sorted = ImmutableSortedMap.naturalOrder();
        byDevice.forEach((device, counts) -> sorted.put(device, ImmutableSortedMap.copyOf(counts)));
        byDevice = sorted.build();   // a value: immutable all the way down, both levels sorted
    }

    /** Runs {@code rdma resource show} now. */
    public static RdmaResources current() {
        ExternalProcess.Result result = ExternalProcess.run(Duration.ofSeconds(20), "rdma", "resource", "show");
        if (result.exitCode() != 0) {
            throw new IllegalStateException("rdma resource show failed: " + result);
        }
        return parse(result.output());
    }

    /** Parses the text {@code rdma resource show} prints. */
    public static RdmaResources parse(String text) {
        Map<String, Map<String, Long>> devices = new TreeMap<>();
        for (String line : text.strip().split("\n")) {
            String[] parts = line.strip().split("\\s+");
            // "<index>: <device>: kind n kind n ..."
            if (parts.length < 2 || !parts[0].endsWith(":") || !parts[1].endsWith(":")) {
                continue;
            }
            String device = parts[1].substring(0, parts[1].length() - 1);
            Map<String, Long> counts = new TreeMap<>();
            for (int i = 2; i + 1 < parts.length; i += 2) {
                counts.put(parts[i], Long.parseLong(parts[i + 1]));
            }
            devices.put(device, counts);
        }
        checkArgument(!devices.isEmpty(), "no device lines in 'rdma resource show' output: %s", text);
        return new RdmaResources(devices);
    }

    /** These counts without {@code device}'s line (a test fixture's own device, say). */
    public RdmaResources without(String device) {
        Map<String, Map<String, Long>> rest = new TreeMap<>(byDevice);
        rest.remove(device);
        return new RdmaResources(rest);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        byDevice.forEach((device, counts) -> {
            sb.append(device).append(':');
            counts.forEach((kind, n) -> sb.append(' ').append(kind).append(' ').append(n));
            sb.append('\n');
        });
        return sb.toString().strip();
    }
}
