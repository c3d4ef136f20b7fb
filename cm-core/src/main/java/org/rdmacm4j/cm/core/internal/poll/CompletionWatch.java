package org.rdmacm4j.cm.core.internal.poll;

/**
 * Makes sure a CQ's completions are polled before work is posted on it: whoever is about to post
 * the first work request on a QP whose CQ may not be registered yet (the application's first
 * {@code raw()}, the first one-sided operation) calls {@link #start} first. See {@link CqRegistration}.
 *
 * <p>Threads: any.
 */
public interface CompletionWatch {
    /** A CQ polled from its creation on (or none to poll): always true. */
    CompletionWatch ALREADY = () -> true;

    /**
     * Registers the CQ with its poller unless that was done already. False once the CQ has been
     * quiesced (the connection is being torn down): post nothing then, no completion would be taken.
     */
    boolean start();
}
