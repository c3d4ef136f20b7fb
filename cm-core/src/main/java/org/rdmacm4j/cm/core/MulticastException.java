package org.rdmacm4j.cm.core;

import java.net.InetAddress;
import java.util.List;

/**
 * MULTICAST_ERROR on a group: the join failed, or a joined group is no longer reachable (rdma_cm(7):
 * it "should be rejoined if needed"). {@link #status()} is the event's status (a negative errno, or 0
 * when the kernel could not build the group's address vector).
 */
public final class MulticastException extends RdmaCmException {
    private final InetAddress group;
    private final int status;
    private final boolean rejoining;

    public MulticastException(String message, InetAddress group, int status, boolean rejoining,
                              List<HistoryEntry> history) {
        super(message, history);
        this.group = group;
        this.status = status;
        this.rejoining = rejoining;
    }

    public InetAddress group() {
        return group;
    }

    /** The MULTICAST_ERROR event's status, or the negative errno of a re-join that failed at once. */
    public int status() {
        return status;
    }

    /** True if the {@link RejoinPolicy} re-joins the group after this error. */
    public boolean rejoining() {
        return rejoining;
    }
}
