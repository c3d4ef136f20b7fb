package org.rdmacm4j.cm.core;

import java.util.List;

/**
 * The peer (or the fabric on its behalf) refused the connection. {@link #reason()} says why;
 * for {@link Reason#CONSUMER} {@link #peerData()} is exactly what the peer's application passed to
 * its reject.
 */
public class ConnectionRejectedException extends RdmaCmException {

    /** Why a connection was refused. */
    public enum Reason {
        /** The peer's application rejected; its bytes are in {@link #peerData()}. */
        CONSUMER,
        /** Nobody listens on that address and port (IB CM reject 8, iWARP connection refused). */
        NO_LISTENER,
        /** The passive side still holds state of an earlier connection with this QPN (IB CM reject 10). */
        STALE_CONNECTION,
        /** The peer is an rdmacm4j listener with too many undecided requests: retry later. */
        BUSY,
        /** The peer's rdmacm4j library refused for a reason of its own (see the message). */
        REFUSED,
        /** The CM handshake timed out at the peer (IB CM reject 4). */
        TIMEOUT,
        /** Any other reject status (see the message). */
        OTHER
    }

    private final Reason reason;
    private final byte[] peerData;

    public ConnectionRejectedException(Reason reason, byte[] peerData, String message, List<HistoryEntry> history) {
        super(message, history);
        this.reason = reason;
        this.peerData = peerData.clone();
    }

    public Reason reason() {
        return reason;
    }

    /** What the peer sent with its reject (empty if nothing); a copy. */
    public byte[] peerData() {
        return peerData.clone();
    }
}
