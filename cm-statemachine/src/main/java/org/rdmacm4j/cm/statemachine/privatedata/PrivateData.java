package org.rdmacm4j.cm.statemachine.privatedata;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.Bytes;

/**
 * Private data ready for the wire: a validated payload behind a two-byte header.
 *
 * <p>Why a header: the receiver of a CM message gets the whole transport-sized buffer, zero padded
 * ({@code rdma_get_cm_event(3)}: "the size of the private data buffer may be larger than the amount
 * of private data sent by the remote side"), so without a length it cannot tell {@code "ab"} from
 * {@code "ab\0\0"}. libfabric (vrb_cm_data_hdr) and UCX do the same. Layout:
 * <pre>
 *   byte 0: 0xA0 | version (version 1)  -- also tells a framed peer from rping/cmtime
 *   byte 1: payload length (0..194)
 *   byte 2..: payload
 * </pre>
 * Rejects the library sends itself (not the application: backpressure, decision deadline, listener
 * closed, failed accept) use a second framing, so that an rdmacm4j peer can tell them from an
 * application's reject and retry "busy" ({@link SystemReject}):
 * <pre>
 *   byte 0: 0xB0 | version (version 1)  -- "system reject"
 *   byte 1: SystemReject code (1 BUSY, 2 DECISION_TIMEOUT, 3 LISTENER_CLOSED, 4 ACCEPT_FAILED)
 * </pre>
 * Both travel in a consumer-defined reject (IB CM REJ status 28; on iWARP an MPA reject, reported
 * to the peer as -ECONNREFUSED or -ECONNRESET). {@link #decode} treats a system reject (like anything
 * else it does not know) as unframed; {@link #decodeSystemReject} recognises it.
 * Validation happens here, on the caller's thread, before any command reaches the dispatcher or
 * native code, and the message names the kind, the limit and the actual size.
 */
public record PrivateData(MessageKind kind, Bytes wire) {
    /** Size of the header that precedes every framed payload. */
    public static final int HEADER_BYTES = 2;
    /** First header byte: high nibble 0xA marks rdmacm4j framing, low nibble is the version. */
    public static final int MAGIC_VERSION = 0xA1;
    /** First byte of a system reject: high nibble 0xB marks a library-sent reject, low nibble is the version. */
    public static final int SYSTEM_REJECT_MAGIC = 0xB1;

    public PrivateData {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(wire, "wire");
        // Hand-written, not checkArgument: this constructor runs for every connection's private
        // data on the dispatcher, and the two int arguments would be boxed on the happy path.
        if (wire.length() > kind.wireLimit()) {
            throw new IllegalArgumentException(kind + " private data is " + wire.length()
                    + " bytes on the wire; the transport limit is " + kind.wireLimit());
        }
    }

    /** No private data at all: nothing is sent and the peer sees {@link Received#framed()} false. */
    public static PrivateData none(MessageKind kind) {
        return new PrivateData(kind, Bytes.empty());
    }

    /**
     * Frames {@code payload} for {@code kind}.
     *
     * @throws IllegalArgumentException if the payload exceeds {@link MessageKind#usableBytes()}
     */
    public static PrivateData encode(MessageKind kind, byte[] payload) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(payload, "payload");
        // Hand-written, not checkArgument: five arguments, four of them ints, would be boxed into
        // an array on every encode (once per connection) on the happy path.
        if (payload.length > kind.usableBytes()) {
            throw new IllegalArgumentException("private data for " + kind + " is too large: "
                    + payload.length + " bytes, at most " + kind.usableBytes() + " usable ("
                    + kind.wireLimit() + " on the wire minus the " + HEADER_BYTES + "-byte header)");
        }
        byte[] wire = new byte[HEADER_BYTES + payload.length];
        wire[0] = (byte) MAGIC_VERSION;
        wire[1] = (byte) payload.length;
        System.arraycopy(payload, 0, wire, HEADER_BYTES, payload.length);
        return new PrivateData(kind, Bytes.of(wire));
    }

    /** The private data of a reject the library sends itself: {@code 0xB1, code}. */
    public static PrivateData systemReject(SystemReject reason) {
        Objects.requireNonNull(reason, "reason");
        return new PrivateData(MessageKind.REJECT, Bytes.of((byte) SYSTEM_REJECT_MAGIC, (byte) reason.code()));
    }

    /**
     * The system reject a received (possibly padded) reject buffer carries, or empty if it is not one
     * (an application reject, an unframed peer, an unknown code). Never throws.
     */
    public static java.util.Optional<SystemReject> decodeSystemReject(Bytes received) {
        Objects.requireNonNull(received, "received");
        if (received.length() >= HEADER_BYTES && received.byteAt(0) == SYSTEM_REJECT_MAGIC) {
            return SystemReject.find(received.byteAt(1));
        }
        return java.util.Optional.empty();
    }

    /** What a receiver makes of a (possibly padded) private-data buffer. */
    public record Received(Bytes payload, boolean framed) {
        public Received {
            Objects.requireNonNull(payload, "payload");
        }

        public static Received nothing() {
            return new Received(Bytes.empty(), false);
        }
    }

    /**
     * Decodes a received buffer. A buffer that starts with a valid header yields exactly the payload
     * that was sent; anything else (a peer that does not frame, a truncated or foreign header) is
     * returned whole with {@code framed == false}. Never throws: the bytes come from the network.
     */
    public static Received decode(Bytes received) {
        Objects.requireNonNull(received, "received");
        if (received.length() >= HEADER_BYTES && received.byteAt(0) == MAGIC_VERSION
                && received.byteAt(1) <= received.length() - HEADER_BYTES) {
            return new Received(received.slice(HEADER_BYTES, HEADER_BYTES + received.byteAt(1)), true);
        }
        return new Received(received, false);
    }
}
