package org.rdmacm4j.cm.core;

import java.util.List;

/** The destination address could not be resolved to an RDMA device and port (ADDR_ERROR, or rdma_resolve_addr failed), after the retries the policy allows. */
public class AddressResolutionException extends RdmaCmException {
    public AddressResolutionException(String message, List<HistoryEntry> history) {
        super(message, history);
    }

    public AddressResolutionException(String message, List<HistoryEntry> history, Throwable cause) {
        super(message, history, cause);
    }
}
