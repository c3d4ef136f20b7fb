package org.rdmacm4j.cm.core.internal.nativeport;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rdmacm4j.verbs.Rdma;

/**
 * Links the native functions of a connection's life (setup and teardown), on a background thread,
 * once per process ({@link Rdma#linkConnectionPath()}), so that the process's first connection and
 * its close do not link them on the dispatcher.
 *
 * <p>Why: JDK 25 links a downcall on its first use, and its AOT cache cannot keep the result; each
 * new function signature spins a native stub and about ten lambda-form classes. A first connection
 * reaches about ten signatures, and linking them was about half of it even with the build's AOT
 * cache (docs/benchmarks.md, "The cold first connection, split"). Linked while the application
 * opens, listens or does its own start-up, on a core the dispatcher is not using, they cost the
 * connection nothing. Where no core is free (two busy vCPUs) the work only moves: the same classes
 * are spun once either way, because a thread that needs a function being linked waits for it
 * (class initialisation) instead of linking it again.
 *
 * <p>Threads: {@link #startOnce} from any thread; the linker is a daemon platform thread named
 * {@code rdmacm4j-prelink} that touches no state of any RdmaCm, and ends when the list is linked.
 */
final class Prelinker {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    /** What the linker did, once it is done (for its test and a debugger): "linked N" or "stopped: why". */
    private static volatile String outcome;

    private Prelinker() { }

    /**
     * Starts the linker unless this process has started it already; returns it, or null if it had.
     * Once it has linked, the thread runs {@code then} (the RdmaCm's warm-up), unless null.
     */
    static Thread startOnce(Runnable then) {
        if (!STARTED.compareAndSet(false, true)) {
            return null;
        }
        return Thread.ofPlatform().daemon().name("rdmacm4j-prelink").start(new Linker(then));
    }

    /** What the linker did ("linked N": N functions of this process linked when it ended), or null while it runs. */
    static String outcome() {
        return outcome;
    }

    /** The linker's body (a class, not a lambda: a lambda's call site is linked at its first run). */
    private static final class Linker implements Runnable {
        private final Runnable then;

        Linker(Runnable then) {
            this.then = then;
        }

        @Override
        public void run() {
            try {
                outcome = "linked " + Rdma.linkConnectionPath();
            } catch (RuntimeException | LinkageError e) {
                // The call that needs the function fails the same way, in its own context, with its
                // own error: nothing here is the application's to see.
                outcome = "stopped: " + e;
                LOG.log(Level.DEBUG, "prelink stopped: " + e, e);
                return;
            }
            if (then != null) {
                then.run();
            }
        }
    }
}
