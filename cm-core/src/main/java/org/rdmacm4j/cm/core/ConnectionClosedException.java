package org.rdmacm4j.cm.core;

import java.util.List;

/** The id was closed or aborted (locally, or because its RdmaCm closed) before the operation finished, or the operation was asked of a closed object. */
public class ConnectionClosedException extends RdmaCmException {
    public ConnectionClosedException(String message, List<HistoryEntry> history) {
        super(message, history);
    }

    public ConnectionClosedException(String message, List<HistoryEntry> history, Throwable cause) {
        super(message, history, cause);
    }
}
