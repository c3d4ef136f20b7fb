package org.rdmacm4j.cm.core;

import java.util.List;

/** The whole connect (or accept) did not finish within its deadline; everything it created has been freed. */
public class ConnectTimeoutException extends RdmaCmException {
    public ConnectTimeoutException(String message, List<HistoryEntry> history) {
        super(message, history);
    }

    public ConnectTimeoutException(String message, List<HistoryEntry> history, Throwable cause) {
        super(message, history, cause);
    }
}
