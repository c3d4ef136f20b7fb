package org.rdmacm4j.cm.core.doctor;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * {@code rdmacm4j doctor}: tells a person, in words, whether this machine can run rdmacm4j and
 * what to do if not. Run it as {@code examples/bin/doctor} in a checkout, or from the jars as
 * {@code java --enable-native-access=org.rdmacm4j.verbs -p <the rdmacm4j jars> -m org.rdmacm4j.cm.core/org.rdmacm4j.cm.core.doctor.Doctor}.
 *
 * <p>It looks, in this order, at: the JVM (native access for {@code org.rdmacm4j.verbs}),
 * librdmacm and libibverbs (where they are, their versions, the Debian packages), the libibverbs
 * providers, the kernel modules ({@code ib_core}, {@code ib_uverbs}, {@code rdma_cm},
 * {@code rdma_ucm}), {@code /dev/infiniband}, the RDMA devices and their ports, the RoCE GIDs that
 * carry IPv4 addresses, the soft-RoCE ({@code rxe}) and soft-iWARP ({@code siw}) links, the
 * locked-memory and open-file limits against what {@code -n} connections need, and finally a
 * loopback connection through the public API: listen on a RoCE IPv4 address of this machine,
 * connect to it, send one message, close, all within a deadline. Each finding that is not fine
 * names its fix (the package, the {@code modprobe}, the {@code rdma link add} line, the
 * {@code ulimit}).
 *
 * <p>Exit status: 0 only when the loopback connection worked; 1 otherwise; 2 for a bad argument.
 * It never prints a stack trace: a check that fails unexpectedly is itself a finding.
 *
 * <p>The estimates it applies (see {@link #PINNED_BYTES_PER_CONNECTION} and
 * {@link #FDS_PER_CONNECTION}) are for connections with the default message channel.
 */
public final class Doctor {
    private Doctor() { }

    static final String USAGE = """
            usage: doctor [-n connections] [-a address] [-b source] [-t seconds]
              Says whether this machine can run rdmacm4j, and what to do if not.
              -n connections  connections to check the memlock and open-file limits for (default 1000)
              -a address      the IPv4 address to listen on and connect to in the loopback test
                              (default: the first IPv4 address of an ACTIVE RoCE port's GIDs)
              -b source       the source address of the loopback connect (default: another IPv4
                              address of the same device, if it has one)
              -t seconds      deadline of the loopback test (default 20)
              Exit status: 0 if a connection to itself through the rdmacm4j API worked, 1 if not.""";

    /** Runs the doctor on this machine, prints its report, and exits with its status (0: the loopback worked). */
    public static void main(String[] args) {
        int status;
        try {
            status = run(args, System.out, System.err);
        } catch (Throwable t) {   // never a stack trace
            System.err.println("doctor: could not finish: " + t);
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    /**
     * Runs the doctor with command-line arguments, printing to {@code out} (the report) and
     * {@code err} (argument errors); returns the exit status instead of exiting.
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options o = Options.defaults();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                out.println(USAGE);
                return 0;
            }
            if (!List.of("-n", "-a", "-b", "-t").contains(a)) {
                err.println("doctor: unknown argument " + a + "\n" + USAGE);
                return 2;
            }
            if (i + 1 >= args.length) {
                err.println("doctor: " + a + " needs a value\n" + USAGE);
                return 2;
            }
            String v = args[++i];
            try {
                o = switch (a) {
                    case "-n" -> new Options(positive(v, 10_000_000), o.address(), o.source(), o.seconds(), true);
                    case "-a" -> new Options(o.connections(), ipv4(v), o.source(), o.seconds(), true);
                    case "-b" -> new Options(o.connections(), o.address(), ipv4(v), o.seconds(), true);
                    default -> new Options(o.connections(), o.address(), o.source(), positive(v, 3600), true);
                };
            } catch (IllegalArgumentException e) {
                err.println("doctor: invalid " + a + " " + v + ": " + e.getMessage() + "\n" + USAGE);
                return 2;
            }
        }
        Report r = examine(Machine.here(), o);
        out.print(r.render());
        out.flush();
        return r.exitCode();
    }

    /** Examines this machine with the defaults (1000 connections, 20 s loopback deadline). */
    public static Report examine() {
        return examine(Machine.here(), Options.defaults());
    }

    /**
     * Examines this machine, checking the limits for {@code connections} and giving the loopback
     * test {@code loopbackDeadline} (whole seconds, at least 1).
     */
    public static Report examine(int connections, java.time.Duration loopbackDeadline) {
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be at least 1, was " + connections);
        }
        long seconds = Math.max(1, Math.min(3600, loopbackDeadline.toSeconds()));
        return examine(Machine.here(), new Options(connections, null, null, (int) seconds, true));
    }

    private static int positive(String v, int max) {
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number");
        }
        if (n < 1 || n > max) {
            throw new IllegalArgumentException("valid range is 1 to " + max);
        }
        return n;
    }

    private static String ipv4(String v) {
        if (!v.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            throw new IllegalArgumentException("give an IPv4 address literal");
        }
        try {
            InetAddress.getByName(v);   // a literal: no DNS
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IPv4 address");
        }
        return v;
    }

    /** Connections the limits are checked against unless {@code -n} says otherwise. */
    public static final int DEFAULT_CONNECTIONS = Options.DEFAULT_CONNECTIONS;

    /** See {@link Budget#PINNED_BYTES_PER_CONNECTION}. */
    public static final long PINNED_BYTES_PER_CONNECTION = Budget.PINNED_BYTES_PER_CONNECTION;

    /** See {@link Budget#FDS_PER_CONNECTION}. */
    public static final int FDS_PER_CONNECTION = Budget.FDS_PER_CONNECTION;

    /** See {@link Budget#FDS_BASE}. */
    public static final int FDS_BASE = Budget.FDS_BASE;

    // ------------------------------------------------------------------ the examination

    static Report examine(Machine m, Options o) {
        Examination x = new Examination(m, o);
        x.run();
        return new Report(x.findings, o.connections(), x.loopbackWorked);
    }

    static String ipv4OfGidForTest(String gid) {
        return Examination.ipv4OfGid(gid);
    }
}
