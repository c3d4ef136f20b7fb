package org.rdmacm4j.cm.core.doctor;

import org.rdmacm4j.cm.core.doctor.Finding.Status;
import java.util.List;
import java.util.Locale;

/** The limit checks of an examination: locked memory and open files, against the {@link Budget}. */
final class Limits {
    private final Machine m;
    private final Options o;

    Limits(Machine m, Options o) {
        this.m = m;
        this.o = o;
    }

    // ---------------------------------------------------------------- limits

    /** {soft, hard} of a /proc/self/limits row, Long.MAX_VALUE for unlimited; null if absent. */
    long[] limit(String row) {
        for (String l : m.lines("/proc/self/limits")) {
            if (l.startsWith(row)) {
                String[] f = l.substring(row.length()).trim().split("\\s+");
                if (f.length >= 2) {
                    return new long[] {parseLimit(f[0]), parseLimit(f[1])};
                }
            }
        }
        return null;
    }

    static long parseLimit(String s) {
        return s.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(s);
    }

    boolean capIpcLock() {
        for (String l : m.lines("/proc/self/status")) {
            if (l.startsWith("CapEff:")) {
                long caps = Long.parseUnsignedLong(l.substring(7).trim(), 16);
                return (caps & (1L << 14)) != 0;   // CAP_IPC_LOCK
            }
        }
        return false;
    }

    static String bytes(long b) {
        if (b == Long.MAX_VALUE) {
            return "unlimited";
        }
        if (b >= 1 << 30 && b % (1 << 20) == 0) {
            return String.format(Locale.ROOT, "%.1f GiB", b / (double) (1 << 30));
        }
        return b >= 1 << 20 ? String.format(Locale.ROOT, "%.1f MiB", b / (double) (1 << 20)) : (b >> 10) + " KiB";
    }

    List<Finding> memlock() {
        int n = o.connections();
        long per = Budget.PINNED_BYTES_PER_CONNECTION;
        long need = (n * (per - Budget.HARDWARE_RINGS_ALLOWANCE) + Budget.SLAB - 1) / Budget.SLAB * Budget.SLAB + n * Budget.HARDWARE_RINGS_ALLOWANCE;
        long[] lim = limit("Max locked memory");
        String basis = "estimate " + (per >> 10) + " KiB per connection: 2 x 32 registered 4 KiB message slots"
                + " (the default message channel) + 64 KiB for QP/CQ rings hardware providers pin";
        if (lim == null) {
            return List.of(new Finding("memlock limit", Status.WARN, "could not read Max locked memory from"
                    + " /proc/self/limits; " + n + " connections need " + bytes(need) + " (" + basis + ")",
                    "check with ulimit -l"));
        }
        String have = "soft " + bytes(lim[0]) + ", hard " + bytes(lim[1]);
        long allows = lim[0] == Long.MAX_VALUE ? Long.MAX_VALUE : lim[0] / per;
        String detail = have + "; " + n + " connections need about " + bytes(need) + " (" + basis + ")";
        if (capIpcLock()) {
            return List.of(Finding.ok("memlock limit", detail + "; the limit does not bind this process: it has"
                    + " CAP_IPC_LOCK (root) - a program run as another user is bound by it"));
        }
        if (lim[0] >= need) {
            return List.of(Finding.ok("memlock limit", detail));
        }
        long kib = (need + 1023) / 1024;
        String fix = lim[1] >= need
                ? "ulimit -l " + kib + " (in the shell that starts the JVM; the hard limit allows it), or ulimit -l unlimited"
                : "raise the hard limit, then ulimit -l " + kib + ": in /etc/security/limits.conf the lines \""
                + user() + " soft memlock " + kib + "\" and \"" + user() + " hard memlock " + kib
                + "\" (or unlimited) and log in again; for a systemd service LimitMEMLOCK=" + kib + "K";
        return List.of(new Finding("memlock limit", Status.WARN, detail + "; the soft limit allows about "
                + allows + " connections (registration fails with ENOMEM beyond it)", fix));
    }

    List<Finding> openFiles() {
        int n = o.connections();
        long need = (long) n * Budget.FDS_PER_CONNECTION + Budget.FDS_BASE;
        long[] lim = limit("Max open files");
        String basis = Budget.FDS_PER_CONNECTION + " per connection (one completion channel per connection end, both ends"
                + " in a process that connects and accepts) + " + Budget.FDS_BASE + " for the JVM and the RdmaCm";
        if (lim == null) {
            return List.of(new Finding("open-file limit", Status.WARN, "could not read Max open files from"
                    + " /proc/self/limits; " + n + " connections need " + need + " (" + basis + ")",
                    "check with ulimit -n"));
        }
        String detail = "soft " + (lim[0] == Long.MAX_VALUE ? "unlimited" : lim[0]) + ", hard "
                + (lim[1] == Long.MAX_VALUE ? "unlimited" : lim[1]) + "; " + n + " connections need " + need
                + " (" + basis + ")";
        if (lim[0] >= need) {
            return List.of(Finding.ok("open-file limit", detail));
        }
        long allows = Math.max(0, (lim[0] - Budget.FDS_BASE) / Budget.FDS_PER_CONNECTION);
        String fix = lim[1] >= need
                ? "ulimit -n " + need + " (in the shell that starts the JVM; the hard limit allows it)"
                : "raise the hard limit, then ulimit -n " + need + ": in /etc/security/limits.conf the lines \""
                + user() + " soft nofile " + need + "\" and \"" + user() + " hard nofile " + need
                + "\" and log in again; for a systemd service LimitNOFILE=" + need;
        return List.of(new Finding("open-file limit", Status.WARN, detail + "; the soft limit allows about "
                + allows + " connections (rdma_create_qp fails with EMFILE beyond it)", fix));
    }

    String user() {
        return m.real() ? System.getProperty("user.name", "USER") : "USER";
    }

    // ---------------------------------------------------------------- the loopback
}
