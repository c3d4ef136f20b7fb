package org.rdmacm4j.cm.core;

import java.util.List;

/**
 * The peer stopped answering at the transport level: a keepalive probe stayed unanswered for the
 * configured number of periods ({@link KeepaliveOptions}; {@link #completionStatus()} is null), or
 * the queue pair exhausted its retries on some work request ({@code IBV_WC_RETRY_EXC_ERR}). The
 * peer's host died, the link is cut, or its device is gone; the connection is being torn down.
 */
public class PeerUnresponsiveException extends DataPathException {
    public PeerUnresponsiveException(String message, String completionStatus, List<HistoryEntry> history) {
        super(message, completionStatus, history);
    }
}
