package org.rdmacm4j.cm.core;

import java.util.List;

/**
 * The one base type of every failure rdmacm4j reports: a connect or accept future that failed, an
 * error handed to a {@link ConnectionHandler}, a listener that could not be created. Each carries
 * the recent history of the rdma_cm_id it concerns (states and inputs, oldest first), also
 * appended to the message, so a failure report says how the id got there.
 *
 * <p>Cancellation is the one exception outside this hierarchy: {@code future.cancel(true)} makes a
 * {@link java.util.concurrent.CompletableFuture} fail with the JDK's
 * {@link java.util.concurrent.CancellationException}, as the future's contract requires.
 */
public class RdmaCmException extends RuntimeException {
    private final List<HistoryEntry> history;

    public RdmaCmException(String message, List<HistoryEntry> history) {
        this(message, history, null);
    }

    public RdmaCmException(String message, List<HistoryEntry> history, Throwable cause) {
        super(message + HistoryEntry.render(history), cause);
        this.history = List.copyOf(history);
    }

    /** The id's history up to the failure, oldest first (bounded). */
    public List<HistoryEntry> history() {
        return history;
    }
}
