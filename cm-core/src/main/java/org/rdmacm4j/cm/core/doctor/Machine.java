package org.rdmacm4j.cm.core.doctor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The machine as the doctor reads it: files under a root ("/" for this machine; a directory that
 * imitates /sys, /dev and /proc in tests) and, on the real machine only, a few commands with a
 * deadline. Every read answers "absent" instead of throwing.
 */
final class Machine {
    private final Path root;
    private final boolean real;

    private Machine(Path root, boolean real) {
        this.root = root;
        this.real = real;
    }

    /** This machine. */
    static Machine here() {
        return new Machine(Path.of("/"), true);
    }

    /** Files under {@code root} stand for the machine's; no commands, no native calls. */
    static Machine imitatedAt(Path root) {
        return new Machine(root, false);
    }

    /** True for this machine (commands run, this JVM's own libraries and limits are the ones read). */
    boolean real() {
        return real;
    }

    /** An absolute path of the machine ("/sys/class/infiniband") under the root. */
    Path path(String absolute) {
        return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
    }

    /** The path as the person knows it (without the root). */
    String show(Path p) {
        return real ? p.toString() : "/" + root.relativize(p);
    }

    Optional<String> read(String absolute) {
        return read(path(absolute));
    }

    /** The file's text, stripped; empty if it is missing or unreadable (sysfs answers EINVAL for unused GIDs). */
    Optional<String> read(Path p) {
        try {
            return Optional.of(Files.readString(p, StandardCharsets.UTF_8).strip());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    List<String> lines(String absolute) {
        return read(absolute).map(s -> s.lines().toList()).orElse(List.of());
    }

    boolean exists(String absolute) {
        return Files.exists(path(absolute));
    }

    /** Entry names of a directory, sorted; empty if it is missing. */
    List<String> list(String absolute) {
        Path dir = path(absolute);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted(Machine::naturalOrder).toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** "uverbs2" before "uverbs10", gid "2" before "10". */
    static int naturalOrder(String a, String b) {
        String pa = a.replaceAll("\\d+$", ""), pb = b.replaceAll("\\d+$", "");
        if (pa.equals(pb) && a.length() > pa.length() && b.length() > pb.length()) {
            try {
                return Long.compare(Long.parseLong(a.substring(pa.length())), Long.parseLong(b.substring(pb.length())));
            } catch (NumberFormatException e) {
                return a.compareTo(b);
            }
        }
        return a.compareTo(b);
    }

    /** The real path (symbolic links resolved), or empty. */
    Optional<Path> realPath(Path p) {
        try {
            return Optional.of(p.toRealPath());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** An environment variable of this process (none for an imitated machine). */
    Optional<String> env(String name) {
        return real ? Optional.ofNullable(System.getenv(name)).filter(s -> !s.isBlank()) : Optional.empty();
    }

    /** An executable on the PATH or in the sbin directories (real machine only). */
    Optional<Path> tool(String name) {
        if (!real) {
            return Optional.empty();
        }
        List<String> dirs = new ArrayList<>();
        env("PATH").ifPresent(p -> dirs.addAll(List.of(p.split(":"))));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        return dirs.stream().filter(d -> !d.isBlank()).map(d -> Path.of(d, name))
                .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p)).findFirst();
    }

    /** What a command printed (stdout and stderr) and its exit status. */
    record Output(int exitCode, String text) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    /** Runs a tool (real machine only) with a deadline; empty if it is not there or did not finish. */
    Optional<Output> run(String tool, String... args) {
        Optional<Path> exe = tool(tool);
        if (exe.isEmpty()) {
            return Optional.empty();
        }
        List<String> command = new ArrayList<>();
        command.add(exe.get().toString());
        command.addAll(List.of(args));
        Process p = null;
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().put("LC_ALL", "C");
            p = pb.start();
            p.getOutputStream().close();
            Process started = p;
            java.util.concurrent.atomic.AtomicReference<byte[]> out = new java.util.concurrent.atomic.AtomicReference<>(new byte[0]);
            Thread reader = Thread.ofVirtual().start(() -> {
                try (InputStream in = started.getInputStream()) {
                    out.set(in.readNBytes(1 << 20));
                } catch (IOException e) {
                    // the process was killed at its deadline: what was read is all there is
                }
            });
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                return Optional.empty();
            }
            reader.join(2000);
            return Optional.of(new Output(p.exitValue(), new String(out.get(), StandardCharsets.UTF_8).strip()));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            if (p != null) {
                p.destroyForcibly();
            }
        }
    }
}
