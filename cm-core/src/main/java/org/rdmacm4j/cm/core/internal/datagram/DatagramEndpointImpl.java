package org.rdmacm4j.cm.core.internal.datagram;

import static com.google.common.base.Preconditions.checkArgument;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.DatagramHandler;
import org.rdmacm4j.cm.core.DatagramOptions;
import org.rdmacm4j.cm.core.DatagramPeer;
import org.rdmacm4j.cm.core.DatagramTarget;
import org.rdmacm4j.cm.core.JoinOptions;
import org.rdmacm4j.cm.core.Membership;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;

/**
 * The public face of a UD endpoint: the UD id with the QP (driven by a UdMachine) and the UD
 * listener on the endpoint's port that answers SIDR requests. Any thread.
 */
final class DatagramEndpointImpl implements DatagramEnd {
    /** What an endpoint asks of the dispatcher; {@link Datagrams} is it. Any thread. */
    interface Control {
        CompletableFuture<DatagramPeer> resolve(DatagramEndpointImpl ep, InetSocketAddress remote);

        CompletableFuture<Membership> join(DatagramEndpointImpl ep, InetAddress group, JoinOptions options);

        CompletableFuture<Void> leave(DatagramEndpointImpl ep, MembershipImpl m);

        CompletableFuture<Void> close(DatagramEndpointImpl ep);

        /** Runs {@code work} on the dispatcher (an address handle's destroy). */
        void onDispatcher(Runnable work);

        void callbackFailed(DatagramEndpointImpl ep, Throwable t);
    }

    private final Control dispatcher;
    final DatagramHandler handler;
    final DatagramOptions options;
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    /** The UD id that owns the QP and the memberships. */
    IdDriver main;
    /** The UD listener answering SIDR requests (null once retired). */
    IdDriver listener;
    volatile InetSocketAddress local;
    volatile DatagramPath path;
    private CompletableFuture<Void> closing;

    DatagramEndpointImpl(Control dispatcher, DatagramHandler handler, DatagramOptions options) {
        this.dispatcher = dispatcher;
        this.handler = handler;
        this.options = options;
    }

    @Override
    public DatagramHandler handler() {
        return handler;
    }

    @Override
    public SerialExecutor callbacks() {
        return main.callbacks;
    }

    @Override
    public void onDispatcher(Runnable work) {
        dispatcher.onDispatcher(work);
    }

    @Override
    public CompletableFuture<Void> leave(Membership membership) {
        return dispatcher.leave(this, (MembershipImpl) membership);
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public int queuePairNumber() {
        return livePath().qpNumber();
    }

    @Override
    public int qkey() {
        return DatagramPath.UDP_QKEY;
    }

    @Override
    public int maxDatagramSize() {
        return livePath().mtu;
    }

    private DatagramPath livePath() {
        DatagramPath p = path;
        if (p == null) {
            throw new IllegalStateException(this + " has no queue pair (closed)");
        }
        return p;
    }

    @Override
    public CompletableFuture<DatagramPeer> resolve(InetSocketAddress remote) {
        checkArgument(remote != null, "remote must not be null");
        checkArgument(!remote.isUnresolved(), "remote %s is unresolved: resolve the host name first", remote);
        checkArgument(remote.getPort() != 0, "remote %s: port 0 cannot be resolved with SIDR", remote);
        return dispatcher.resolve(this, remote);
    }

    @Override
    public CompletableFuture<Membership> join(InetAddress group, JoinOptions options) {
        checkArgument(group != null, "group must not be null");
        checkArgument(group instanceof Inet4Address && group.isMulticastAddress(),
                "group %s is not an IPv4 multicast address (224.0.0.0/4)", group);
        Objects.requireNonNull(options, "options");
        return dispatcher.join(this, group, options);
    }

    @Override
    public CompletableFuture<Void> send(DatagramTarget to, MemorySegment datagram) {
        Objects.requireNonNull(datagram, "datagram");
        TargetHandle h = target(to);
        CmFuture<Void> f = new CmFuture<>();
        livePath().send(h, datagram, f);
        return f;
    }

    @Override
    public boolean offer(DatagramTarget to, MemorySegment datagram) {
        Objects.requireNonNull(datagram, "datagram");
        return livePath().send(target(to), datagram, null);
    }

    private TargetHandle target(DatagramTarget to) {
        checkArgument(to != null, "target must not be null");
        DatagramPath p = path;
        // Hand-written: the pattern binds h for the return below, which a checkArgument call cannot.
        if (!(to instanceof TargetHandle h) || p == null || h.targets != p.targets) {
            throw new IllegalArgumentException(to + " is not a target of " + this);
        }
        return h;
    }

    @Override
    public CompletableFuture<Void> send(DatagramTarget to, byte[] datagram) {
        Objects.requireNonNull(datagram, "datagram");
        return send(to, MemorySegment.ofArray(datagram));
    }

    @Override
    public boolean isClosed() {
        return closed.isDone();
    }

    @Override
    public synchronized CompletableFuture<Void> close() {
        if (closing == null) {
            closing = dispatcher.close(this);
        }
        return closing.copy();
    }

    @Override
    public CompletableFuture<Void> closeFuture() {
        return closed.copy();
    }

    @Override
    public void callbackFailed(Throwable t) {
        dispatcher.callbackFailed(this, t);
    }

    @Override
    public String toString() {
        return "datagram-endpoint#" + (main == null ? "?" : main.serial) + " [" + local + "]";
    }
}
