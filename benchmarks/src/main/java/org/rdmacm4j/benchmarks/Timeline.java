package org.rdmacm4j.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one recording of benchmarks/profile-timeline.sh ({@code NAME.perf.txt}: perf script of a
 * system-wide record of scheduler switches and wake-ups, syscall entries and exits and CPU-clock
 * samples, on CLOCK_MONOTONIC; {@code NAME.out}: the program's output with its window and marks) and
 * prints where the time of each window went: {@code Timeline RESULTS_DIR NAME}.
 *
 * <p>For each window (each marked lone connection, from connect called to both ends closed; or the
 * whole storm), per thread of the program: time running outside syscalls (user code; the CPU-clock
 * samples split it by DSO: JIT-compiled or interpreted Java, the JVM, the native libraries), time
 * running inside syscalls by kind, time runnable but not running (waiting for a CPU), and the
 * cross-thread wake-ups (hand-offs) with the delay from wake-up to running. Also the CPU time of
 * every other task (kernel threads: rxe, softirq, workers) apart from perf itself. Idle time is not reported: both CPUs' idle tasks are pid 0.
 * One thread reads; a single pass over the perf text, which is too large to hold for a storm.
 */
public final class Timeline {
    // "comm pid/tid [cpu] secs.nanos: event: trace" (comm may hold spaces; perf pads it)
    private static final Pattern LINE = Pattern.compile("^\\s*(.+?)\\s+(-?\\d+)/(-?\\d+)\\s+\\[(\\d+)\\]\\s+(\\d+)\\.(\\d+):\\s+(?:\\d+\\s+)?([\\w:-]+):\\s*(.*)$");
    private static final Pattern SWITCH = Pattern.compile("prev_comm=(.*) prev_pid=(\\d+) .*prev_state=(\\S+) ==> next_comm=(.*) next_pid=(\\d+) ");
    private static final Pattern WAKEUP = Pattern.compile("comm=(.*) pid=(\\d+) ");
    private static final Pattern NR = Pattern.compile("NR (\\d+)(?: \\(([0-9a-f]+))?");
    private static final Pattern DSO = Pattern.compile("\\(([^)]*)\\)\\s*$");

    /** One thread's accounting inside the current window. */
    private static final class Acc {
        String comm;
        boolean program;
        double user;
        double runq;
        final Map<String, Double> sys = new TreeMap<>();
        final Map<String, Integer> calls = new TreeMap<>();
        final Map<String, Integer> samples = new TreeMap<>();
    }

    /** A thread's live state between events. */
    private static final class Live {
        String comm;
        boolean running;
        long since;            // when the current running / runnable stretch began
        boolean runnable;      // woken or preempted, not yet running
        String syscall;        // kind of the syscall it is in, or null
    }

    private record Window(String name, long from, long to) { }

    private final Map<Integer, Live> live = new HashMap<>();
    private final Map<Integer, Acc> acc = new HashMap<>();
    private final Map<Integer, String> cmFds = new HashMap<>();
    private final List<String> handoffs = new ArrayList<>();
    private final Map<Integer, Long> wokenAt = new HashMap<>();
    private final Map<Integer, Integer> wokenBy = new HashMap<>();
    private double idle;
    private int programPid = -1;
    private Window window;

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: Timeline RESULTS_DIR NAME   (reads NAME.perf.txt and NAME.out)");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        List<Window> windows = windows(Files.readAllLines(dir.resolve(args[1] + ".out")));
        Map<Integer, String> fds = new HashMap<>();
        for (String l : Files.readAllLines(dir.resolve(args[1] + ".out"))) {
            if (l.startsWith("fd ")) {
                String[] f = l.split(" ");
                fds.put(Integer.parseInt(f[1]), f[2].contains("rdma_cm") ? "rdma_cm" : "uverbs");
            }
        }
        for (Window w : windows) {
            var t = new Timeline();
            t.cmFds.putAll(fds);
            t.window = w;
            try (BufferedReader in = Files.newBufferedReader(dir.resolve(args[1] + ".perf.txt"))) {
                t.read(in);
            }
            t.print();
        }
    }

    /** The marked connections, else the whole window of the program's output. */
    private static List<Window> windows(List<String> out) {
        List<Window> w = new ArrayList<>();
        long start = -1;
        long end = -1;
        for (String l : out) {
            String[] f = l.split(" ");
            if (l.startsWith("mark ")) {
                w.add(new Window("connection " + f[1], Long.parseLong(f[3]), Long.parseLong(f[9])));
            } else if (l.startsWith("window_start_monotonic_ns ")) {
                start = Long.parseLong(f[1]);
            } else if (l.startsWith("window_end_monotonic_ns ")) {
                end = Long.parseLong(f[1]);
            }
        }
        if (w.isEmpty() && start > 0 && end > start) {
            w.add(new Window("window", start, end));
        }
        return w;
    }

    private void read(BufferedReader in) throws IOException {
        String l;
        while ((l = in.readLine()) != null) {
            Matcher m = LINE.matcher(l);
            if (!m.matches()) {
                continue;
            }
            long t = Long.parseLong(m.group(5)) * 1_000_000_000L + Long.parseLong((m.group(6) + "000000000").substring(0, 9));
            if (t > window.to) {
                break;
            }
            String comm = m.group(1).trim();
            int pid = Integer.parseInt(m.group(2));
            int tid = Integer.parseInt(m.group(3));
            String event = m.group(7);
            String trace = m.group(8);
            if (programPid < 0 && (comm.equals("java") || comm.equals("cm_event_loop")) && pid > 0) {
                programPid = pid;
            }
            boolean inWindow = t >= window.from;
            switch (event) {
                case "sched:sched_switch" -> onSwitch(t, trace, inWindow, pid);
                case "sched:sched_wakeup", "sched:sched_wakeup_new" -> onWakeup(t, tid, trace, inWindow);
                case "raw_syscalls:sys_enter" -> onSyscall(t, tid, comm, pid, trace, true, inWindow);
                case "raw_syscalls:sys_exit" -> onSyscall(t, tid, comm, pid, trace, false, inWindow);
                case "cpu-clock" -> {
                    if (inWindow && tid != 0) {
                        Matcher d = DSO.matcher(trace);
                        String dso = d.find() ? shortDso(d.group(1)) : "?";
                        accOf(tid, comm, pid).samples.merge(dso, 1, Integer::sum);
                    }
                }
                default -> { }
            }
        }
        // close the open stretches at the window's end
        for (var e : live.entrySet()) {
            Live s = e.getValue();
            if (s.running) {
                charge(e.getKey(), s, window.to);
            } else if (s.runnable) {
                accOf(e.getKey(), s.comm, -1).runq += ms(window.to - Math.max(s.since, window.from));
            }
        }
    }

    private static String shortDso(String dso) {
        if (dso.contains("kernel")) {
            return "kernel";
        }
        if (dso.equals("unknown") || dso.startsWith("[") || dso.contains("anon") || dso.contains("perf-")) {
            return "JIT/interpreted code";
        }
        return dso.substring(dso.lastIndexOf('/') + 1);
    }

    private Live liveOf(int tid, String comm) {
        Live s = live.computeIfAbsent(tid, k -> new Live());
        if (comm != null) {
            s.comm = comm;
        }
        return s;
    }

    private Acc accOf(int tid, String comm, int pid) {
        Acc a = acc.computeIfAbsent(tid, k -> new Acc());
        if (comm != null && !comm.isEmpty()) {
            a.comm = comm;
        }
        if (pid > 0 && pid == programPid) {
            a.program = true;
        }
        return a;
    }

    /** Adds a running stretch [s.since, t) clipped to the window, to user or the syscall's kind. */
    private void charge(int tid, Live s, long t) {
        long from = Math.max(s.since, window.from);
        if (t <= from) {
            return;
        }
        double d = ms(t - from);
        if (tid == 0) {
            idle += d;
            return;
        }
        Acc a = accOf(tid, s.comm, -1);
        if (s.syscall == null) {
            a.user += d;
        } else {
            a.sys.merge(s.syscall, d, Double::sum);
        }
    }

    private void onSwitch(long t, String trace, boolean in, int currentPid) {
        Matcher m = SWITCH.matcher(trace);
        if (!m.find()) {
            return;
        }
        int prev = Integer.parseInt(m.group(2));
        int next = Integer.parseInt(m.group(5));
        Live p = liveOf(prev, m.group(1));
        if (p.running || prev == 0) {
            p.since = p.running ? p.since : t;
            charge(prev, p, t);
        }
        p.running = false;
        p.runnable = m.group(3).startsWith("R");   // preempted: still wants a CPU
        p.since = t;
        Live n = liveOf(next, m.group(4));
        if (n.runnable) {
            if (t > window.from) {
                accOf(next, n.comm, -1).runq += ms(t - Math.max(n.since, window.from));
            }
            Long woke = wokenAt.remove(next);
            Integer by = wokenBy.remove(next);
            if (in && woke != null && by != null && by != next && acc.containsKey(by) && acc.get(by).program
                    && acc.containsKey(next) && acc.get(next).program) {
                handoffs.add(String.format(Locale.ROOT, "+%.3f ms  %s -> %s  (ran %.0f µs after the wake-up)",
                        ms(woke - window.from), acc.get(by).comm, n.comm, (t - woke) / 1e3));
            }
        }
        n.running = true;
        n.runnable = false;
        n.since = t;
    }

    private void onWakeup(long t, int waker, String trace, boolean in) {
        Matcher m = WAKEUP.matcher(trace);
        if (!m.find()) {
            return;
        }
        int target = Integer.parseInt(m.group(2));
        Live s = liveOf(target, m.group(1));
        if (!s.running && !s.runnable) {
            s.runnable = true;
            s.since = t;
            wokenAt.put(target, t);
            wokenBy.put(target, waker);
        }
    }

    private void onSyscall(long t, int tid, String comm, int pid, String trace, boolean enter, boolean in) {
        Live s = liveOf(tid, comm);
        accOf(tid, comm, pid);
        if (!s.running) {   // first sight of a thread already on a CPU (the record began mid-stretch)
            s.running = true;
            s.runnable = false;
            s.since = t;
        }
        charge(tid, s, t);
        s.since = t;
        if (enter) {
            Matcher m = NR.matcher(trace);
            String kind = m.find() ? kind(Integer.parseInt(m.group(1)), m.group(2)) : "?";
            s.syscall = kind;
            if (in) {
                accOf(tid, comm, pid).calls.merge(kind, 1, Integer::sum);
            }
        } else {
            s.syscall = null;
        }
    }

    private String kind(int nr, String firstArgHex) {
        int fd = firstArgHex == null ? -1 : (int) Long.parseLong(firstArgHex, 16);
        return switch (nr) {
            case 0, 1 -> {
                String dev = cmFds.get(fd);
                String op = nr == 0 ? "read" : "write";
                yield dev == null ? op + " (other fd: eventfd, completion channel, ...)" : op + " " + dev + " (native CM/verbs command)";
            }
            case 16 -> "ioctl" + ("uverbs".equals(cmFds.get(fd)) ? " uverbs (native verbs command)" : "");
            case 202 -> "futex (thread hand-off)";
            case 232, 281, 441 -> "epoll_wait";
            case 233 -> "epoll_ctl";
            case 7, 271 -> "poll";
            case 9, 10, 11, 25, 28 -> "memory (mmap/mprotect/munmap/madvise)";
            case 3 -> "close";
            case 228, 96 -> "clock_gettime";
            case 24 -> "sched_yield";
            case 35, 230 -> "sleep";
            case 290, 284 -> "eventfd";
            case 257 -> "openat";
            case 72 -> "fcntl";
            case 13, 14, 15 -> "signals";
            case 56, 435 -> "clone";
            default -> "other (NR " + nr + ")";
        };
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }

    private void print() {
        System.out.printf(Locale.ROOT, "== %s: %.3f ms (monotonic %d .. %d)%n", window.name, ms(window.to - window.from),
                window.from, window.to);
        double progUser = 0;
        double progSys = 0;
        double progRunq = 0;
        double other = 0;
        double perf = 0;
        Map<String, Double> sysByKind = new TreeMap<>();
        Map<String, Integer> callsByKind = new TreeMap<>();
        Map<String, Integer> samplesByDso = new TreeMap<>();
        for (var e : acc.entrySet()) {
            Acc a = e.getValue();
            double sys = a.sys.values().stream().mapToDouble(Double::doubleValue).sum();
            if (!a.program) {
                if ("perf".equals(a.comm)) {
                    perf += a.user + sys;   // the recorder itself: its cost is in the window, not in the program
                } else {
                    other += a.user + sys;
                }
                continue;
            }
            if (a.user + sys + a.runq == 0 && a.calls.isEmpty()) {
                continue;
            }
            progUser += a.user;
            progSys += sys;
            progRunq += a.runq;
            a.sys.forEach((k, v) -> sysByKind.merge(k, v, Double::sum));
            a.calls.forEach((k, v) -> callsByKind.merge(k, v, Integer::sum));
            a.samples.forEach((k, v) -> samplesByDso.merge(k, v, Integer::sum));
            System.out.printf(Locale.ROOT, "thread %-16s %6d  user %8.3f ms  syscalls %8.3f ms (%d calls)  runq %7.3f ms  samples %s%n",
                    a.comm, e.getKey(), a.user, sys, a.calls.values().stream().mapToInt(Integer::intValue).sum(), a.runq, a.samples);
        }
        System.out.printf(Locale.ROOT, "program: user %.3f ms, in syscalls %.3f ms, waiting for a CPU %.3f ms; other tasks (kernel threads, rxe, softirq) %.3f ms; perf itself %.3f ms (2 vCPUs: %.3f ms of CPU in the window)%n",
                progUser, progSys, progRunq, other, perf, 2 * ms(window.to - window.from));
        sysByKind.forEach((k, v) -> System.out.printf(Locale.ROOT, "  syscall %-60s %5d calls %8.3f ms%n", k,
                callsByKind.getOrDefault(k, 0), v));
        callsByKind.forEach((k, v) -> {
            if (!sysByKind.containsKey(k)) {
                System.out.printf(Locale.ROOT, "  syscall %-60s %5d calls %8.3f ms%n", k, v, 0.0);
            }
        });
        System.out.println("  user-code samples by DSO (program threads): " + samplesByDso);
        System.out.println("  hand-offs between the program's threads (" + handoffs.size() + "):");
        handoffs.stream().limit(60).forEach(h -> System.out.println("    " + h));
        System.out.println();
    }
}
