package org.rdmacm4j.cm.core;

import java.util.Objects;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QueuePair;

/**
 * The verbs objects under a connection, for applications that bring their own data path
 * ({@link ConnectOptions.Builder#raw()}): post on the queue pair, register memory on the protection
 * domain. rdmacm4j still owns them: it polls the completion queue (completions of your work
 * requests arrive in {@link ConnectionHandler#onCompletion}) and destroys everything at teardown,
 * so never close them yourself, and do not use them after the connection closed. Use work request
 * ids below {@code 1L << 56}: the top byte is rdmacm4j's.
 */
public record RawQueuePair(QueuePair queuePair, CompletionQueue completionQueue, ProtectionDomain protectionDomain) {
    public RawQueuePair {
        Objects.requireNonNull(queuePair, "queuePair");
        Objects.requireNonNull(completionQueue, "completionQueue");
        Objects.requireNonNull(protectionDomain, "protectionDomain");
    }
}
