package org.rdmacm4j.cm.core.doctor;

import org.rdmacm4j.cm.core.doctor.Finding.Status;
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
import org.rdmacm4j.verbs.Rdma;

/**
 * One examination of one machine: the checks, in the order a person fixes what they find, each a
 * {@link Finding}; the limit checks are {@link Limits}, the loopback connect {@link LoopbackTest}.
 *
 * <p>Longer than 400 lines because the device checks (modules, device files, devices and ports,
 * RoCE GIDs, rxe/siw links) build on what the earlier ones found, kept in this object's fields;
 * each check is one method that reads sysfs and words its own remedy.
 */
final class Examination {
    /** One port of one device, as sysfs shows it. */
    record Port(String device, int number, String state, String physState, String linkLayer, String rate) {
        boolean active() {
            return state.contains("ACTIVE");
        }

        boolean roce() {
            return linkLayer.equalsIgnoreCase("Ethernet");
        }
    }

    /** A RoCE GID that carries an IPv4 address. */
    record Ipv4Gid(String device, int port, int index, String address, String type, String netdev) { }

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

    private final Limits limits;

    Examination(Machine m, Options o) {
        this.limits = new Limits(m, o);
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
        check("memlock limit", limits::memlock);
        check("open-file limit", limits::openFiles);
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
