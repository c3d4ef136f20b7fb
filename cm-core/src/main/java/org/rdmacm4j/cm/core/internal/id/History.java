package org.rdmacm4j.cm.core.internal.id;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.rdmacm4j.cm.core.HistoryEntry;
import org.rdmacm4j.cm.statemachine.Input;

/**
 * A bounded record of an id's steps. Written by the dispatcher, read by any thread.
 *
 * <p>Every step of every id adds an entry on the dispatcher thread, and histories are read only
 * when something is reported (an error, a log line, {@code history()}). So a step stores what it
 * has (the time, the phase name, the input itself: immutable) in a ring of plain arrays, and the
 * {@link HistoryEntry} objects and input descriptions are made when a snapshot is taken.
 */
public final class History {
    /** First array size; the arrays double up to the capacity (most ids take a dozen steps or so). */
    private static final int INITIAL = 12;

    private final int capacity;
    private final long startNanos;
    private long[] elapsed;
    private String[] phases;
    /** An {@link Input} (described when read) or a String. */
    private Object[] causes;
    /** Index of the oldest entry; moves only once the arrays are at capacity and full. */
    private int head;
    private int size;

    public History(int capacity, long startNanos) {
        this.capacity = capacity;
        this.startNanos = startNanos;
        int n = Math.min(capacity, INITIAL);
        elapsed = new long[n];
        phases = new String[n];
        causes = new Object[n];
    }

    public synchronized void add(long nowNanos, String phase, String input) {
        append(nowNanos, phase, input);
    }

    public synchronized void add(long nowNanos, String phase, Input input) {
        append(nowNanos, phase, input);
    }

    private void append(long nowNanos, String phase, Object cause) {
        if (capacity == 0) {
            return;
        }
        if (size == elapsed.length && size < capacity) {   // not wrapped yet (head is 0): grow in place
            int n = Math.min(capacity, size * 2);
            elapsed = Arrays.copyOf(elapsed, n);
            phases = Arrays.copyOf(phases, n);
            causes = Arrays.copyOf(causes, n);
        }
        int slot;
        if (size == elapsed.length) {   // at capacity: overwrite the oldest
            slot = head;
            head = (head + 1) % elapsed.length;
        } else {
            slot = size++;
        }
        elapsed[slot] = nowNanos - startNanos;
        phases[slot] = phase;
        causes[slot] = cause;
    }

    public synchronized List<HistoryEntry> snapshot() {
        List<HistoryEntry> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            int slot = (head + i) % elapsed.length;
            Object cause = causes[slot];
            out.add(new HistoryEntry(elapsed[slot], phases[slot],
                    cause instanceof Input in ? Describe.input(in) : (String) cause));
        }
        return List.copyOf(out);
    }
}
