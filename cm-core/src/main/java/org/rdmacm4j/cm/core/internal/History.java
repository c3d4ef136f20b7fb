package org.rdmacm4j.cm.core.internal;

import java.util.ArrayDeque;
import java.util.List;
import org.rdmacm4j.cm.core.HistoryEntry;

/** A bounded record of an id's steps. Written by the dispatcher, read by any thread. */
final class History {
    private final ArrayDeque<HistoryEntry> entries = new ArrayDeque<>();
    private final int capacity;
    private final long startNanos;

    History(int capacity, long startNanos) {
        this.capacity = capacity;
        this.startNanos = startNanos;
    }

    synchronized void add(long nowNanos, String phase, String input) {
        if (capacity == 0) {
            return;
        }
        if (entries.size() == capacity) {
            entries.removeFirst();
        }
        entries.addLast(new HistoryEntry(nowNanos - startNanos, phase, input));
    }

    synchronized List<HistoryEntry> snapshot() {
        return List.copyOf(entries);
    }
}
