package org.rdmacm4j.it.twohost;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RequestHandler;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.it.core.CheckedTraffic;
import org.rdmacm4j.it.support.ChildJvm;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.ResourcesAtRestExtension;

/**
 * Role b of the two-host fault scenarios: an echo server on 192.0.2.2:7500 (keepalive on every
 * accepted connection, so it notices a client it can no longer reach too) and the command
 * channel ({@link TwoHostControl}) through which role a asks for what must happen on this host:
 * <ul>
 *   <li>{@code spawn <port>}: start a separate peer process ({@code TwoHostPeer child <port>}) that
 *       serves echoes on 7600 and is itself a client of role a's server on {@code port}, carrying
 *       checked traffic; answers {@code spawned acked=<n>} once its traffic was acknowledged;</li>
 *   <li>{@code kill}: SIGKILL that process (its cm_ids die with its rdma_cm file);</li>
 *   <li>{@code run <shell command>}: run it here (bounded), answer its exit status and output;</li>
 *   <li>{@code link-delete}, {@code link-restore}: {@code rdma link delete rxe0} under the echo server
 *       and its connections, and putting it back ({@link DeviceRemoval});</li>
 *   <li>{@code at-rest}: close the echo server, check this host's {@code rdma resource show} is back
 *       at the rig's resting counts (one librdmacm context per device allowed, as on role a), and
 *       listen again: every surviving host is checked after every scenario.</li>
 * </ul>
 * Runs until the host side writes {@code stop} into its results directory (or 420 s pass), then
 * closes everything and exits 0; the rig checks this host's counts once more after the JVM.
 */
public final class TwoHostPeer {
    static final KeepaliveOptions KEEPALIVE = new KeepaliveOptions(Duration.ofMillis(200), 3);
    /** Where the child peer process listens. */
    static final int CHILD_PORT = 7600;
    /** Checked messages the child sends to role a's server before it says it is ready. */
    static final int CHILD_MESSAGES = 200;

