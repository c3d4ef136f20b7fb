package org.rdmacm4j.examples;

import java.util.Arrays;
import java.util.List;
import org.rdmacm4j.cm.core.HistoryEntry;

/**
 * cmtime's table for {@link Cmtime}: each connection's {@code history()} placed on one clock, one
 * row per step. total ms = wall time during which at least one connection was in the step; max ms
 * and min us per connection; us / conn = total / N, as in rdma-core's cmtime.
 */
final class CmtimeTable {
    private static final String[] STEPS = {"create id", "bind addr", "resolve addr", "resolve route", "create qp",
        "connect", "disconnect", "destroy"};
    private static final String[] NOTE = {"a", "b", null, null, null, null, null, null};
    private final int n;
    private final long[][][] spans;   // [step][connection] = {absolute start, absolute end}, null if unmeasured

    CmtimeTable(int n) {
        this.n = n;
        this.spans = new long[STEPS.length][n][];
    }

    /**
     * Places connection {@code i}'s steps on the common clock: {@code origin} (when connect() was
     * called for it) + the history's elapsed times.
     */
    void add(int i, List<HistoryEntry> h, long origin, boolean lockstep) {
        int a = find(h, 0, "ADDR_RESOLVED"), q = find(h, a, "calls succeeded"), r = find(h, a, "ROUTE_RESOLVED");
        int e = find(h, r, "ESTABLISHED"), c = find(h, e, "close"), d = find(h, c, "DISCONNECTED");
        int end = h.getLast().phase().equals("CLOSED") ? h.size() - 1 : -1, start = find(h, 0, "connect");
        q = q < r ? q : -1;   // the QP is created, and rdma_resolve_route issued, by the step after ADDR_RESOLVED
        if (lockstep && start >= 0) {   // connect() called until the first step opened for all
            spans[0][i] = new long[] {origin, origin + h.get(start).elapsedNanos()};
        }
        put(2, i, origin, h, start, a);
        put(4, i, origin, h, a, q);
        put(3, i, origin, h, q >= 0 ? q : a, r);
        put(5, i, origin, h, r, e);
        put(6, i, origin, h, c, d);
        put(7, i, origin, h, d, end);
    }

    /** The header and every row ("bind addr" only with -b, as cmtime). */
    void print(boolean bound) {
        System.out.println("step              total ms     max ms     min us  us / conn");
        for (int s = 0; s < STEPS.length; s++) {
            if (s != 1 || bound) {
                row(STEPS[s], NOTE[s], spans[s]);
            }
        }
    }

    /** The index of the first entry at or after {@code from} whose input starts with {@code input}, or -1. */
    private static int find(List<HistoryEntry> h, int from, String input) {
        for (int i = Math.max(from, 0); from >= 0 && i < h.size(); i++) {
            if (h.get(i).input().startsWith(input)) {
                return i;
            }
        }
        return -1;
    }

    private void put(int step, int i, long origin, List<HistoryEntry> h, int from, int to) {
        if (from >= 0 && to > from) {
            spans[step][i] = new long[] {origin + h.get(from).elapsedNanos(), origin + h.get(to).elapsedNanos()};
        }
    }

    /** cmtime's row: total ms (union of the connections' intervals), max ms, min us, us / conn. */
    private void row(String name, String note, long[][] step) {
        long[][] s = Arrays.stream(step).filter(x -> x != null).sorted((x, y) -> Long.compare(x[0], y[0]))
                .toArray(long[][]::new);
        if (s.length == 0) {
            System.out.printf("%-13s: %11s%11s%11s%11s%s%n", name, "-", "-", "-", "-", note == null ? "" : "  (" + note + ")");
            return;
        }
        long total = 0, max = 0, min = Long.MAX_VALUE, curStart = s[0][0], curEnd = s[0][1];
        for (long[] x : s) {
            max = Math.max(max, x[1] - x[0]);
            min = Math.min(min, x[1] - x[0]);
            if (x[0] > curEnd) {
                total += curEnd - curStart;
                curStart = x[0];
            }
            curEnd = Math.max(curEnd, x[1]);
        }
        total += curEnd - curStart;
        System.out.printf("%-13s: %11.2f%11.2f%11.2f%11.2f%n", name, total / 1e6, max / 1e6, min / 1e3,
                total / 1e3 / n);
    }
}
