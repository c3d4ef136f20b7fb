package org.rdmacm4j.cm.core;

/**
 * Decides connection requests: call {@link ConnectionRequest#accept} or
 * {@link ConnectionRequest#reject} now or later (before the decision timeout). Runs on the
 * callback executor, never on the dispatcher; a throwing handler is logged and the request is
 * rejected.
 */
@FunctionalInterface
public interface RequestHandler {
    void onRequest(ConnectionRequest request);
}
