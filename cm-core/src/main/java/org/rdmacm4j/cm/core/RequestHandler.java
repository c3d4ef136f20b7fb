package org.rdmacm4j.cm.core;

/**
 * Decides connection requests: call {@link ConnectionRequest#accept} or
 * {@link ConnectionRequest#reject} now or later (before the decision timeout). Runs on the
 * callback executor, never on the dispatcher, unless the listener asked for it with
 * {@link ListenOptions#withDecisionOnDispatcher}: then {@code onRequest} runs on the dispatcher
 * thread, must return at once and must not block. A throwing handler is logged and the request is
 * rejected.
 */
@FunctionalInterface
public interface RequestHandler {
    void onRequest(ConnectionRequest request);

    /**
     * ADDR_CHANGE on the listening id: the netdev it is bound to changed its hardware address
     * (the kernel reports a bonding failover this way). Informational: with
     * {@link ListenOptions#relistenOnAddrChange()} (the default) the listener re-creates its id
     * after the re-listen backoff and keeps serving; requests meanwhile are refused with "busy".
     * Runs on the callback executor, after the listener's earlier callbacks.
     */
    default void onAddressChanged(RdmaListener listener) { }

    /**
     * DEVICE_REMOVAL on the listening id (its RDMA device is going away, e.g. {@code rdma link
     * delete}). Informational: with {@link ListenOptions#relistenOnDeviceRemoval()} (the default)
     * the listener destroys its id at once, so the removal can complete, and re-creates it when the
     * port is back or the re-listen backoff fires; if re-listening fails for good it closes.
     * Runs on the callback executor.
     */
    default void onDeviceRemoved(RdmaListener listener) { }
}
