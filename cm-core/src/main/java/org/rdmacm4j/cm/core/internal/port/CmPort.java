package org.rdmacm4j.cm.core.internal.port;

import java.net.InetSocketAddress;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.internal.loop.EventLoop;
import org.rdmacm4j.cm.core.internal.poll.CompletionSink;
import org.rdmacm4j.cm.core.internal.poll.Keepalive;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Transport;

/**
 * Everything native the dispatcher does for any kind of id, as one narrow interface: the real one
 * ({@code nativeport.VerbsCmPort}) calls librdmacm/libibverbs through {@code verbs}; host tests
 * drive the dispatcher with a fake. What only one kind needs and that returns that kind's objects
 * (a connection's message channel, an endpoint's datagram channel) is in that kind's own port
 * interface ({@code connection.ConnectionPort}, {@code datagram.DatagramPort}), so that this
 * package stays below every kind.
 *
 * <p>Threads: every method except {@link #wakeup()} is called on the dispatcher thread only.
 * Fallible calls throw {@link PortCallException}; the destroy and "infallible" calls log their own
 * failures and do not throw. A destroy of an object that does not exist is a no-op. Events are
 * copied (and, natively, acked) before the sink sees them.
 */
public interface CmPort extends EventLoop.Selector, AutoCloseable {

    /** Receives copied events during {@link #drainEvents}. */
    interface EventSink {
        /**
         * One rdma_cm event. For CONNECT_REQUEST {@code id} is the new id librdmacm created and
         * {@code listenId} the listener's; otherwise {@code listenId} is null.
         */
        void cmEvent(NativeId id, NativeId listenId, CmEventType type, int status, EventParams params);

        /** One verbs async event routed to an id (its QP/CQ, or every id on that device/port). */
        void asyncEvent(NativeId id, AsyncEventType type, int portNumber);

        /** A native event that could not be routed or decoded: logged by the dispatcher. */
        void unroutable(String what);
    }

    /** Waits until an event is ready, {@link #wakeup()} is called, or {@code timeoutNanos} passed. */
    @Override
    void await(long timeoutNanos);

    /** Makes a running or the next {@link #await} return at once. Any thread. */
    @Override
    void wakeup();

    /** Hands every event that is ready to the sink, without waiting. */
    void drainEvents(EventSink sink);

    /** {@code rdma_create_id} for RC (RDMA_PS_TCP). */
    NativeId createId();

    void bind(NativeId id, InetSocketAddress address);

    void listen(NativeId id, int backlog);

    void resolveAddr(NativeId id, InetSocketAddress source, InetSocketAddress destination, int timeoutMs);

    void resolveRoute(NativeId id, int timeoutMs);

    /** {@code rdma_set_option(RDMA_OPTION_ID_TOS)}: before {@link #resolveRoute}, whose path record takes it. */
    void setTypeOfService(NativeId id, int tos);

    /**
     * {@code rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT)}: before {@link #connect} or {@link #accept},
     * after which librdmacm moves the QP to RTS with it.
     */
    void setAckTimeout(NativeId id, int exponent);

    /**
     * Creates the QP on the id, and its CQ and completion channel (and the device's shared PD) if
     * absent, and assigns the CQ to a completion poller, registering it there only when work can
     * first be posted (at once for a message channel's receives). On failure, rolls back what this
     * call created.
     */
    void createQp(NativeId id, QpCapabilities caps, org.rdmacm4j.cm.core.MessagingOptions messaging);

    /**
     * Starts the keepalive of an established connection on its completion poller; the verdict
     * (once, on the poller thread) says the peer stopped answering. Returns false if the id has no
     * QP or CQ (nothing to keep alive) or already has a keepalive.
     */
    default boolean startKeepalive(NativeId id, org.rdmacm4j.cm.core.KeepaliveOptions options,
                                   Keepalive.Verdict verdict) {
        return false;
    }

    /** Raw connections: completions of the application's own work requests go to {@code sink}. */
    default void rawCompletions(NativeId id, CompletionSink sink) {
    }

    /** The verbs objects of a connection, for applications that bring their own data path; null if none. */
    default org.rdmacm4j.cm.core.RawQueuePair raw(NativeId id) {
        return null;
    }

    void connect(NativeId id, Bytes privateData, CmTuning tuning);

    void accept(NativeId id, Bytes privateData, CmTuning tuning);

    /** {@code rdma_reject}; logs a failure. */
    void reject(NativeId id, Bytes privateData);

    /** {@code rdma_notify(IBV_EVENT_COMM_EST)}; logs a failure. */
    void notifyEstablished(NativeId id);

    /** {@code rdma_disconnect}; logs a failure. */
    void disconnect(NativeId id);

    /**
     * Flushes the QP; {@code drained} runs (on any thread) once its flush completions are in; at
     * once if its CQ was never registered with a poller (nothing was posted, nothing flushes).
     */
    void drainQp(NativeId id, Runnable drained);

    /**
     * Stops the completion poller from touching the id's CQ and acks every CQ event it took;
     * {@code quiesced} runs (on any thread) after that. Runs at once if there is no CQ or it was
     * never registered with a poller (no work was ever posted on it).
     */
    void quiesceCq(NativeId id, Runnable quiesced);

    void destroyQp(NativeId id);

    void destroyCq(NativeId id);

    void destroyCompChannel(NativeId id);

    /** {@code rdma_destroy_id}; afterwards no event names this id. */
    void destroyId(NativeId id);

    /** Gives up the id's objects without destroying them (a quiesce that never finished). Logged. */
    void leak(NativeId id, String why);

    /** The device's limits for RDMA read/atomic depths, for clamping (ids bound to a device only). */
    CmTuning deviceLimits(NativeId id);

    /** The transport of the id's device (RoCE, InfiniBand, iWARP); ROCE before it is bound. */
    Transport transport(NativeId id);

    /**
     * The transport to assume for an active id before its device is known: iWARP only if every
     * device present is iWARP (a host with both kinds is rare; the choice is logged).
     */
    default Transport defaultTransport() {
        return Transport.ROCE;
    }

    InetSocketAddress localAddress(NativeId id);

    InetSocketAddress peerAddress(NativeId id);

    // ------------------------------------------------------------------ UD (datagram endpoints)

    /** {@code rdma_create_id} for UD (RDMA_PS_UDP). */
    default NativeId createUdId() {
        throw unsupported("rdma_create_id");
    }

    /** {@code rdma_accept} of a SIDR request on an id without a QP: the reply names {@code qpNum}. */
    default void acceptSidr(NativeId id, Bytes privateData, int qpNum) {
        throw unsupported("rdma_accept");
    }

    /**
     * {@code rdma_join_multicast_ex}: MULTICAST_JOIN or MULTICAST_ERROR follows, naming {@code group}.
     * {@code sendOnly}: RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER (the QP is not attached).
     */
    default void joinMulticast(NativeId id, String group, boolean sendOnly) {
        throw unsupported("rdma_join_multicast");
    }

    /** {@code rdma_leave_multicast}; logs a failure. */
    default void leaveMulticast(NativeId id, String group) { }

    static PortCallException unsupported(String function) {
        return new PortCallException(function, 95, "UD is not supported by this port", null);
    }

    /** Frees what the port itself owns (event channel, PDs, pollers); objects still live are logged and leaked. */
    @Override
    void close();
}
