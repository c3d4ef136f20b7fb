package org.rdmacm4j.it.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.PreInterruptCallback;
import org.junit.jupiter.api.extension.PreInterruptContext;

/**
 * When a test passes its deadline, prints the native stacks of this JVM's threads that are inside
 * librdmacm or libibverbs ({@code gdb -p} on this process, batch mode, bounded). JUnit's own thread
 * dump shows such a thread only as a downcall frame; what it waits on (librdmacm's global mutex,
 * a kernel call) is in the native frames below it. Needs gdb (the guest has the host's); without it
 * the callback says so and the timeout is reported as usual.
 */
public final class NativeStacksOnTimeout implements PreInterruptCallback {
    private static final Duration GDB_DEADLINE = Duration.ofSeconds(90);

    @Override
    public void beforeThreadInterrupt(PreInterruptContext context, ExtensionContext extension) {
        System.out.println("native stacks of the threads in librdmacm/libibverbs (" + extension.getDisplayName()
                + " passed its deadline):");
        System.out.println(of(ProcessHandle.current().pid()));
    }

    /** The blocks of {@code gdb -batch -ex 'thread apply all bt 16'} that name librdmacm or libibverbs. */
    static String of(long pid) {
        ExternalProcess.Result r;
        try {
            r = ExternalProcess.run(GDB_DEADLINE, "gdb", "-p", Long.toString(pid), "-batch", "-nx",
                    "-ex", "set pagination off", "-ex", "thread apply all bt 16");
        } catch (RuntimeException e) {
            return "  (no gdb: " + e.getMessage() + ")";
        }
        List<String> kept = new ArrayList<>();
        List<String> block = new ArrayList<>();
        for (String line : (r.output() + "\nThread end").split("\n")) {
            if (line.startsWith("Thread ")) {
                if (block.stream().anyMatch(l -> l.contains("librdmacm") || l.contains("libibverbs")
                        || l.contains("rdma_") || l.contains("ucma_") || l.contains("ibv_"))) {
                    kept.addAll(block);
                }
                block.clear();
            }
            block.add("  " + line);
        }
        return kept.isEmpty() ? "  (none; gdb exit " + r.exitCode() + (r.timedOut() ? ", timed out" : "") + ")"
                : String.join("\n", kept);
    }
}
