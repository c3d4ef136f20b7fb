package org.rdmacm4j.verbs.cm;

/**
 * A copy of one {@code struct rdma_cm_event}, taken before the event was acked: every field
 * (type, status, id, listen id, and the connection or UD parameters with their private data)
 * stays readable after the native event is gone.
 *
 * @param type the event
 * @param status 0, a negative errno (ADDR_ERROR -110 = ETIMEDOUT ...), or for REJECTED the IB
 *               CM reject reason (see {@link RejectReason})
 * @param id the id the event is for; for CONNECT_REQUEST a new id the caller now owns
 * @param listenId the listening id for CONNECT_REQUEST, else null
 * @param conn connection parameters of an RC id's CONNECT_REQUEST, CONNECT_RESPONSE, ESTABLISHED or
 *             REJECTED (the events that carry them), else null
 * @param ud UD parameters (UD ids), else null
 */
public record CmEvent(CmEventType type, int status, CmId id, CmId listenId, ConnParam conn, UdParam ud) {

    /** {@code rdma_event_str} for this event's type. */
    public String typeName() {
        return CmEventChannel.eventName(type);
    }

    /** The private data the peer sent with this event (empty if none). */
    public byte[] privateData() {
        if (conn != null) {
            return conn.privateData();
        }
        return ud != null ? ud.privateData() : new byte[0];
    }

    /** For REJECTED: the reject reason text; otherwise null. */
    public String rejectMessage() {
        return type == CmEventType.REJECTED ? RejectReason.message(status) : null;
    }
}
