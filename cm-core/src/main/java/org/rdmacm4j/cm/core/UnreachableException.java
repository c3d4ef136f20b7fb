package org.rdmacm4j.cm.core;

import java.util.List;

/** The peer did not answer the CM handshake (UNREACHABLE: REQ/REP timed out) or the network path to it went away. */
public class UnreachableException extends RdmaCmException {
    public UnreachableException(String message, List<HistoryEntry> history) {
        super(message, history);
    }

    public UnreachableException(String message, List<HistoryEntry> history, Throwable cause) {
        super(message, history, cause);
    }
}
