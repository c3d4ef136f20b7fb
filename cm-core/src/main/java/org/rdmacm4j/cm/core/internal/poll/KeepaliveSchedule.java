package org.rdmacm4j.cm.core.internal.poll;

import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * The keepalives of one completion poller, in a heap by due time; the poller bounds its epoll wait
 * by the nearest one. No thread or timer object per connection, and nothing allocated per tick.
 * Cancelled keepalives stay in the heap until they surface (no O(n) removal at teardown).
 * Poller thread only.
 */
public final class KeepaliveSchedule {
    private final PriorityQueue<Keepalive> heap = new PriorityQueue<>(Comparator.comparingLong(k -> k.due));

    /** Schedules {@code k}'s first tick one period after {@code now}. */
    public void start(Keepalive k, long now) {
        k.due = now + k.periodNanos;
        heap.add(k);
    }

    /** Nanoseconds until the next tick (0 if one is due), or {@code max} if none is nearer. */
    public long nanosUntilNext(long now, long max) {
        Keepalive k;
        while ((k = heap.peek()) != null && k.cancelled) {
            heap.poll();
        }
        return k == null ? max : Math.max(0, Math.min(max, k.due - now));
    }

    /** Runs every tick due at {@code now}; each keepalive that stays scheduled is due a period later. */
    public void runDue(long now) {
        Keepalive k;
        while ((k = heap.peek()) != null && (k.cancelled || k.due <= now)) {
            heap.poll();
            if (k.cancelled || !k.tick()) {
                continue;
            }
            // A late poller does not make up missed ticks in a burst: the next one is a period away.
            long next = k.due + k.periodNanos;
            k.due = next > now ? next : now + k.periodNanos;
            heap.add(k);
        }
    }

    /** Keepalives in the heap, cancelled ones included (tests). */
    public int size() {
        return heap.size();
    }
}
