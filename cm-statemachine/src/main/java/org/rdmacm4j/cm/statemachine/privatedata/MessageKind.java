package org.rdmacm4j.cm.statemachine.privatedata;

/**
 * The CM messages that carry private data, with the number of private-data bytes a consumer can
 * hand to librdmacm for each. Sources: {@code rdma_connect(3)} ("limited to 56 bytes for
 * RDMA_PS_TCP, or 180 bytes for RDMA_PS_UDP"), {@code rdma_accept(3)} ("196 bytes for RDMA_PS_TCP,
 * or 136 bytes for RDMA_PS_UDP") and the kernel's {@code include/rdma/ib_cm.h}
 * ({@code IB_CM_REQ_PRIVATE_DATA_SIZE} 92 minus the 36-byte rdma_cm header = 56,
 * {@code IB_CM_REP_PRIVATE_DATA_SIZE} 196, {@code IB_CM_REJ_PRIVATE_DATA_SIZE} 148,
 * {@code IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE} 216 minus 36 = 180, {@code IB_CM_SIDR_REP_PRIVATE_DATA_SIZE}
 * 136). ib_cm.h is a kernel header and not installed under /usr/include; the user-space
 * man pages above state the same numbers.
 *
 * <p>iWARP (MPA) would allow more in a request (rdma_cm adds no header there), but librdmacm's
 * {@code uint8_t private_data_len} caps every message at 255 and an application should not have to
 * know which transport it runs on, so iWARP uses the same limits: a payload that fits fits
 * everywhere. DREQ (52 bytes on the wire) is absent on purpose: {@code rdma_disconnect} takes no
 * private data.
 */
public enum MessageKind {
    /** RC connect request (IB CM REQ), RDMA_PS_TCP. */
    CONNECT_REQUEST(56),
    /** RC accept (IB CM REP), RDMA_PS_TCP. */
    ACCEPT(196),
    /** RC or UD reject (IB CM REJ). */
    REJECT(148),
    /** UD service ID resolution request (IB CM SIDR_REQ), RDMA_PS_UDP. */
    SIDR_REQUEST(180),
    /** UD service ID resolution reply (IB CM SIDR_REP), RDMA_PS_UDP. */
    SIDR_REPLY(136);

    private final int wireLimit;

    MessageKind(int wireLimit) {
        this.wireLimit = wireLimit;
    }

    /** Bytes librdmacm accepts for this message (header included). */
    public int wireLimit() {
        return wireLimit;
    }

    /** Bytes left for the application after the {@link PrivateData#HEADER_BYTES}-byte header. */
    public int usableBytes() {
        return wireLimit - PrivateData.HEADER_BYTES;
    }
}
