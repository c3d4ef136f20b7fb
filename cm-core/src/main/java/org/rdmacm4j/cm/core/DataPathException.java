package org.rdmacm4j.cm.core;

import java.util.List;

/**
 * A data operation failed: a work completion with an error status (named, e.g.
 * {@code IBV_WC_RETRY_EXC_ERR} when the peer died), a send queue that is full, or the connection
 * closing under a pending operation. A failed completion also fails the connection.
 */
public class DataPathException extends RdmaCmException {
    private final String completionStatus;

    public DataPathException(String message, String completionStatus, List<HistoryEntry> history) {
        super(message, history);
        this.completionStatus = completionStatus;
    }

    /** The work completion status ({@code "IBV_WC_..."}), or null when no completion failed. */
    public String completionStatus() {
        return completionStatus;
    }
}
