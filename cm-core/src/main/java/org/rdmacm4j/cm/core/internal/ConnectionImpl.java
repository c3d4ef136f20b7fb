package org.rdmacm4j.cm.core.internal;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.HistoryEntry;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.statemachine.Input;

/** The public face of an active or passive connection id. Any thread. */
final class ConnectionImpl implements RdmaConnection {
    private final Dispatcher dispatcher;
    final IdDriver driver;
    final ConnectionHandler handler;
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    volatile InetSocketAddress local;
    volatile InetSocketAddress peer;
    volatile byte[] peerData = new byte[0];
    /** When the connect or accept started, for the JFR setup time. */
    final long startedNanos;
    volatile long establishedNanos;

    ConnectionImpl(Dispatcher dispatcher, IdDriver driver, ConnectionHandler handler, long startedNanos) {
        this.dispatcher = dispatcher;
        this.driver = driver;
        this.handler = handler;
        this.startedNanos = startedNanos;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peer;
    }

    @Override
    public byte[] peerPrivateData() {
        return peerData.clone();
    }

    @Override
    public String state() {
        return driver.phase();
    }

    @Override
    public boolean isClosed() {
        return closed.isDone();
    }

    @Override
    public List<HistoryEntry> history() {
        return driver.historySnapshot();
    }

    @Override
    public CompletableFuture<Void> close() {
        return dispatcher.closeCommand(driver, Input.Command.Close::new);
    }

    @Override
    public CompletableFuture<Void> abort() {
        return dispatcher.closeCommand(driver, Input.Command.Abort::new);
    }

    @Override
    public CompletableFuture<Void> closeFuture() {
        return closed.copy();
    }

    @Override
    public String toString() {
        return driver.name() + " " + local + " -> " + peer + " [" + driver.phase() + "]";
    }
}
