package org.rdmacm4j.cm.core.internal.loop;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;

/**
 * A base executor for a {@link SerialExecutor} under test: keeps what it is given in {@link #held},
 * so a test can see whether a drain was started, and runs it on the calling thread at {@link #runAll}.
 */
public final class HoldingExecutor implements Executor {
    public final ConcurrentLinkedQueue<Runnable> held = new ConcurrentLinkedQueue<>();

    @Override
    public void execute(Runnable r) {
        held.add(r);
    }

    /** Runs everything held, including what the runs give it, on this thread. */
    public void runAll() {
        for (Runnable r; (r = held.poll()) != null; ) {
            r.run();
        }
    }
}
