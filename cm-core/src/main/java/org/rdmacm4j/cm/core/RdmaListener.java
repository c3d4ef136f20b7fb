package org.rdmacm4j.cm.core;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * A listening rdma_cm_id. Requests reach either the {@link RequestHandler} given to
 * {@link RdmaCm#listen} or, for a listener made without one, {@link #next()}. Any thread.
 */
public interface RdmaListener {

    /** The bound address; the real port if 0 was asked for. */
    InetSocketAddress localAddress();

    /**
     * Pull form: the next request. Requests wait in a queue bounded by
     * {@link ListenOptions#maxPendingRequests()}; beyond it the listener rejects with "busy".
     * IllegalStateException for a listener created with a handler.
     */
    CompletableFuture<ConnectionRequest> next();

    /**
     * Stops listening and frees the listening id. Requests not yet handed to the application are
     * rejected; requests already handed over and connections already accepted are not touched.
     * Idempotent.
     */
    CompletableFuture<Void> close();

    /** True once closed (by {@link #close()}, by its RdmaCm, or after re-listening failed for good). */
    boolean isClosed();

    /**
     * Completes when the listener is closed for any reason. Each call returns a new future:
     * completing or cancelling it does not touch the listener or another caller's future.
     */
    CompletableFuture<Void> closeFuture();

    /**
     * The listening id's recent history (states and inputs, oldest first, bounded): requests,
     * ADDR_CHANGE, DEVICE_REMOVAL, re-listens. For diagnostics.
     */
    java.util.List<HistoryEntry> history();
}
