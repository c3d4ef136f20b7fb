package org.rdmacm4j.cm.core.internal.loop;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * Runs tasks one at a time, in submission order, on a shared executor: how the callbacks and
 * future completions of one connection stay ordered and never concurrent while different
 * connections run in parallel. Any thread may submit.
 */
public final class SerialExecutor implements Executor {
    private final Executor base;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean running;

    public SerialExecutor(Executor base) {
        this.base = base;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (queue) {
            queue.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        try {
            base.execute(this::drain);
        } catch (RuntimeException rejected) {
            // The executor is shut down (RdmaCm closing): run here rather than lose a completion.
            drain();
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (queue) {
                next = queue.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            next.run();   // tasks guard themselves (Callbacks.safely); a throw here would stall the queue
        }
    }
}
