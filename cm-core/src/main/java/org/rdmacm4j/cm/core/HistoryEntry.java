package org.rdmacm4j.cm.core;

import java.util.List;

/**
 * One step of an rdma_cm_id's life: when (nanoseconds since the id was created), the phase its
 * state machine was in afterwards, and the input that caused the step.
 */
public record HistoryEntry(long elapsedNanos, String phase, String input) {

    @Override
    public String toString() {
        return String.format("+%.3f ms %s <- %s", elapsedNanos / 1e6, phase, input);
    }

    static String render(List<HistoryEntry> history) {
        if (history == null || history.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("\n  history of the id (oldest first):");
        for (HistoryEntry e : history) {
            sb.append("\n    ").append(e);
        }
        return sb.toString();
    }
}
