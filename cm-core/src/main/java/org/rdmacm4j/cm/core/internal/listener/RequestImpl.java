package org.rdmacm4j.cm.core.internal.listener;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RequestExpiredException;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/** The public face of a passive id awaiting the application's decision. Any thread. */
final class RequestImpl implements ConnectionRequest {
    /** Where the application's decision goes; {@link Listeners} is it. Any thread. */
    interface Decider {
        CompletableFuture<RdmaConnection> accept(RequestImpl r, ConnectionHandler handler, AcceptOptions options);

        CompletableFuture<Void> reject(RequestImpl r, PrivateData payload);
    }

    private final Decider dispatcher;
    final IdDriver driver;
    private final InetSocketAddress peer;
    private final InetSocketAddress local;
    private final PrivateData.Received data;
    /** Completed by the passive id's RequestExpired notice. */
    private final CompletableFuture<RequestExpiredException> expired;

    RequestImpl(Decider dispatcher, IdDriver driver, InetSocketAddress peer, InetSocketAddress local,
                PrivateData.Received data, CompletableFuture<RequestExpiredException> expired) {
        this.expired = expired;
        this.dispatcher = dispatcher;
        this.driver = driver;
        this.peer = peer;
        this.local = local;
        this.data = data;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peer;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public byte[] privateData() {
        return data.payload().toArray();
    }

    @Override
    public boolean privateDataFramed() {
        return data.framed();
    }

    @Override
    public CompletableFuture<RdmaConnection> accept(ConnectionHandler handler, AcceptOptions options) {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(options, "options");
        return dispatcher.accept(this, handler, options);
    }

    @Override
    public CompletableFuture<Void> reject(byte[] privateData) {
        Objects.requireNonNull(privateData, "privateData");
        PrivateData payload = PrivateData.encode(MessageKind.REJECT, privateData);   // IAE names the limit
        return dispatcher.reject(this, payload);
    }

    @Override
    public CompletableFuture<RequestExpiredException> expired() {
        return expired.copy();
    }

    @Override
    public String toString() {
        return "request " + driver.name() + " from " + peer;
    }
}
