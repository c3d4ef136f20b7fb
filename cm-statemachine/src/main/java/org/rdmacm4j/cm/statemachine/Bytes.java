package org.rdmacm4j.cm.statemachine;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable byte string. Private data is copied out of the native event before the event is
 * acked (the buffer dies with the ack), so inputs and actions carry this value instead of a
 * {@code byte[]} that could be mutated or compared by identity.
 */
public final class Bytes {
    private static final Bytes EMPTY = new Bytes(new byte[0]);
    private final byte[] bytes;

    private Bytes(byte[] bytes) {
        this.bytes = bytes;
    }

    /** A copy of {@code bytes}; the caller keeps ownership of the array. */
    public static Bytes of(byte... bytes) {
        return bytes.length == 0 ? EMPTY : new Bytes(bytes.clone());
    }

    public static Bytes empty() {
        return EMPTY;
    }

    public int length() {
        return bytes.length;
    }

    public boolean isEmpty() {
        return bytes.length == 0;
    }

    public int byteAt(int index) {
        return bytes[index] & 0xFF;
    }

    /** A fresh copy of the content. */
    public byte[] toArray() {
        return bytes.clone();
    }

    /** The bytes {@code from} (inclusive) {@code to} (exclusive); one copy (of() would copy the copy again). */
    public Bytes slice(int from, int to) {
        byte[] part = Arrays.copyOfRange(bytes, from, to);
        return part.length == 0 ? EMPTY : new Bytes(part);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return bytes.length <= 16
                ? bytes.length + "B[" + HexFormat.of().formatHex(bytes) + "]"
                : bytes.length + "B[" + HexFormat.of().formatHex(bytes, 0, 16) + "...]";
    }
}
