package org.rdmacm4j.cm.core;

import java.util.List;

/** The connection failed for a reason that has no narrower type: a CONNECT_ERROR, a failed native call (with its errno), a QP error event, a broken dispatcher. */
public class ConnectionFailedException extends RdmaCmException {
    public ConnectionFailedException(String message, List<HistoryEntry> history) {
        super(message, history);
    }

    public ConnectionFailedException(String message, List<HistoryEntry> history, Throwable cause) {
        super(message, history, cause);
    }
}
