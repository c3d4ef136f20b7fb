package org.rdmacm4j.cm.core.internal.connection;

import java.util.concurrent.Executor;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.DataPathException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.verbs.ibv.WcStatus;

/**
 * The connection as its data paths ({@link DataPath}, {@link OneSided}) see it: where messages
 * and failures go. An interface so that the data paths sit below the connection that owns them.
 * Poller threads call it.
 */
public interface ConnectionEnd extends RdmaConnection {
    /** The application's handler, or null. */
    ConnectionHandler handler();

    /** The connection's serial executor: callbacks and future completions, in order. */
    Executor callbacks();

    /** A user callback run outside the executor (onMessage on the poller) threw. */
    void callbackFailed(Throwable t);

    /** The receives flushed with no teardown of ours under way: the dispatcher judges. */
    void queuePairFlushed(WcStatus status);

    /** A work completion failed: tell the handler once and abort. */
    void dataPathFailed(DataPathException e);

    /** The failure tearing the connection down, or null. */
    DataPathException failure();
}
