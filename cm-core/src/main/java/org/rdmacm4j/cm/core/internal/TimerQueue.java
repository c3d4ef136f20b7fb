package org.rdmacm4j.cm.core.internal;

import java.util.PriorityQueue;
import org.rdmacm4j.cm.statemachine.TimerKind;

/**
 * The dispatcher's timers: a heap ordered by deadline, read by the dispatcher loop to bound its
 * epoll wait. No thread per timer. Cancelled entries stay in the heap, marked, until they surface.
 * Dispatcher thread only.
 */
final class TimerQueue {
    record Expiry(IdDriver driver, TimerKind kind, long generation) { }

    /** One armed timer; also held in its driver's {@link IdDriver#armedTimers} slot until it fires or is cancelled. */
    static final class Entry implements Comparable<Entry> {
        final long deadline;
        final long order;
        final IdDriver driver;
        final TimerKind kind;
        final long generation;
        boolean cancelled;

        Entry(long deadline, long order, IdDriver driver, TimerKind kind, long generation) {
            this.deadline = deadline;
            this.order = order;
            this.driver = driver;
            this.kind = kind;
            this.generation = generation;
        }

        @Override
        public int compareTo(Entry o) {
            int c = Long.compare(deadline, o.deadline);
            return c != 0 ? c : Long.compare(order, o.order);
        }
    }

    /** A task of the dispatcher's own (a multicast re-join after its backoff), not a machine's timer. */
    private record Task(long deadline, long order, Runnable work) implements Comparable<Task> {
        @Override
        public int compareTo(Task o) {
            int c = Long.compare(deadline, o.deadline);
            return c != 0 ? c : Long.compare(order, o.order);
        }
    }

    private final PriorityQueue<Entry> heap = new PriorityQueue<>();
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private static final int KINDS = TimerKind.values().length;
    private long order;

    // Each driver's armed entries live in a slot array on the driver (one per TimerKind, made once):
    // arming and cancelling run several times per connection and allocate nothing but the entry.

    void arm(IdDriver d, TimerKind kind, long generation, long deadlineNanos) {
        Entry[] slots = d.armedTimers;
        if (slots == null) {
            slots = d.armedTimers = new Entry[KINDS];
        }
        Entry old = slots[kind.ordinal()];
        if (old != null) {
            old.cancelled = true;
        }
        Entry e = new Entry(deadlineNanos, order++, d, kind, generation);
        slots[kind.ordinal()] = e;
        heap.add(e);
    }

    void cancel(IdDriver d, TimerKind kind) {
        Entry[] slots = d.armedTimers;
        if (slots == null) {
            return;
        }
        Entry e = slots[kind.ordinal()];
        if (e != null) {
            e.cancelled = true;
            slots[kind.ordinal()] = null;
        }
    }

    void cancelAll(IdDriver d) {
        Entry[] slots = d.armedTimers;
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
    void runAt(long deadlineNanos, Runnable work) {
        tasks.add(new Task(deadlineNanos, order++, work));
    }

    /** Nanoseconds until the next live deadline (0 if one is due), or {@code max} if none is nearer. */
    long nanosUntilNext(long now, long max) {
        Entry e;
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
    Runnable pollDueTask(long now) {
        Task t = tasks.peek();
        if (t == null || t.deadline > now) {
            return null;
        }
        tasks.poll();
        return t.work;
    }

    /** Removes and returns the next expiry due at {@code now}, or null. */
    Expiry pollDue(long now) {
        Entry e;
        while ((e = heap.peek()) != null && (e.cancelled || e.deadline <= now)) {
            heap.poll();
            if (!e.cancelled) {
                cancel(e.driver, e.kind);
                return new Expiry(e.driver, e.kind, e.generation);
            }
        }
        return null;
    }
}
