package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Memory of the peer that it registered and advertised for one-sided operations: address, rkey
 * and length. Serializable to 20 bytes ({@link #toBytes()}), so an application can send it in a
 * message or in the private data.
 */
public record RemoteRegion(long address, int rkey, long length) {
    /** Bytes of {@link #toBytes()}: address (8), rkey (4), length (8), big endian. */
    public static final int BYTES = 20;

    public RemoteRegion {
        checkArgument(length >= 0, "length must be >= 0, was %s", length);
    }

    public byte[] toBytes() {
        return ByteBuffer.allocate(BYTES).order(ByteOrder.BIG_ENDIAN).putLong(address).putInt(rkey).putLong(length)
                .array();
    }

    /**
     * The region {@link #toBytes()} wrote at the start of {@code bytes} (bytes beyond the first
     * {@link #BYTES} are ignored). The bytes usually come from the peer, so this is the one
     * exception it throws for any content:
     *
     * @throws IllegalArgumentException if {@code bytes} is shorter than {@link #BYTES} or its length
     *                                  field is negative
     */
    public static RemoteRegion fromBytes(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        checkArgument(bytes.length >= BYTES, "a RemoteRegion needs %s bytes, got %s", BYTES, bytes.length);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        return new RemoteRegion(b.getLong(), b.getInt(), b.getLong());
    }

    /** The part {@code [offset, offset + len)} of this region. */
    public RemoteRegion slice(long offset, long len) {
        checkBounds(offset, len);
        return new RemoteRegion(address + offset, rkey, len);
    }

    /** IllegalArgumentException unless {@code [offset, offset + len)} lies inside the region. */
    public void checkBounds(long offset, long len) {
        // Hand-written, not checkArgument: every one-sided operation slices here, and four long
        // arguments would be boxed (and put in an array) on the happy path.
        if (offset < 0 || len < 0 || offset > length - len) {
            throw new IllegalArgumentException("[" + offset + ", " + offset + " + " + len + ") is outside the remote "
                    + "region of " + length + " bytes");
        }
    }
}
