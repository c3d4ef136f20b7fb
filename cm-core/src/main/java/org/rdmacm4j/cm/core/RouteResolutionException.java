package org.rdmacm4j.cm.core;

import java.util.List;

/** No route to the resolved address (ROUTE_ERROR, or rdma_resolve_route failed), after the retries the policy allows. */
public class RouteResolutionException extends RdmaCmException {
    public RouteResolutionException(String message, List<HistoryEntry> history) {
        super(message, history);
    }

    public RouteResolutionException(String message, List<HistoryEntry> history, Throwable cause) {
        super(message, history, cause);
    }
}
