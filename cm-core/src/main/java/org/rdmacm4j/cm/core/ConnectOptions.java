package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.Deadlines;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * How {@link RdmaCm#connect} connects. Immutable; every value is checked when it is set, so a bad
 * option fails in the caller's thread with an {@link IllegalArgumentException}, before anything is
 * queued or any native call is made.
 */
public final class ConnectOptions {
    private final PrivateData privateData;
    private final Deadlines deadlines;
    private final RetryPolicy retry;
    private final InetSocketAddress source;
    private final QpCapabilities qp;
    private final CmTuning tuning;
    private final boolean awaitTimewaitExit;
    private final MessagingOptions messaging;
    private final KeepaliveOptions keepalive;
    private final OptionalInt typeOfService;
    private final OptionalInt ackTimeout;
    private final StepBarrier stepBarrier;

    private ConnectOptions(Builder b) {
        this.privateData = b.privateData;
        this.deadlines = b.deadlines;
        this.retry = b.retry;
        this.source = b.source;
        this.qp = b.qp;
        this.tuning = b.tuning;
        this.awaitTimewaitExit = b.awaitTimewaitExit;
        this.messaging = b.messaging;
        this.keepalive = b.keepalive;
        this.typeOfService = b.typeOfService;
        this.ackTimeout = b.ackTimeout;
        this.stepBarrier = b.stepBarrier;
    }

    public static ConnectOptions defaults() {
        return Defaults.INSTANCE;
    }

    /**
     * The defaults, built once (the options are immutable) and on first use: {@code connect(at, handler)}
     * asks for them per connection, and a build made a builder, its Durations and checks each time.
     * A holder class, so that the build runs after ConnectOptions' own initialisation.
     */
    private static final class Defaults {
        static final ConnectOptions INSTANCE = builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The framed private data sent with the connect request. */
    public PrivateData privateData() { return privateData; }

    public Deadlines deadlines() { return deadlines; }

    public RetryPolicy retry() { return retry; }

    /** The local address to connect from, or null to let the routing table choose. */
    public InetSocketAddress source() { return source; }

    public QpCapabilities qp() { return qp; }

    public CmTuning tuning() { return tuning; }

    public boolean awaitTimewaitExit() { return awaitTimewaitExit; }

    /** The message channel offered to the peer, or null for a raw connection. */
    public MessagingOptions messaging() { return messaging; }

    /** Dead-peer detection once established, or null (off, the default). */
    public KeepaliveOptions keepalive() { return keepalive; }
    /** The IP type of service set on the id before route resolution; empty: the kernel's default. */
    public OptionalInt typeOfService() { return typeOfService; }

    /** The QP's local ACK timeout exponent set before the connect request; empty: the kernel's choice. */
    public OptionalInt ackTimeout() { return ackTimeout; }

    /** The barrier this connect moves through its steps with, or null (the default: on its own). */
    public StepBarrier stepBarrier() { return stepBarrier; }

    /** Builder; each setter validates its argument at once. */
    public static final class Builder {
        private PrivateData privateData = PrivateData.none(MessageKind.CONNECT_REQUEST);
        private Deadlines deadlines = Deadlines.defaults();
        private RetryPolicy retry = RetryPolicy.defaults();
        private InetSocketAddress source;
        private QpCapabilities qp = QpCapabilities.defaults();
        private CmTuning tuning = CmTuning.defaults();
        private boolean awaitTimewaitExit;
        private MessagingOptions messaging = MessagingOptions.defaults();
        private KeepaliveOptions keepalive;
        private OptionalInt typeOfService = OptionalInt.empty();
        private OptionalInt ackTimeout = OptionalInt.empty();
        private StepBarrier stepBarrier;

        private Builder() { }

        /**
         * Bytes the listener's application receives with the request: at most 47 bytes with the
         * message channel (56 on the wire minus rdmacm4j's 2-byte length header, which lets the
         * receiver get exactly these bytes back, minus the channel's 7-byte offer), 54 with
         * {@link #raw()}. Checked here against 54 and in {@link #build()} against the channel.
         */
        public Builder privateData(byte[] bytes) {
            Objects.requireNonNull(bytes, "privateData");
            this.privateData = PrivateData.encode(MessageKind.CONNECT_REQUEST, bytes);
            return this;
        }

        /**
         * Sends {@code bytes} as they are, without rdmacm4j's length header: for peers written
         * against plain librdmacm that interpret the request's bytes themselves. At most 56 bytes.
         */
        public Builder rawPrivateData(byte[] bytes) {
            Objects.requireNonNull(bytes, "rawPrivateData");
            this.privateData = new PrivateData(MessageKind.CONNECT_REQUEST,
                    org.rdmacm4j.cm.statemachine.Bytes.of(bytes.clone()));
            return this;
        }

        /** The deadline of the whole connect: resolution, every retry and the CM handshake. */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            Deadlines d = deadlines;
            this.deadlines = new Deadlines(timeout, d.resolveAddr(), d.resolveRoute(), d.decision(), d.accept(),
                    d.disconnect(), d.timewait(), d.drain(), d.quiesce());
            return this;
        }

        /** Every deadline at once (connect, kernel resolve timeouts, teardown waits). */
        public Builder deadlines(Deadlines deadlines) {
            this.deadlines = Objects.requireNonNull(deadlines, "deadlines");
            return this;
        }

        /** Which failures are retried, how often, how far apart; {@link RetryPolicy#never()} to fail at once. */
        public Builder retries(RetryPolicy retry) {
            this.retry = Objects.requireNonNull(retry, "retries");
            return this;
        }

        /** Connect from this local address (port 0: any port). */
        public Builder source(InetSocketAddress source) {
            Objects.requireNonNull(source, "source");
            checkArgument(!source.isUnresolved(), "source address %s is unresolved", source);
            this.source = source;
            return this;
        }

        public Builder qp(QpCapabilities qp) {
            this.qp = Objects.requireNonNull(qp, "qp");
            return this;
        }

        /** RDMA read/atomic depths and retry counts sent in the request (clamped to the device's limits). */
        public Builder tuning(CmTuning tuning) {
            this.tuning = Objects.requireNonNull(tuning, "tuning");
            return this;
        }

        /** Wait for TIMEWAIT_EXIT before freeing the QP on close (IB/RoCE only; off by default). */
        public Builder awaitTimewaitExit(boolean await) {
            this.awaitTimewaitExit = await;
            return this;
        }

        /** The message channel to offer (default {@link MessagingOptions#defaults()}). */
        public Builder messaging(MessagingOptions options) {
            this.messaging = Objects.requireNonNull(options, "messaging");
            return this;
        }

        /**
         * Probe the peer every {@code period} once established and fail the connection with
         * {@link PeerUnresponsiveException} after {@code misses} unanswered periods; works on raw
         * connections too (see {@link KeepaliveOptions}).
         */
        public Builder keepalive(Duration period, int misses) {
            this.keepalive = new KeepaliveOptions(period, misses);
            return this;
        }

        /** As {@link #keepalive(Duration, int)}; null turns it off. */
        public Builder keepalive(KeepaliveOptions options) {
            this.keepalive = options;
            return this;
        }

        /**
         * The IP type of service of the connection (RDMA_OPTION_ID_TOS, 0..255), as {@code ucmatose -t}.
         * It is set on the id just before {@code rdma_resolve_route}, because the kernel copies it into
         * the route's path record (on RoCE the traffic class of every packet); the request carries
         * that path, so the passive side's QP gets the same traffic class without setting anything.
         */
        public Builder typeOfService(int tos) {
            checkArgument(tos >= 0 && tos <= 255, "typeOfService must be in [0, 255], was %s", tos);
            this.typeOfService = OptionalInt.of(tos);
            return this;
        }

        /**
         * The QP's local ACK timeout (RDMA_OPTION_ID_ACK_TIMEOUT), as {@code ucmatose -a}: an exponent
         * in [0, 31], the timeout being 4.096 &micro;s &times; 2<sup>exponent</sup> (0: no timeout). It is set
         * just before {@code rdma_connect}: librdmacm moves the QP to RTS with it when the reply arrives.
         * It is local only, not negotiated with the peer.
         */
        public Builder ackTimeout(int exponent) {
            this.ackTimeout = OptionalInt.of(checkAckTimeout(exponent));
            return this;
        }

        /**
         * Moves this connect through its steps in lockstep with the other connects of {@code barrier}
         * (see {@link StepBarrier}); each connect made with these options takes one of its places.
         */
        public Builder stepBarrier(StepBarrier barrier) {
            this.stepBarrier = Objects.requireNonNull(barrier, "stepBarrier");
            return this;
        }

        /**
         * No message channel: no receives are posted and no channel offer is added to the private
         * data, so all 56 bytes are the application's (as plain librdmacm programs expect).
         */
        public Builder raw() {
            this.messaging = null;
            return this;
        }

        /**
         * The options as set so far.
         *
         * @return the options
         * @throws IllegalArgumentException if the private data and the channel offer together exceed
         *                                  the 56 bytes of a connect request
         */
        public ConnectOptions build() {
            int total = privateData.wire().length() + (messaging == null ? 0 : MessagingOptions.PRIVATE_DATA_BYTES);
            checkArgument(total <= MessageKind.CONNECT_REQUEST.wireLimit(),
                    "connect private data is too large with the message channel: %s bytes on the wire + %s for the "
                            + "channel > %s; at most %s bytes of application data, or use raw()",
                    privateData.wire().length(), MessagingOptions.PRIVATE_DATA_BYTES,
                    MessageKind.CONNECT_REQUEST.wireLimit(),
                    MessageKind.CONNECT_REQUEST.usableBytes() - MessagingOptions.PRIVATE_DATA_BYTES);
            return new ConnectOptions(this);
        }
    }

    static int checkAckTimeout(int exponent) {
        checkArgument(exponent >= 0 && exponent <= 31, "ackTimeout must be an exponent in [0, 31], was %s", exponent);
        return exponent;
    }
}