    private TwoHostPeer() { }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("child")) {
            child(Integer.parseInt(args[1]));
            return;
        }
        ResourcesAtRestExtension.baseline();   // the rig's snapshot, before this JVM holds anything
        var peer = new Peer();
        peer.start();
        TwoHostControl.serve(TwoHostFabric.B, TwoHostControl.PORT, peer::command);
        System.out.println("peer: listening on " + TwoHostFabric.B + ":" + TwoHostFabric.PEER_PORT
                + ", commands on " + TwoHostControl.PORT);
        TwoHostFabric.announceReady();
        Path stop = TwoHostFabric.out().resolve("stop");
        long deadline = System.nanoTime() + Duration.ofSeconds(420).toNanos();
        while (!Files.exists(stop) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        System.out.println("peer: " + (Files.exists(stop) ? "asked to stop" : "deadline passed"));
        peer.stopAll();
        System.out.println("peer: closed");
    }

    /** The echo server and the child process, driven by commands (one at a time, control thread). */
    private static final class Peer {
        private final AtomicInteger accepted = new AtomicInteger();
        private final AtomicInteger failed = new AtomicInteger();
        private RdmaCm cm;
        private Process child;

        /** Completed when the echo server's listener hears DEVICE_REMOVAL (a new one per start). */
        private volatile CompletableFuture<Void> listenerRemoved = new CompletableFuture<>();

        /** Closes the echo server's RdmaCm (its dispatcher stops calling librdmacm); start() opens a new one. */
        private synchronized void closeCm() {
            cm.close();
            cm = null;
        }

        synchronized void start() {
            listenerRemoved = new CompletableFuture<>();
            var removed = listenerRemoved;
            cm = RdmaCm.open();
            RdmaListener l = cm.listen(TwoHostFabric.address(TwoHostFabric.B, TwoHostFabric.PEER_PORT),
                    ListenOptions.defaults().withKeepalive(KEEPALIVE), new RequestHandler() {
                        @Override
                        public void onRequest(ConnectionRequest r) {
                            r.accept(echo("peer", failed)).thenRun(accepted::incrementAndGet);
                        }

                        @Override
                        public void onDeviceRemoved(RdmaListener listener) {
                            System.out.println("peer: the listener heard DEVICE_REMOVAL");
                            removed.complete(null);
                        }
                    });
            System.out.println("peer: echo server " + l.localAddress());
        }

        synchronized String command(String line) {
            String[] w = line.split(" ", 2);
            try {
                return switch (w[0]) {
                    case "spawn" -> spawn(Integer.parseInt(w[1]));
                    case "kill" -> kill();
                    case "run" -> run(w[1]);
                    case "at-rest" -> atRest();
                    case "link-delete" -> watched("link-delete", () -> {
                        var steps = new java.util.ArrayList<String>();
                        double ms = DeviceRemoval.deleteRxe0Serialized(listenerRemoved, this::closeCm, step -> {
                            System.out.println("peer: link-delete: " + step);
                            steps.add(step);
                        });
                        return String.format(java.util.Locale.ROOT, "deleted in %.0f ms (%s)", ms,
                                String.join("; ", steps));
                    });
                    case "link-restore" -> watched("link-restore", () -> {
                        var steps = new java.util.ArrayList<String>();
                        DeviceRemoval.restoreRxe0(step -> {
                            System.out.println("peer: link-restore: " + step);
                            steps.add(step);
                        });
                        if (cm == null) {
                            start();   // the echo server again, on the new rxe0
                        }
                        return "restored (" + String.join("; ", steps) + ")";
                    });
                    default -> "error: unknown command '" + line + "'";
                };
            } catch (Exception e) {
                return "error: " + e;
            }
        }

        /** A step that may block in the kernel or in librdmacm. */
        private interface Step {
            String run() throws Exception;
        }

        /**
         * Runs {@code step}; if it has not finished after {@link #WATCHDOG}, prints what this
         * host is doing (every thread's Java stack, every task's kernel stack, the blocked tasks
         * from sysrq-w, dmesg, the RDMA devices) so a hang says where it is.
         */
        private static String watched(String what, Step step) throws Exception {
            long t0 = System.nanoTime();
            Thread caller = Thread.currentThread();
            var done = new java.util.concurrent.CountDownLatch(1);
            Thread.ofPlatform().daemon().name("watchdog-" + what).start(() -> {
                try {
                    if (!done.await(WATCHDOG.toMillis(), TimeUnit.MILLISECONDS)) {
                        System.out.println("peer: " + what + " has not finished after " + WATCHDOG.toSeconds()
                                + " s; where host b is:\n" + diagnostics(caller));
                    }
                } catch (InterruptedException ignored) {
                    // the JVM is ending
                }
            });
            try {
                String r = step.run();
                System.out.printf(java.util.Locale.ROOT, "peer: %s: %s (%.0f ms)%n", what, r,
                        (System.nanoTime() - t0) / 1e6);
                return r;
            } finally {
                done.countDown();
            }
        }

        private String spawn(int port) throws IOException, InterruptedException {
            if (child != null && child.isAlive()) {
                return "error: a child is already running";
            }
            List<String> cmd = new ArrayList<>(ChildJvm.java());
            cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    TwoHostPeer.class.getName(), "child", String.valueOf(port)));
            child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            var ready = new CompletableFuture<String>();
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            Thread.ofPlatform().daemon().name("child-output").start(() -> {
                try {
                    for (String l = out.readLine(); l != null; l = out.readLine()) {
                        System.out.println("child| " + l);
                        if (l.startsWith("child: ready ")) {
                            ready.complete(l.substring("child: ready ".length()));
                        }
                    }
                } catch (IOException ignored) {
                    // the child was killed
                }
                ready.complete("error: the child exited before it was ready");
            });
            try {
                // a cold JVM under TCG, next to another guest: generous, but bounded
                return "spawned " + ready.get(150, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                child.destroyForcibly();
                return "error: the child did not get ready within 150 s";
            }
        }

        private String kill() throws InterruptedException {
            if (child == null || !child.isAlive()) {
                return "error: no child is running";
            }
            long t0 = System.nanoTime();
            child.destroyForcibly();   // SIGKILL: no cleanup in the process; the kernel closes its files
            boolean gone = child.waitFor(10, TimeUnit.SECONDS);
            return gone ? String.format(java.util.Locale.ROOT, "killed in %.0f ms", (System.nanoTime() - t0) / 1e6)
                    : "error: the child outlived SIGKILL for 10 s";
        }

        private static String run(String shell) {
            var r = ExternalProcess.run(Duration.ofSeconds(60), "sh", "-c", shell);
            return "exit " + r.exitCode() + (r.timedOut() ? " (killed at 60 s)" : "") + ": " + r.output();
        }

        /** Closes the echo server, checks this host is at rest, listens again. */
        private String atRest() throws InterruptedException {
            // this host's side of a connection a just closed may still be tearing down: bounded wait
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (cm.statistics().liveIds() > 1 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            int live = cm.statistics().liveIds();
            stopAll();
            String leak = ResourcesAtRestExtension.awaitRest(ResourcesAtRestExtension.baseline(), Duration.ofSeconds(15));
            start();
            // live: ids left besides the listener when asked (connections the scenario should have ended)
            return (leak == null ? "at rest" : "NOT at rest: " + leak) + "; live connections before the check: "
                    + (live - 1) + "; accepted so far " + accepted.get() + ", failed " + failed.get();
        }

        synchronized void stopAll() {
            if (child != null) {
                child.destroyForcibly();
            }
            if (cm != null) {
                cm.close();
            }
        }
    }

    /** How long a device step may take before the watchdog prints where this host is. */
    static final Duration WATCHDOG = Duration.ofSeconds(40);

    /** Java stacks of this JVM, kernel stacks of its tasks, blocked tasks (sysrq-w), dmesg, RDMA devices. */
    static String diagnostics(Thread stuck) {
        var sb = new StringBuilder("--- the stuck thread (" + stuck.getName() + "):\n");
        for (StackTraceElement e : stuck.getStackTrace()) {
            sb.append("    at ").append(e).append('\n');
        }
        sb.append("--- other threads:\n");
        Thread.getAllStackTraces().forEach((t, st) -> {
            if (t != stuck && st.length > 0) {
                sb.append(t.getName()).append(" ").append(t.getState()).append('\n');
                for (int i = 0; i < Math.min(st.length, 12); i++) {
                    sb.append("    at ").append(st[i]).append('\n');
                }
            }
        });
        String shell = "for t in /proc/" + ProcessHandle.current().pid() + "/task/*; do "
                + "echo \"task $(basename $t) $(cat $t/comm) wchan=$(cat $t/wchan)\"; cat $t/stack 2>&1 | head -20; done; "
                + "echo '--- D-state tasks:'; ps -eo pid,stat,wchan:32,args | awk '$2 ~ /D/'; "
                + "for p in $(pgrep -x rdma); do echo \"rdma pid $p: $(cat /proc/$p/cmdline | tr '\\0' ' ')\"; cat /proc/$p/stack; done; "
                + "echo '--- native stacks of the threads in librdmacm/libibverbs (gdb):'; "
                + "timeout 90 gdb -p " + ProcessHandle.current().pid() + " -batch -ex 'set pagination off' "
                + "-ex 'thread apply all bt 14' 2>&1 | awk '/^Thread /{if (b ~ /rdma|ucma|ibv|verbs/) print b; b=\"\"} "
                + "{b=b $0 \"\\n\"} END{if (b ~ /rdma|ucma|ibv|verbs/) print b}'; "
                + "echo w > /proc/sysrq-trigger; echo '--- dmesg:'; dmesg | tail -n 120; "
                + "echo '--- rdma link:'; timeout 5 rdma link show; timeout 5 rdma res show; ip -br link";
        sb.append(ExternalProcess.run(Duration.ofSeconds(120), "sh", "-c", shell).output());
        return sb.toString();
    }

    /** Echoes every message; reports failures, async events and each connection's history when it ends. */
    static ConnectionHandler echo(String who, AtomicInteger failed) {
        return new ConnectionHandler() {
            @Override
            public void onMessage(RdmaConnection c, MemorySegment message) {
                c.send(message);
            }

            @Override
            public void onError(RdmaConnection c, RdmaCmException e) {
                failed.incrementAndGet();
                System.out.println(who + ": connection failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }

            @Override
            public void onDisconnected(RdmaConnection c) {
                System.out.println(who + ": peer disconnected " + c);
            }

            @Override
            public void onAsyncEvent(RdmaConnection c, AsyncEventType event) {
                System.out.println(who + ": async event " + event + " on " + c);
            }

            @Override
            public void onClosed(RdmaConnection c) {
                System.out.println(who + ": closed; history " + c.history());
            }
        };
    }

    /**
     * The child peer process: an echo server on 7600 and a client of role a's server on
     * {@code port} that sends {@link #CHILD_MESSAGES} checked messages; says {@code child: ready
     * acked=<n>} once they are acknowledged, then waits to be killed (at most 300 s).
     */
    private static void child(int port) throws Exception {
        var failed = new AtomicInteger();
        try (RdmaCm cm = RdmaCm.open()) {
            cm.listen(TwoHostFabric.address(TwoHostFabric.B, CHILD_PORT), ListenOptions.defaults().withKeepalive(KEEPALIVE),
                    r -> r.accept(echo("child", failed)));
            RdmaConnection c = cm.connect(TwoHostFabric.address(TwoHostFabric.A, port),
                    ConnectOptions.builder().keepalive(KEEPALIVE).build(), echo("child", failed))
                    .get(60, TimeUnit.SECONDS);
            var sender = new CheckedTraffic.Sender();
            sender.send(c, CHILD_MESSAGES, 512);
            for (CompletableFuture<Void> f : List.copyOf(sender.sends)) {
                f.get(30, TimeUnit.SECONDS);
            }
            System.out.println("child: ready acked=" + sender.acknowledged());
            Thread.sleep(Duration.ofSeconds(300));
        }
    }
}
