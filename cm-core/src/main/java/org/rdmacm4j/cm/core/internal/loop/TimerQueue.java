package org.rdmacm4j.cm.core.internal.loop;

import java.util.Arrays;
import java.util.PriorityQueue;
import org.rdmacm4j.cm.statemachine.TimerKind;

/**
 * The dispatcher's timers: a heap ordered by deadline, read by the dispatcher loop to bound its
 * epoll wait. No thread per timer.
 *
 * <p>The heap is an array of {@link TimerEntry}s that know their index, so a cancel takes its entry
 * out at once. It used to be a {@code PriorityQueue} where cancelled entries stayed, marked, until
 * their deadline surfaced: every connection cancels a timer of tens of seconds (its connect or
 * teardown deadline), so the heap held every connection of the last such period, each keeping its
 * dead driver reachable through young collections, and every arm sifted through ~log2 of them with
 * a cast to {@code Comparable} and an interface call per level (under C1 the cast is a call to the
 * slow subtype-check stub). Now the heap holds the live timers only, a few per open connection.
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

    private TimerEntry[] heap = new TimerEntry[64];
    private int size;
    /**
     * Entries out of the heap and out of every owner's list, kept to arm the next timers with: a connection
     * arms and cancels several timers, each an entry made and dropped. Bounded by {@link #MAX_SPARES}.
     */
    private TimerEntry spares;
    private int spareCount;
    private static final int MAX_SPARES = 256;
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private long order;

    // Each driver's armed entries are a short list on the driver (TimerOwner.armed, at most one per
    // kind): arming and cancelling run several times per connection and allocate nothing once the
    // free list has spares (an entry re-armed for its kind is reused in place).

    public void arm(O d, TimerKind kind, long generation, long deadlineNanos) {
        TimerEntry e = armedOf(d, kind);
        if (e != null) {
            drop(e);   // re-armed: the same entry, out of the heap, armed anew
        } else {
            e = takeSpare();
            e.nextArmed = d.armed;
            d.armed = e;
        }
        e.set(deadlineNanos, order++, d, kind, generation);
        add(e);
    }

    public void cancel(O d, TimerKind kind) {
        TimerEntry prev = null;
        for (TimerEntry e = d.armed; e != null; prev = e, e = e.nextArmed) {
            if (e.kind == kind) {
                if (prev == null) {
                    d.armed = e.nextArmed;
                } else {
                    prev.nextArmed = e.nextArmed;
                }
                drop(e);
                giveBack(e);
                return;
            }
        }
    }

    public void cancelAll(O d) {
        TimerEntry e = d.armed;
        d.armed = null;
        while (e != null) {
            TimerEntry next = e.nextArmed;
            drop(e);
            giveBack(e);
            e = next;
        }
    }

    /** {@code d}'s armed entry of {@code kind}, or null. */
    private static TimerEntry armedOf(TimerOwner d, TimerKind kind) {
        for (TimerEntry e = d.armed; e != null; e = e.nextArmed) {
            if (e.kind == kind) {
                return e;
            }
        }
        return null;
    }

    private TimerEntry takeSpare() {
        TimerEntry e = spares;
        if (e == null) {
            return new TimerEntry();
        }
        spares = e.nextFree;
        e.nextFree = null;
        spareCount--;
        return e;
    }

    /** Keeps {@code e}, out of the heap and of its owner's list (so nothing else refers to it), for a later arm. */
    private void giveBack(TimerEntry e) {
        e.owner = null;
        e.nextArmed = null;
        if (spareCount < MAX_SPARES) {
            e.nextFree = spares;
            spares = e;
            spareCount++;
        }
    }

    /** Runs {@code work} on the dispatcher once {@code deadlineNanos} has passed ({@link #pollDueTask}). */
    public void runAt(long deadlineNanos, Runnable work) {
        tasks.add(new Task(deadlineNanos, order++, work));
    }

    /** Nanoseconds until the next live deadline (0 if one is due), or {@code max} if none is nearer. */
    public long nanosUntilNext(long now, long max) {
        long next = max;
        if (size > 0) {
            next = Math.max(0, Math.min(next, heap[0].deadline - now));
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
        if (size == 0 || heap[0].deadline - now > 0) {
            return null;
        }
        TimerEntry e = heap[0];
        O owner = (O) e.owner;
        TimerKind kind = e.kind;
        long generation = e.generation;
        cancel(owner, kind);   // an entry in the heap is in its owner's list: out of both (and spare now)
        return new Expiry<>(owner, kind, generation);
    }

    /** How many timers are armed (tests). */
    int size() {
        return size;
    }

    // ------------------------------------------------------------------ the heap

    private void add(TimerEntry e) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        heap[size] = e;
        e.index = size;
        siftUp(size++);
    }

    /** Takes {@code e} out of the heap (idempotent: an entry out of the heap has index -1). */
    private void drop(TimerEntry e) {
        int i = e.index;
        if (i < 0) {
            return;
        }
        e.index = -1;
        TimerEntry last = heap[--size];
        heap[size] = null;
        if (i < size) {   // the last entry fills the hole, then moves whichever way it must
            heap[i] = last;
            last.index = i;
            siftDown(i);
            if (heap[i] == last) {
                siftUp(i);
            }
        }
    }

    private void siftUp(int i) {
        TimerEntry e = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            TimerEntry p = heap[parent];
            if (!e.before(p)) {
                break;
            }
            heap[i] = p;
            p.index = i;
            i = parent;
        }
        heap[i] = e;
        e.index = i;
    }

    private void siftDown(int i) {
        TimerEntry e = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            TimerEntry c = heap[child];
            int right = child + 1;
            if (right < size && heap[right].before(c)) {
                child = right;
                c = heap[child];
            }
            if (!c.before(e)) {
                break;
            }
            heap[i] = c;
            c.index = i;
            i = child;
        }
        heap[i] = e;
        e.index = i;
    }
}
