package org.rdmacm4j.cm.core.internal.loop;

import java.util.PriorityQueue;
import org.rdmacm4j.cm.statemachine.TimerKind;

/**
 * The dispatcher's timers: a heap ordered by deadline, read by the dispatcher loop to bound its
 * epoll wait. No thread per timer. Cancelled entries stay in the heap, marked, until they surface.
 * Generic over its owner ({@link TimerOwner}: one rdma_cm_id's driver) so that the loop knows
 * nothing of what it times. Dispatcher thread only.
 */
public final class TimerQueue<O extends TimerOwner> {
    /** A machine timer that fell due: its owner, kind and the generation it was armed with. */
    public record Expiry<O>(O owner, TimerKind kind, long generation) { }

    /** A task of the dispatcher's own (a multicast re-join after its backoff), not a machine's timer. */
    private record Task(long deadline, long order, Runnable work) implements Comparable<Task> {
        @Override
        public int compareTo(Task o) {
            int c = Long.compare(deadline, o.deadline);
            return c != 0 ? c : Long.compare(order, o.order);
        }
    }

    private final PriorityQueue<TimerEntry> heap = new PriorityQueue<>();
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private static final int KINDS = TimerKind.values().length;
    private long order;

    // Each driver's armed entries live in a slot array on the driver (one per TimerKind, made once):
    // arming and cancelling run several times per connection and allocate nothing but the entry.

    public void arm(O d, TimerKind kind, long generation, long deadlineNanos) {
        TimerEntry[] slots = d.armedTimers;
        if (slots == null) {
            slots = d.armedTimers = new TimerEntry[KINDS];
        }
        TimerEntry old = slots[kind.ordinal()];
        if (old != null) {
            old.cancelled = true;
        }
        TimerEntry e = new TimerEntry(deadlineNanos, order++, d, kind, generation);
        slots[kind.ordinal()] = e;
        heap.add(e);
    }

    public void cancel(O d, TimerKind kind) {
        TimerEntry[] slots = d.armedTimers;
        if (slots == null) {
            return;
        }
        TimerEntry e = slots[kind.ordinal()];
        if (e != null) {
            e.cancelled = true;
            slots[kind.ordinal()] = null;
        }
    }

    public void cancelAll(O d) {
        TimerEntry[] slots = d.armedTimers;
        if (slots == null) {
            return;
        }
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != null) {
                slots[i].cancelled = true;
                slots[i] = null;
            }
        }
    }

    /** Runs {@code work} on the dispatcher once {@code deadlineNanos} has passed ({@link #pollDueTask}). */
    public void runAt(long deadlineNanos, Runnable work) {
        tasks.add(new Task(deadlineNanos, order++, work));
    }

    /** Nanoseconds until the next live deadline (0 if one is due), or {@code max} if none is nearer. */
    public long nanosUntilNext(long now, long max) {
        TimerEntry e;
        while ((e = heap.peek()) != null && e.cancelled) {
            heap.poll();
        }
        long next = max;
        if (e != null) {
            next = Math.max(0, Math.min(next, e.deadline - now));
        }
        Task t = tasks.peek();
        if (t != null) {
            next = Math.max(0, Math.min(next, t.deadline - now));
        }
        return next;
    }

    /** Removes and returns the next task due at {@code now}, or null. */
    public Runnable pollDueTask(long now) {
        Task t = tasks.peek();
        if (t == null || t.deadline > now) {
            return null;
        }
        tasks.poll();
        return t.work;
    }

    /** Removes and returns the next expiry due at {@code now}, or null. */
    @SuppressWarnings("unchecked")
    public Expiry<O> pollDue(long now) {
        TimerEntry e;
        while ((e = heap.peek()) != null && (e.cancelled || e.deadline <= now)) {
            heap.poll();
            if (!e.cancelled) {
                O owner = (O) e.owner;
                cancel(owner, e.kind);
                return new Expiry<>(owner, e.kind, e.generation);
            }
        }
        return null;
    }
}
