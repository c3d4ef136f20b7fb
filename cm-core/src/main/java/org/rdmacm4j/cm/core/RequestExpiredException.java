package org.rdmacm4j.cm.core;

import java.util.List;

/** A connection request can no longer be answered: the peer gave up before the application decided, or the decision deadline passed (the request was then rejected). */
public class RequestExpiredException extends RdmaCmException {
    public RequestExpiredException(String message, List<HistoryEntry> history) {
        super(message, history);
    }

    public RequestExpiredException(String message, List<HistoryEntry> history, Throwable cause) {
        super(message, history, cause);
    }
}
