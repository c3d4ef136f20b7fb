package org.rdmacm4j.cm.core.internal.loop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * The loop's queue of work: any thread offers, only the loop thread takes; closed once, after which
 * every offer is refused. Lock-free, so that neither side ever holds a monitor.
 *
 * <p>Why not a monitor: the queue is shared by the application's threads and the loop thread, so
 * its monitor was inflated for good, and under C1 (the launchers' JIT) every enter of an inflated
 * monitor is a call into the VM. A warm connection took the old queue lock a dozen times (every
 * poll, every check before a wait, every caller's submit), about 12,000 user instructions of its
 * ~250,000 (docs/benchmarks.md, "s34-mon"). Here a producer pays one CAS, the loop thread none.
 *
 * <p>The shape: a linked list of {@link Task} nodes whose last node is {@link #tail} (producers
 * swing it with a CAS and then link the old tail to the new node) and whose first is the node
 * after {@link #head} (the last node taken, or the initial stub; loop thread only). Between a
 * producer's CAS and its link the queue is not empty (the tail moved) although the node cannot be
 * reached yet; {@link #poll} then waits for the link, yielding, since the producer may have been
 * switched out in those two instructions (in a one-vCPU guest it cannot run while the loop spins).
 *
 * <p>Closing swings the tail to {@link #CLOSED}, a node no offer can link after, so an offer either
 * landed before the close (and the loop's final drain reaches it) or is refused: nothing queued is
 * ever stranded, which the lock used to guarantee.
 *
 * <p>Threads: {@link #offer} any thread; everything else the loop thread.
 */
final class TaskQueue {
    /**
     * A queued unit of work, the future that must fail if it can never run, and the link. Either a
     * wrapper of a Runnable, or the work itself ({@link EventLoop.QueuedWork}: no wrapper per queued task).
     */
    static class Task {
        private Runnable work;                     // cleared once taken: the stub must not hold it
        /** Set by the thread that offers it, before the offer's CAS; read by the loop thread after it. */
        private CompletableFuture<?> owner;
        private volatile Task next;

        Task(Runnable work, CompletableFuture<?> owner) {
            this.work = work;
            this.owner = owner;
        }

        /** A node that is its own work ({@link EventLoop.QueuedWork}); its owner is set when it is queued. */
        Task() {
            this.work = (Runnable) this;
        }

        void owner(CompletableFuture<?> owner) {
            this.owner = owner;
        }

        CompletableFuture<?> owner() {
            return owner;
        }
    }

    private static final VarHandle TAIL;
    private static final VarHandle NEXT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAIL = lookup.findVarHandle(TaskQueue.class, "tail", Task.class);
            NEXT = lookup.findVarHandle(Task.class, "next", Task.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The tail of every closed queue: an offer that finds it is refused. */
    private static final Task CLOSED = new Task(null, null);

    @SuppressWarnings("unused")   // written through TAIL
    private volatile Task tail;
    /** The last node taken (at first a stub). Loop thread. */
    private Task head;
    /** The last node offered before {@link #close}, null while open. Loop thread. */
    private Task lastBeforeClose;

    TaskQueue() {
        Task stub = new Task(null, null);
        head = stub;
        tail = stub;
    }

    /** Queues {@code task}, or returns false if the queue is closed. Any thread. */
    boolean offer(Task task) {
        while (true) {
            Task last = tail;
            if (last == CLOSED) {
                return false;
            }
            if (TAIL.compareAndSet(this, last, task)) {
                NEXT.setRelease(last, task);
                return true;
            }
        }
    }

    /**
     * Whether an offer has landed that {@link #poll} has not taken, possibly not linked yet. Loop
     * thread. A volatile read of the tail: the loop's check before it sleeps relies on it (see
     * {@code EventLoop.sleeping}).
     */
    boolean hasWork() {
        Task last = tail;
        return last != head && (last != CLOSED || lastBeforeClose != head);
    }

    /** Takes the oldest task's work, or null if there is none. Loop thread. */
    Task poll() {
        Task first = head;
        Task next = first.next;
        if (next == null) {
            if (!hasWork()) {
                return null;
            }
            // Offered but not linked yet: the producer is between its CAS and its link.
            while ((next = first.next) == null) {
                Thread.yield();
            }
        }
        head = next;
        // Unlink the node given up (its producer linked it, so nobody writes it again): a dead node
        // promoted to the old generation would otherwise keep every later node reachable from it
        // through young collections, and promote them too (the nepotism LinkedBlockingQueue's
        // dequeue guards against the same way).
        first.next = null;
        return next;
    }

    /** Runs and forgets a task that {@link #poll} returned. Loop thread. */
    static void run(Task task) {
        Runnable work = task.work;
        task.work = null;   // it is the stub now, until the next poll
        work.run();
    }

    /** Refuses every later offer; what was offered before stays to be polled. Loop thread; idempotent. */
    void close() {
        if (lastBeforeClose == null) {
            lastBeforeClose = (Task) TAIL.getAndSet(this, CLOSED);
        }
    }
}
