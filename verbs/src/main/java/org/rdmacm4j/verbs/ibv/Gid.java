package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * {@code union ibv_gid}: 16 bytes in network order, held as two big-endian longs.
 * For RoCE v2 the GID is the IPv6 (or IPv4-mapped) address of the port.
 */
public record Gid(long subnetPrefix, long interfaceId) {

    public static final Gid ZERO = new Gid(0, 0);

    /** From 16 raw bytes in network order. */
    public static Gid of(byte[] raw) {
        checkArgument(raw.length == 16, "a GID has 16 bytes, not %s", raw.length);
        return new Gid(java.nio.ByteBuffer.wrap(raw, 0, 8).getLong(), java.nio.ByteBuffer.wrap(raw, 8, 8).getLong());
    }

    /** The 16 raw bytes in network order. */
    public byte[] raw() {
        return java.nio.ByteBuffer.allocate(16).putLong(subnetPrefix).putLong(interfaceId).array();
    }

    /** As an IPv6 address (RoCE GIDs are IPv6 or IPv4-mapped addresses). */
    public InetAddress toInetAddress() {
        try {
            return InetAddress.getByAddress(raw());
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public String toString() {
        try {
            return Inet6Address.getByAddress(null, raw(), null).getHostAddress();
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
