package org.rdmacm4j.cm.core;

import java.util.List;

/** The RDMA device under the id went away (DEVICE_REMOVAL or a fatal device event); the id was torn down without waiting for the peer. */
public class DeviceRemovedException extends RdmaCmException {
    public DeviceRemovedException(String message, List<HistoryEntry> history) {
        super(message, history);
    }

    public DeviceRemovedException(String message, List<HistoryEntry> history, Throwable cause) {
        super(message, history, cause);
    }
}
