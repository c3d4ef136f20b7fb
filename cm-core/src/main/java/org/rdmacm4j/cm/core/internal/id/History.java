package org.rdmacm4j.cm.core.internal.id;

import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;
import org.rdmacm4j.cm.core.HistoryEntry;
import org.rdmacm4j.cm.statemachine.Input;

/**
 * A bounded record of an id's steps. Written by the dispatcher only, read by any thread.
 *
 * <p>Every step of every id adds an entry on the dispatcher thread, and histories are read only
 * when something is reported (an error, a log line, {@code history()}). So a step stores what it
 * has (the time, the phase name, the input itself: immutable) in a ring of plain arrays, and the
 * {@link HistoryEntry} objects and input descriptions are made when a snapshot is taken.
 *
 * <p>Why no lock (issue 21): {@code add} used to be {@code synchronized}, a CAS pair on every step
 * of every id for readers that almost never come. The one writer now publishes each entry by a
 * single volatile write of {@link #count} (entries ever added), after the entry's slot is
 * written; a reader copies the last entries below the count it read and keeps the copy only if the
 * count has not moved meanwhile (an optimistic read, as StampedLock's: an acquire fence, then the
 * count again), else it copies again. The ring has one slot more than the capacity, so the one
 * entry the writer may be writing, unpublished, while a reader copies never lands on an entry that
 * reader copies: only a published entry moves the count. The arrays grow (doubling, from
 * {@link #INITIAL}) only before the ring wraps, when every entry is still at its own index, so a
 * reader holding an older or newer generation of them reads the same slots; they are volatile
 * fields so that a reader that sees a new generation sees its copied contents (written rarely;
 * read on x86 as plain loads).
 *
 * <p>Phase and cause share one array (two slots per entry): one allocation less per id.
 */
public final class History {
    /** First ring length; it doubles up to capacity + 1 (most ids take a dozen steps or so). */
    private static final int INITIAL = 12;

    private final int capacity;
    /** The ring's final length: one slot beyond the capacity for the entry being written. */
    private final int ringLength;
    private final long startNanos;
    /** Nanoseconds since {@link #startNanos}, per slot; null when the capacity is 0. */
    private volatile long[] elapsed;
    /** Per slot {@code i}: the phase name at {@code 2i}, the cause at {@code 2i + 1} (an {@link Input}, described when read, or a String). */
    private volatile Object[] steps;
    /** The slot the next entry goes to. The writer's only. */
    private int next;
    /** Entries ever added: entry {@code k} is in slot {@code k % ring length}. Written by the writer only. */
    private volatile long count;

    public History(int capacity, long startNanos) {
        this.capacity = capacity;
        this.ringLength = capacity + 1;
        this.startNanos = startNanos;
        if (capacity > 0) {
            int n = Math.min(ringLength, INITIAL);
            elapsed = new long[n];
            steps = new Object[2 * n];
        }
    }

    /** Dispatcher thread only (the one writer). */
    public void add(long nowNanos, String phase, String input) {
        append(nowNanos, phase, input);
    }

    /** Dispatcher thread only (the one writer). */
    public void add(long nowNanos, String phase, Input input) {
        append(nowNanos, phase, input);
    }

    private void append(long nowNanos, String phase, Object cause) {
        long[] el = elapsed;
        if (el == null) {   // capacity 0
            return;
        }
        Object[] st = steps;
        int slot = next;
        if (slot == el.length) {
            if (slot < ringLength) {   // not wrapped yet: every entry is at its own index, grow in place
                int n = Math.min(ringLength, slot * 2);
                el = Arrays.copyOf(el, n);
                st = Arrays.copyOf(st, 2 * n);
                steps = st;
                elapsed = el;
            } else {
                slot = 0;   // wrapped: overwrite the oldest (never one a reader copies, see the class comment)
            }
        }
        el[slot] = nowNanos - startNanos;
        st[2 * slot] = phase;
        st[2 * slot + 1] = cause;
        next = slot + 1;
        count = count + 1;   // publishes the entry: the one volatile write of a step
    }

    /** The entries, oldest first. Any thread; never blocks the writer. */
    public List<HistoryEntry> snapshot() {
        long[] times;
        Object[] copied;
        int n;
        for (;;) {
            long c = count;
            long[] el = elapsed;
            Object[] st = steps;
            if (el == null) {
                return List.of();
            }
            n = (int) Math.min(c, capacity);
            times = new long[n];
            copied = new Object[2 * n];
            for (int i = 0; i < n; i++) {
                int slot = (int) ((c - n + i) % el.length);
                times[i] = el[slot];
                copied[2 * i] = st[2 * slot];
                copied[2 * i + 1] = st[2 * slot + 1];
            }
            VarHandle.acquireFence();   // the copies above are read before the count below
            if (count == c) {
                break;   // nothing was added meanwhile: no slot copied was overwritten
            }
        }
        HistoryEntry[] out = new HistoryEntry[n];
        for (int i = 0; i < n; i++) {
            Object cause = copied[2 * i + 1];
            out[i] = new HistoryEntry(times[i], (String) copied[2 * i],
                    cause instanceof Input in ? Describe.input(in) : (String) cause);
        }
        return List.of(out);
    }
}
