package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Objects;
import java.util.OptionalInt;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * How {@link ConnectionRequest#accept(ConnectionHandler, AcceptOptions)} accepts: the private data
 * sent back, the QP sizes, the message channel and the QP's ACK timeout. Checked when built.
 *
 * <p>There is no type of service here: the kernel builds the passive side's path from the
 * connect request, whose traffic class is the one the active side chose
 * ({@link ConnectOptions.Builder#typeOfService}).
 */
public record AcceptOptions(PrivateData privateData, QpCapabilities qp, MessagingOptions messaging,
                            OptionalInt ackTimeout) {
    public AcceptOptions {
        Objects.requireNonNull(privateData, "privateData");
        Objects.requireNonNull(qp, "qp");
        Objects.requireNonNull(ackTimeout, "ackTimeout");
        ackTimeout.ifPresent(ConnectOptions::checkAckTimeout);
        checkArgument(messaging == null
                        || privateData.wire().length() + MessagingOptions.PRIVATE_DATA_BYTES <= MessageKind.ACCEPT.wireLimit(),
                "accept private data is too large with the message channel: at most %s bytes of application data, "
                        + "or use raw()", MessageKind.ACCEPT.usableBytes() - MessagingOptions.PRIVATE_DATA_BYTES);
        checkArgument(privateData.kind() == MessageKind.ACCEPT,
                "accept private data must be of kind ACCEPT, not %s", privateData.kind());
    }

    public AcceptOptions(PrivateData privateData, QpCapabilities qp, MessagingOptions messaging) {
        this(privateData, qp, messaging, OptionalInt.empty());
    }

    public AcceptOptions(PrivateData privateData, QpCapabilities qp) {
        this(privateData, qp, MessagingOptions.defaults());
    }

    /** No private data, default QP sizes, the default message channel (used if the peer offers one). */
    public static AcceptOptions defaults() {
        return DEFAULTS;
    }

    /** One instance (a record of immutable parts): {@code accept(handler)} asks for it on every request. */
    private static final AcceptOptions DEFAULTS =
            new AcceptOptions(PrivateData.none(MessageKind.ACCEPT), QpCapabilities.defaults());

    /** Accept with these bytes for the peer (at most 194: 196 on the wire minus the 2-byte header). */
    public static AcceptOptions withPrivateData(byte[] bytes) {
        return defaults().privateData(bytes);
    }

    public AcceptOptions privateData(byte[] bytes) {
        Objects.requireNonNull(bytes, "privateData");
        return new AcceptOptions(PrivateData.encode(MessageKind.ACCEPT, bytes), qp, messaging, ackTimeout);
    }

    /** Sends {@code bytes} without rdmacm4j's header, for peers that read the reply themselves. */
    public AcceptOptions rawPrivateData(byte[] bytes) {
        Objects.requireNonNull(bytes, "rawPrivateData");
        return new AcceptOptions(new PrivateData(MessageKind.ACCEPT, Bytes.of(bytes.clone())), qp, messaging, ackTimeout);
    }

    public AcceptOptions qp(QpCapabilities caps) {
        return new AcceptOptions(privateData, caps, messaging, ackTimeout);
    }

    /** The message channel to accept with (used only if the peer offered one). */
    public AcceptOptions messaging(MessagingOptions options) {
        return new AcceptOptions(privateData, qp, Objects.requireNonNull(options, "messaging"), ackTimeout);
    }

    /** No message channel, even if the peer offers one (its sends will then fail on its side). */
    public AcceptOptions raw() {
        return new AcceptOptions(privateData, qp, null, ackTimeout);
    }

    /**
     * The QP's local ACK timeout exponent in [0, 31] (RDMA_OPTION_ID_ACK_TIMEOUT, 4.096 &micro;s &times;
     * 2<sup>exponent</sup>), set just before {@code rdma_accept}, which moves the QP to RTS with it.
     */
    public AcceptOptions ackTimeout(int exponent) {
        return new AcceptOptions(privateData, qp, messaging, OptionalInt.of(ConnectOptions.checkAckTimeout(exponent)));
    }
}
