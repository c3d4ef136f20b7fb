package org.rdmacm4j.cm.core.internal.poll;

import static com.google.common.base.Preconditions.checkArgument;

import org.rdmacm4j.verbs.ibv.WcStatus;

/**
 * What a failed work completion of the message channel means. Pure: host-tested.
 *
 * <p>A flush ({@code IBV_WC_WR_FLUSH_ERR}) only says that the QP is in the error state. rdmacm4j
 * moves a QP there on purpose in exactly two places, both on the dispatcher and both after the
 * machine has left ESTABLISHED: {@code rdma_disconnect} (librdmacm moves an IB/RoCE QP to ERR
 * before it sends the DREQ) and the teardown's drain. The data path is told before either
 * ({@code connection.DataPath.closing()}), so a flush seen while it is not closing was caused by something
 * else: the transport itself (an RC responder that NAKs a remote access error, IBA class C, moves
 * its own QP to ERR and completes nothing but the flushes of its posted receives), the device, or
 * the application through {@code raw()}. A peer's DREQ does not touch our QP: it stays in RTS
 * until our own rdma_disconnect answers the DISCONNECTED.
 */
public enum FailedCompletion {
    /** Any failure once our own teardown began: not news; operations it cut short fail as closed. */
    DURING_TEARDOWN,
    /**
     * A flush no teardown of ours explains: news, but judged on the dispatcher after a short grace
     * ({@code connection.Connections.unexplainedFlush}), so an event that explains it (a device removal, a QP
     * async event) and is already on its way wins.
     */
    UNEXPLAINED_FLUSH,
    /** Any other error status: the connection has failed (retry exceeded, remote access error, ...). */
    ERROR;

    public static FailedCompletion classify(WcStatus status, boolean closing) {
        checkArgument(status != WcStatus.SUCCESS, "IBV_WC_SUCCESS is not a failed completion");
        if (status == WcStatus.WR_FLUSH_ERR) {
            return closing ? DURING_TEARDOWN : UNEXPLAINED_FLUSH;
        }
        return closing ? DURING_TEARDOWN : ERROR;
    }
}
