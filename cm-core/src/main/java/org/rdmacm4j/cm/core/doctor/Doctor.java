package org.rdmacm4j.cm.core.doctor;

import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.verbs.Rdma;

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

    /** How a finding stands. */
    public enum Status {
        /** Present and usable. */
        OK,
        /** Works, with a limit or caveat the finding names. */
        WARN,
        /** Something rdmacm4j needs is not there. */
        MISSING,
        /** Tried and failed. */
        FAILED
    }

    /**
     * One finding: what was looked at, how it stands, what was seen, and what to do about it
     * (empty for a finding that needs nothing).
     *
     * @param topic  what was looked at ("kernel modules", "memlock limit", ...)
     * @param status how it stands
     * @param detail what was seen, in words
     * @param fix    the command or step that fixes it; empty when nothing is to be done
     */
    public record Finding(String topic, Status status, String detail, String fix) {
        public Finding {
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(detail, "detail");
            fix = fix == null ? "" : fix;
        }

        static Finding ok(String topic, String detail) {
            return new Finding(topic, Status.OK, detail, "");
        }
    }

    /**
     * The whole examination.
     *
     * @param findings        every finding, in the order they were made
     * @param connections     the connection count the limits were checked against
     * @param loopbackWorked  true if the loopback connection through the API worked
     */
    public record Report(List<Finding> findings, int connections, boolean loopbackWorked) {
        public Report {
            findings = List.copyOf(findings);
        }

        /** 0 if the loopback connection worked, else 1. */
        public int exitCode() {
            return loopbackWorked ? 0 : 1;
        }

        /** The finding about {@code topic}, if one was made. */
        public Optional<Finding> finding(String topic) {
            return findings.stream().filter(f -> f.topic().equals(topic)).findFirst();
        }

        /** The report as the command prints it. */
        public String render() {
            StringBuilder sb = new StringBuilder();
            sb.append("rdmacm4j doctor: can this machine run rdmacm4j? (limits checked for ").append(connections)
                    .append(" connections; -n to change)\n\n");
            for (Finding f : findings) {
                String label = switch (f.status()) {
                    case OK -> "ok     ";
                    case WARN -> "WARN   ";
                    case MISSING -> "MISSING";
                    case FAILED -> "FAILED ";
                };
                sb.append(label).append("  ").append(f.topic()).append(": ").append(indent(f.detail(), 11)).append('\n');
                if (!f.fix().isEmpty()) {
                    sb.append("         fix: ").append(indent(f.fix(), 14)).append('\n');
                }
            }
            sb.append('\n');
            if (loopbackWorked) {
                long warnings = findings.stream().filter(f -> f.status() != Status.OK).count();
                sb.append("verdict: YES, this machine can run rdmacm4j: a connection to itself through the API worked");
                sb.append(warnings == 0 ? ".\n" : "; see the " + warnings + " WARN/MISSING line(s) above for its limits.\n");
            } else {
                sb.append("verdict: NO, this machine cannot run rdmacm4j yet: no connection through the API worked.\n")
                        .append("         Apply the fixes above from the top (each later check depends on the earlier ones),\n")
                        .append("         then run the doctor again. No RDMA hardware? The soft-RoCE lines (rdma_rxe,\n")
                        .append("         rdma link add) need only an Ethernet interface.\n");
            }
            return sb.toString();
        }

        private static String indent(String s, int spaces) {
            return s.replace("\n", "\n" + " ".repeat(spaces));
        }
    }

    /** What to examine: the connection count to budget the limits for, the loopback's addresses and deadline. */
    record Options(int connections, String address, String source, int seconds, boolean loopback) {
        static Options defaults() {
            return new Options(DEFAULT_CONNECTIONS, null, null, 20, true);
        }
    }

    /** Connections the limits are checked against unless {@code -n} says otherwise. */
    public static final int DEFAULT_CONNECTIONS = 1000;

    /**
     * The locked (pinned) memory one connection costs, the estimate the memlock check uses: its
     * message channel's registered buffers, with {@link MessagingOptions#defaults()} 2 x 32 credits x
     * 4 KiB slots (32 receives posted for the peer, 32 sends) = 256 KiB, registered from 1 MiB slabs
     * shared by the device's connections (memory registration pins pages and counts them against
     * RLIMIT_MEMLOCK unless the process has CAP_IPC_LOCK), plus 64 KiB for the QP and CQ rings that
     * hardware providers (mlx5 and the like) allocate in user memory and pin; soft-RoCE keeps those
     * in the kernel. Measured on rxe: 64 registered 4 KiB slots per connection, about 512 KiB per
     * connected pair (docs/reliability.md, live connections). Raw connections
     * ({@code ConnectOptions.Builder.raw()}) pin only the rings and what the application registers.
     */
    public static final long PINNED_BYTES_PER_CONNECTION = pinnedPerConnection();

    /**
     * File descriptors budgeted per connection: 2. Measured: each connection end holds one
     * completion-channel fd (1,000 fds added for 500 connected pairs, docs/reliability.md); a
     * process that both connects and accepts, as a server under test or this doctor's loopback
     * does, holds two ends per connection. {@link #FDS_BASE} more are budgeted for the JVM and the
     * RdmaCm itself (event channel, epoll, eventfd, uverbs device files).
     */
    public static final int FDS_PER_CONNECTION = 2;

    /** Open files budgeted for the JVM (jars, sockets) and the RdmaCm's own channel, epoll and eventfd. */
    public static final int FDS_BASE = 64;

    private static final long HARDWARE_RINGS_ALLOWANCE = 64 * 1024;
    private static final long SLAB = 1 << 20;

    private static long pinnedPerConnection() {
        MessagingOptions m = MessagingOptions.defaults();
        long slot = Math.max(64, Integer.highestOneBit(Math.max(1, m.maxMessageSize()) - 1) << 1);
        return 2L * m.receiveCredits() * slot + HARDWARE_RINGS_ALLOWANCE;
    }

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

    // ------------------------------------------------------------------ the examination

    static Report examine(Machine m, Options o) {
        Examination x = new Examination(m, o);
        x.run();
        return new Report(x.findings, o.connections(), x.loopbackWorked);
    }

    /** One port of one device, as sysfs shows it. */
    record Port(String device, int number, String state, String physState, String linkLayer, String rate) {
        boolean active() {
            return state.contains("ACTIVE");
        }

        boolean roce() {
            return linkLayer.equalsIgnoreCase("Ethernet");
        }
    }

    static String ipv4OfGidForTest(String gid) {
        return Examination.ipv4OfGid(gid);
    }

    /** A RoCE GID that carries an IPv4 address. */
    record Ipv4Gid(String device, int port, int index, String address, String type, String netdev) { }

    private static final class Examination {
        final Machine m;
        final Options o;
        final List<Finding> findings = new ArrayList<>();
        boolean loopbackWorked;

        // What later checks need from earlier ones.
        Rdma.Probe probe;
        final List<String> devices = new ArrayList<>();
        final List<Port> ports = new ArrayList<>();
        final List<Ipv4Gid> gids = new ArrayList<>();
        final Map<String, String> softKind = new LinkedHashMap<>();   // device -> "rxe" / "siw"
        final Map<String, String> netdevOf = new LinkedHashMap<>();   // device -> its netdev, where known
        boolean rdmaCmUsable;

        Examination(Machine m, Options o) {
            this.m = m;
            this.o = o;
        }

        void run() {
            check("Java", this::java);
            check("librdmacm", () -> library("librdmacm", "librdmacm.so.1", "librdmacm1", "librdmacm"));
            check("libibverbs", () -> library("libibverbs", "libibverbs.so.1", "libibverbs1", "libibverbs"));
            check("libibverbs providers", this::providers);
            check("kernel modules", this::modules);
            check("/dev/infiniband", this::deviceFiles);
            check("RDMA devices", this::devices);
            check("RoCE IPv4 GIDs", this::gids);
            check("rxe/siw links", this::softLinks);
            check("memlock limit", this::memlock);
            check("open-file limit", this::openFiles);
            check("loopback connect", this::loopback);
        }

        /** Runs one check; an unexpected failure becomes a finding, never a stack trace. */
        void check(String topic, Supplier<List<Finding>> c) {
            try {
                findings.addAll(c.get());
            } catch (Throwable t) {
                findings.add(new Finding(topic, Status.FAILED, "could not be checked: " + t,
                        "this is a bug of the doctor: please report it with this line"));
            }
        }

        // ---------------------------------------------------------------- Java, libraries

        List<Finding> java() {
            String java = "Java " + Runtime.version() + " (" + System.getProperty("java.home") + ")";
            if (!m.real()) {
                return List.of(Finding.ok("Java", java));
            }
            Module verbs = Rdma.class.getModule();
            String flag = "--enable-native-access=" + (verbs.isNamed() ? verbs.getName() : "ALL-UNNAMED");
            probe = Rdma.probe();   // loads the libraries (if native access allows) for the checks below
            if (!verbs.isNativeAccessEnabled()) {
                return List.of(new Finding("Java", Status.MISSING, java + ": native access is not enabled for "
                        + (verbs.isNamed() ? "module " + verbs.getName() : "the class path")
                        + ", so rdmacm4j may not call librdmacm", "start the JVM with " + flag
                        + " (examples/bin/* and examples/bin/doctor do)"));
            }
            return List.of(Finding.ok("Java", java + ", native access enabled (" + flag + ")"));
        }

        List<Finding> library(String topic, String soname, String debianPackage, String rpmPackage) {
            Optional<Path> found = loadedPath(soname).or(() -> searchPath(soname));
            String install = "sudo apt-get install " + debianPackage + " (Debian/Ubuntu; Fedora/RHEL: sudo dnf install "
                    + rpmPackage + ")";
            if (found.isEmpty()) {
                return List.of(new Finding(topic, Status.MISSING, soname + " not found (searched "
                        + String.join(", ", libraryDirs()) + ")", install));
            }
            Path real = m.realPath(found.get()).orElse(found.get());
            String file = real.getFileName().toString();
            String version = file.startsWith(soname + ".") ? file.substring(soname.length() - 1) : "";
            StringBuilder d = new StringBuilder(m.show(real));
            Matcher v = Pattern.compile("^1\\.\\d+\\.(\\d+)\\.\\d+$").matcher(version);
            if (!version.isEmpty()) {
                d.append(" (version ").append(version);
                if (v.matches()) {
                    d.append(", rdma-core ").append(v.group(1));
                }
                d.append(')');
            }
            m.run("dpkg-query", "-W", "-f", "${Version}", debianPackage).filter(Machine.Output::ok)
                    .ifPresent(out -> d.append("; Debian package ").append(debianPackage).append(' ').append(out.text()));
            if (probe != null && probe.missing() == Rdma.Missing.LIBRARY && probe.cause().contains(soname)) {
                return List.of(new Finding(topic, Status.MISSING, d + ", but it does not load: " + probe.cause(), install));
            }
            return List.of(Finding.ok(topic, d.toString()));
        }

        /** Where this process has the library mapped (it loaded it through the verbs module), if it has. */
        Optional<Path> loadedPath(String soname) {
            if (!m.real()) {
                return Optional.empty();
            }
            return m.lines("/proc/self/maps").stream().map(l -> l.replaceAll("^\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s*", ""))
                    .filter(p -> p.startsWith("/") && Path.of(p).getFileName().toString().startsWith(soname))
                    .map(Path::of).findFirst();
        }

        List<String> libraryDirs() {
            List<String> dirs = new ArrayList<>();
            m.env("LD_LIBRARY_PATH").ifPresent(p -> dirs.addAll(List.of(p.split(":"))));
            dirs.addAll(List.of("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                    "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/lib64", "/usr/local/lib", "/usr/lib", "/lib"));
            return dirs.stream().filter(d -> !d.isBlank()).distinct().toList();
        }

        Optional<Path> searchPath(String soname) {
            return libraryDirs().stream().map(d -> m.path(d).resolve(soname)).filter(Files::exists).findFirst();
        }

        List<Finding> providers() {
            List<String> found = new ArrayList<>();
            String where = null;
            for (String d : libraryDirs()) {
                List<String> names = m.list(d + "/libibverbs").stream().filter(n -> n.matches("lib.+-rdmav\\d+\\.so"))
                        .map(n -> n.substring(3, n.indexOf("-rdmav"))).toList();
                if (!names.isEmpty()) {
                    found.addAll(names);
                    where = d + "/libibverbs";
                    break;
                }
            }
            String fix = "sudo apt-get install ibverbs-providers (Fedora/RHEL: sudo dnf install libibverbs)";
            if (found.isEmpty()) {
                return List.of(new Finding("libibverbs providers", Status.MISSING,
                        "no provider libraries (lib<driver>-rdmav*.so): libibverbs finds no device without them", fix));
            }
            String d = found.size() + " in " + where + ": " + String.join(", ", found);
            if (!found.contains("rxe")) {
                return List.of(new Finding("libibverbs providers", Status.WARN, d
                        + "; rxe (soft-RoCE) is not among them", fix));
            }
            return List.of(Finding.ok("libibverbs providers", d));
        }

        // ---------------------------------------------------------------- kernel

        boolean moduleLoaded(String name, List<String> procModules) {
            return procModules.stream().anyMatch(l -> l.startsWith(name + " ")) || m.exists("/sys/module/" + name);
        }

        List<Finding> modules() {
            List<String> proc = m.lines("/proc/modules");
            String source = m.exists("/proc/modules") ? "/proc/modules and /sys/module" : "/sys/module (no /proc/modules)";
            List<String> needed = List.of("ib_core", "ib_uverbs", "rdma_cm", "rdma_ucm");
            List<String> missing = new ArrayList<>();
            for (String n : needed) {
                boolean builtInEvidence = (n.equals("rdma_ucm") && m.exists("/dev/infiniband/rdma_cm"))
                        || (n.equals("ib_uverbs") && m.list("/dev/infiniband").stream().anyMatch(f -> f.startsWith("uverbs")))
                        || (n.equals("ib_core") && m.exists("/sys/class/infiniband"));
                if (!moduleLoaded(n, proc) && !builtInEvidence) {
                    missing.add(n);
                }
            }
            List<String> soft = List.of("rdma_rxe", "siw").stream().filter(n -> moduleLoaded(n, proc)).toList();
            String softText = soft.isEmpty() ? "no soft-RDMA module (rdma_rxe, siw) loaded"
                    : String.join(" and ", soft) + " loaded";
            if (missing.isEmpty()) {
                return List.of(Finding.ok("kernel modules", String.join(", ", needed) + " loaded (" + source + "); "
                        + softText));
            }
            String kernel = m.real() ? "kernel " + System.getProperty("os.version") : "this kernel";
            String fix = "sudo modprobe rdma_ucm ib_uverbs (they load ib_core and rdma_cm)";
            if (!moduleLoaded("ib_core", proc) && !m.exists("/sys/class/infiniband")) {
                fix += "\nif modprobe says \"Module rdma_ucm not found\", " + kernel + " has no RDMA support"
                        + " (CONFIG_INFINIBAND, CONFIG_INFINIBAND_USER_ACCESS): boot a distribution kernel (Debian:"
                        + " linux-image-amd64), or run rdmacm4j in the project's soft-RoCE guest:"
                        + " it/rig/guest.sh -- examples/bin/doctor. In a container, load the modules on the host"
                        + " and pass the devices in (docker run --device /dev/infiniband/rdma_cm --device"
                        + " /dev/infiniband/uverbs0)";
            }
            return List.of(new Finding("kernel modules", Status.MISSING, "not loaded: " + String.join(", ", missing)
                    + " (" + source + "); " + softText, fix));
        }

        List<Finding> deviceFiles() {
            if (!m.exists("/dev/infiniband")) {
                return List.of(new Finding("/dev/infiniband", Status.MISSING,
                        "/dev/infiniband does not exist: no rdma_cm and no uverbs device file",
                        "sudo modprobe rdma_ucm ib_uverbs (they create /dev/infiniband/rdma_cm and uverbsN;"
                                + " uverbsN also needs an RDMA device, see below)"));
            }
            List<String> problems = new ArrayList<>();
            List<String> seen = new ArrayList<>();
            List<String> fixes = new ArrayList<>();
            Path cm = m.path("/dev/infiniband/rdma_cm");
            if (!Files.exists(cm)) {
                problems.add("rdma_cm is missing");
                fixes.add("sudo modprobe rdma_ucm");
            } else if (!Files.isReadable(cm) || !Files.isWritable(cm)) {
                problems.add("rdma_cm is not readable and writable by this user");
            } else {
                seen.add("rdma_cm");
            }
            List<String> uverbs = m.list("/dev/infiniband").stream().filter(f -> f.startsWith("uverbs")).toList();
            if (uverbs.isEmpty()) {
                problems.add("no uverbsN device file");
                fixes.add("sudo modprobe ib_uverbs (uverbsN appears for each RDMA device, see below)");
            }
            for (String u : uverbs) {
                Path p = m.path("/dev/infiniband/" + u);
                if (!Files.isReadable(p) || !Files.isWritable(p)) {
                    problems.add(u + " is not readable and writable by this user");
                } else {
                    seen.add(u);
                }
            }
            if (problems.stream().anyMatch(s -> s.contains("not readable"))) {
                fixes.add("make them read-write for your user: install rdma-core (its udev rules make rdma_cm and"
                        + " uverbs* mode 0666), or sudo chmod 0666 /dev/infiniband/rdma_cm /dev/infiniband/uverbs*");
            }
            if (problems.isEmpty()) {
                return List.of(Finding.ok("/dev/infiniband", String.join(", ", seen) + ", readable and writable"));
            }
            return List.of(new Finding("/dev/infiniband", Status.MISSING, String.join("; ", problems)
                    + (seen.isEmpty() ? "" : " (usable: " + String.join(", ", seen) + ")"), String.join("\n", fixes)));
        }

        // ---------------------------------------------------------------- devices, GIDs, links

        /** An Ethernet interface to put soft-RoCE on: the default route's, else the first that is up. */
        String ethernetInterface() {
            for (String line : m.lines("/proc/net/route")) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 2 && f[1].equals("00000000") && !f[0].equals("lo") && isEthernet(f[0])) {
                    return f[0];
                }
            }
            return m.list("/sys/class/net").stream().filter(n -> !n.equals("lo") && isEthernet(n))
                    .filter(n -> m.read("/sys/class/net/" + n + "/operstate").map(s -> s.equals("up")).orElse(false))
                    .findFirst().orElse("ETH");
        }

        boolean isEthernet(String netdev) {
            return m.read("/sys/class/net/" + netdev + "/type").map(t -> t.equals("1")).orElse(false);
        }

        String rxeLine() {
            String eth = ethernetInterface();
            return "sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev " + eth
                    + (eth.equals("ETH") ? " (ETH: your Ethernet interface, see ip -br link)" : "")
                    + " (soft-RoCE on " + eth + "; needs rdma_rxe in the kernel and iproute2's rdma tool)";
        }

        List<Finding> devices() {
            devices.addAll(m.list("/sys/class/infiniband"));
            if (devices.isEmpty()) {
                String why = m.exists("/sys/class/infiniband") ? "/sys/class/infiniband is empty"
                        : "/sys/class/infiniband does not exist (the kernel has no RDMA core loaded)";
                String probeSays = probe != null && probe.missing() == Rdma.Missing.DEVICE ? "; libibverbs agrees: "
                        + probe.cause().replaceAll("\\. Create a soft-RoCE.*", "") : "";
                return List.of(new Finding("RDMA devices", Status.MISSING, "no RDMA device: " + why + probeSays,
                        "no RDMA NIC? create a soft-RoCE device: " + rxeLine()));
            }
            List<Finding> out = new ArrayList<>();
            for (String d : devices) {
                String base = "/sys/class/infiniband/" + d;
                String nodeType = m.read(base + "/node_type").orElse("?").replaceAll("^\\d+:\\s*", "");
                Optional<String> parent = m.read(base + "/parent");
                boolean virtual = m.realPath(m.path(base)).map(p -> p.toString().contains("/devices/virtual/"))
                        .orElse(false) || parent.isPresent();
                if (virtual) {
                    softKind.put(d, nodeType.contains("RNIC") ? "siw" : "rxe");
                    parent.ifPresent(p -> netdevOf.put(d, p));
                }
                List<String> portTexts = new ArrayList<>();
                List<Port> mine = new ArrayList<>();
                for (String pn : m.list(base + "/ports")) {
                    String pb = base + "/ports/" + pn;
                    Port p = new Port(d, Integer.parseInt(pn), m.read(pb + "/state").orElse("?"),
                            m.read(pb + "/phys_state").orElse("?"), m.read(pb + "/link_layer").orElse("?"),
                            m.read(pb + "/rate").orElse("?"));
                    mine.add(p);
                    portTexts.add("port " + p.number() + " " + p.state().replaceAll("^\\d+:\\s*", "") + " ("
                            + p.physState().replaceAll("^\\d+:\\s*", "") + ", " + p.linkLayer() + ", " + p.rate() + ")");
                }
                ports.addAll(mine);
                String detail = d + " (" + nodeType + (virtual ? ", " + softKind.get(d) + " on " + parent.orElse("?") : "")
                        + "): " + (portTexts.isEmpty() ? "no ports" : String.join("; ", portTexts));
                if (mine.stream().anyMatch(Port::active)) {
                    out.add(Finding.ok("RDMA device " + d, detail));
                } else {
                    boolean roce = mine.stream().anyMatch(Port::roce);
                    String netdev = netdevOf.getOrDefault(d, "NETDEV");
                    out.add(new Finding("RDMA device " + d, Status.MISSING, detail + ": no ACTIVE port",
                            roce ? "bring its Ethernet interface up: sudo ip link set " + netdev + " up"
                                    + (netdev.equals("NETDEV") ? " (NETDEV: rdma link show names it)" : "")
                                    : "InfiniBand: check the cable and that a subnet manager runs on the fabric"
                                    + " (sudo apt-get install opensm && sudo systemctl start opensm)"));
                }
            }
            return out;
        }

        List<Finding> gids() {
            List<Port> roce = ports.stream().filter(Port::roce).toList();
            if (roce.isEmpty()) {
                if (!ports.isEmpty()) {
                    return List.of(Finding.ok("RoCE IPv4 GIDs", "no RoCE port (InfiniBand only): give the doctor and"
                            + " your programs the IPoIB interface's IPv4 address (-a)"));
                }
                return List.of(new Finding("RoCE IPv4 GIDs", Status.MISSING,
                        "no RoCE port, so no GID with an IPv4 address to connect to",
                        "create a soft-RoCE device (the \"RDMA devices\" line); its interface needs an IPv4 address:"
                                + " sudo ip addr add ADDRESS/PREFIX dev " + ethernetInterface()));
            }
            for (Port p : roce) {
                String pb = "/sys/class/infiniband/" + p.device() + "/ports/" + p.number();
                for (String idx : m.list(pb + "/gids")) {
                    String gid = m.read(pb + "/gids/" + idx).orElse("");
                    String address = ipv4OfGid(gid);
                    if (address == null) {
                        continue;
                    }
                    String type = m.read(pb + "/gid_attrs/types/" + idx).orElse("?");
                    String netdev = m.read(pb + "/gid_attrs/ndevs/" + idx).orElse("?");
                    netdevOf.putIfAbsent(p.device(), netdev);
                    gids.add(new Ipv4Gid(p.device(), p.number(), Integer.parseInt(idx), address, type, netdev));
                }
            }
            if (gids.isEmpty()) {
                String netdev = roce.stream().map(p -> netdevOf.get(p.device())).filter(Objects::nonNull).findFirst()
                        .orElse("NETDEV");
                return List.of(new Finding("RoCE IPv4 GIDs", Status.MISSING, "no GID of a RoCE port carries an IPv4"
                        + " address (RoCE connects by IP: rdma_cm finds the device through the address)",
                        "give the RoCE interface an IPv4 address: sudo ip addr add ADDRESS/PREFIX dev " + netdev));
            }
            List<String> texts = gids.stream().map(g -> g.address() + " (" + g.device() + " port " + g.port() + " gid "
                    + g.index() + ", " + g.type() + ", " + g.netdev() + ")").toList();
            boolean anyActive = gids.stream().anyMatch(g -> portActive(g.device(), g.port()));
            return List.of(new Finding("RoCE IPv4 GIDs", anyActive ? Status.OK : Status.WARN, String.join("; ", texts),
                    anyActive ? "" : "none on an ACTIVE port: see the device lines above"));
        }

        boolean portActive(String device, int port) {
            return ports.stream().anyMatch(p -> p.device().equals(device) && p.number() == port && p.active());
        }

        /** "0000:0000:0000:0000:0000:ffff:c000:0201" -> "192.0.2.1"; null for any other GID. */
        static String ipv4OfGid(String gid) {
            String g = gid.toLowerCase(Locale.ROOT);
            if (!g.matches("(0000:){5}ffff:[0-9a-f]{4}:[0-9a-f]{4}")) {
                return null;
            }
            String[] f = g.split(":");
            int hi = Integer.parseInt(f[6], 16), lo = Integer.parseInt(f[7], 16);
            return (hi >> 8) + "." + (hi & 0xff) + "." + (lo >> 8) + "." + (lo & 0xff);
        }

        List<Finding> softLinks() {
            Optional<Machine.Output> links = m.run("rdma", "link", "show");
            List<String> linkLines = links.filter(Machine.Output::ok).map(out -> out.text().lines()
                    .filter(l -> l.startsWith("link ")).map(String::strip).toList()).orElse(List.of());
            String tool;
            if (!m.real()) {
                tool = "";
            } else if (m.tool("rdma").isEmpty()) {
                tool = "; the rdma tool is not installed (sudo apt-get install iproute2)";
            } else if (links.isEmpty() || !links.get().ok()) {
                tool = "; rdma link show failed: " + links.map(out -> out.text().lines().findFirst().orElse("no output"))
                        .orElse("no answer within 5 s") + " (no RDMA netlink: the kernel has no ib_core loaded)";
            } else {
                tool = "; rdma link show: " + (linkLines.isEmpty() ? "no links" : String.join(" | ", linkLines));
            }
            if (!softKind.isEmpty()) {
                List<String> texts = new ArrayList<>();
                for (var e : softKind.entrySet()) {
                    texts.add(e.getValue() + " " + e.getKey() + " on " + netdevOf.getOrDefault(e.getKey(), "?")
                            + (ports.stream().anyMatch(p -> p.device().equals(e.getKey()) && p.active()) ? " (ACTIVE)"
                            : " (not ACTIVE)"));
                }
                return List.of(Finding.ok("rxe/siw links", String.join(", ", texts) + tool));
            }
            if (!devices.isEmpty()) {
                return List.of(Finding.ok("rxe/siw links", "none, and none needed: hardware device(s) "
                        + String.join(", ", devices) + tool));
            }
            return List.of(new Finding("rxe/siw links", Status.MISSING, "no rxe (soft-RoCE) or siw (soft-iWARP) link"
                    + tool, rxeLine()));
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
            long per = PINNED_BYTES_PER_CONNECTION;
            long need = (n * (per - HARDWARE_RINGS_ALLOWANCE) + SLAB - 1) / SLAB * SLAB + n * HARDWARE_RINGS_ALLOWANCE;
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
            long need = (long) n * FDS_PER_CONNECTION + FDS_BASE;
            long[] lim = limit("Max open files");
            String basis = FDS_PER_CONNECTION + " per connection (one completion channel per connection end, both ends"
                    + " in a process that connects and accepts) + " + FDS_BASE + " for the JVM and the RdmaCm";
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
            long allows = Math.max(0, (lim[0] - FDS_BASE) / FDS_PER_CONNECTION);
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

        List<Finding> loopback() {
            if (!m.real() || !o.loopback()) {
                return List.of(new Finding("loopback connect", Status.MISSING, "not tried on an imitated machine",
                        "run the doctor on the machine itself"));
            }
            String address = o.address();
            String source = o.source();
            if (address == null) {
                Optional<Ipv4Gid> g = gids.stream().filter(x -> portActive(x.device(), x.port())).findFirst();
                if (g.isEmpty()) {
                    g = gids.stream().findFirst();
                }
                if (g.isPresent()) {
                    address = g.get().address();
                    Ipv4Gid chosen = g.get();
                    if (source == null) {
                        source = gids.stream().filter(x -> x.device().equals(chosen.device())
                                && !x.address().equals(chosen.address())).map(Ipv4Gid::address).findFirst().orElse(null);
                    }
                }
            }
            LoopbackTest.Result r = LoopbackTest.run(address, source, o.seconds());
            loopbackWorked = r.worked();
            String fix = r.worked() ? "" : r.fix();
            return List.of(new Finding("loopback connect", r.status(), r.detail(), fix));
        }
    }
}
