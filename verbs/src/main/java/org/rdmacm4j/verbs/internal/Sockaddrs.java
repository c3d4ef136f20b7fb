package org.rdmacm4j.verbs.internal;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * {@code struct sockaddr_in}/{@code sockaddr_in6} from and to {@link InetSocketAddress}.
 * Ports and IPv4 addresses are in network byte order in C; Java's {@code InetAddress} bytes
 * already are, so they are copied as bytes, and the port is written big-endian explicitly.
 */
public final class Sockaddrs {
    private Sockaddrs() { }

    public static final short AF_INET = 2;
    public static final short AF_INET6 = 10;

    private static final ValueLayout.OfShort BE16 = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).withByteAlignment(1);
    private static final ValueLayout.OfInt BE32 = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).withByteAlignment(1);

    private static final long IN_FAMILY = Layouts.SOCKADDR_IN.offset("sin_family");
    private static final long IN_PORT = Layouts.SOCKADDR_IN.offset("sin_port");
    private static final long IN_ADDR = Layouts.SOCKADDR_IN.offset("sin_addr");
    private static final long IN6_PORT = Layouts.SOCKADDR_IN6.offset("sin6_port");
    private static final long IN6_FLOW = Layouts.SOCKADDR_IN6.offset("sin6_flowinfo");
    private static final long IN6_ADDR = Layouts.SOCKADDR_IN6.offset("sin6_addr");
    private static final long IN6_SCOPE = Layouts.SOCKADDR_IN6.offset("sin6_scope_id");

    static {
        // an IPv4 sockaddr's family, port and address are one word, read and written as one
        Words.check("sockaddr_in", IN_FAMILY, 2, IN_FAMILY, IN_PORT);
        Words.check("sockaddr_in", 0, 4, 0, IN_ADDR);
    }

    /** Validates an address the caller gave: non-null, resolved, port 0..65535 (InetSocketAddress ensures the range). */
    public static InetSocketAddress check(InetSocketAddress a, String what) {
        checkArgument(a != null, "%s must not be null", what);
        checkArgument(!a.isUnresolved(), "%s %s is unresolved: rdma_cm takes numeric addresses", what, a);
        return a;
    }

    /**
     * Allocates a sockaddr_storage-sized buffer holding {@code a}, the rest zero. {@code alloc}
     * must hand out zeroed memory, as {@link Scratch} and every {@code Arena} do (this method does
     * not fill it a second time).
     */
    public static MemorySegment write(SegmentAllocator alloc, InetSocketAddress a) {
        MemorySegment s = alloc.allocate(Layouts.SOCKADDR_STORAGE.size(), Layouts.SOCKADDR_STORAGE.alignment());
        InetAddress ip = a.getAddress();
        if (ip instanceof Inet4Address) {
            // family, port (network order) and address as one word: one write, not three accesses
            // (each a VarHandle chain or a checked copy under C1; 53 of the dispatcher's 6,176 Java
            // samples in a warm CmBench run, issue 21). sin_zero stays as the zeroed memory has it.
            byte[] b = ip.getAddress();
            int familyAndPort = Words.shorts(AF_INET, Short.reverseBytes((short) a.getPort()));
            s.set(JAVA_LONG_UNALIGNED, 0, Words.ints(familyAndPort, ipv4Raw(b)));
        } else if (ip instanceof Inet6Address v6) {
            s.set(JAVA_SHORT_UNALIGNED, 0, AF_INET6);
            s.set(BE16, IN6_PORT, (short) a.getPort());
            s.set(BE32, IN6_FLOW, 0);
            MemorySegment.copy(ip.getAddress(), 0, s, JAVA_BYTE, IN6_ADDR, 16);
            s.set(JAVA_INT_UNALIGNED, IN6_SCOPE, v6.getScopeId());
        } else {
            throw new IllegalArgumentException("unsupported address family: " + a);
        }
        return s;
    }

    /** Reads a sockaddr (AF_INET or AF_INET6); null for AF_UNSPEC (nothing bound/resolved yet) or AF_IB. */
    public static InetSocketAddress read(MemorySegment sa) {
        return read(sa, 0);
    }

    /**
     * {@link #read(MemorySegment)} of the sockaddr at {@code offset} in {@code s} (a member of a
     * struct): no slice of the struct per read.
     */
    public static InetSocketAddress read(MemorySegment s, long offset) {
        // The first word holds the family and, for AF_INET, the port and address: one read, not three
        // (each a VarHandle chain under C1; read and ipv4 were 54 + 44 of the dispatcher's 6,176 Java
        // samples in a warm CmBench run, issue 21). Every sockaddr read here has at least 16 bytes.
        long word = s.get(JAVA_LONG_UNALIGNED, offset);
        short family = (short) word;
        try {
            if (family == AF_INET) {
                int port = Short.toUnsignedInt(Short.reverseBytes((short) Words.u16(word, (int) IN_PORT)));
                return new InetSocketAddress(ipv4(Words.hi(word)), port);
            }
            if (family == AF_INET6) {
                byte[] b = new byte[16];
                MemorySegment.copy(s, JAVA_BYTE, offset + IN6_ADDR, b, 0, 16);
                int scope = s.get(JAVA_INT_UNALIGNED, offset + IN6_SCOPE);
                InetAddress ip = scope != 0 ? Inet6Address.getByAddress(null, b, scope) : InetAddress.getByAddress(b);
                return new InetSocketAddress(ip, Short.toUnsignedInt(s.get(BE16, offset + IN6_PORT)));
            }
            return null;
        } catch (UnknownHostException e) {
            throw new AssertionError("raw address of the right length", e);
        }
    }

    /** An IPv4 address and its four bytes read as one int: the last one decoded (see {@link #ipv4}). */
    private record LastIpv4(int raw, InetAddress address) { }

    /** Racy on purpose: an immutable record, so any thread sees a whole one or the one before. */
    private static LastIpv4 lastIpv4 = new LastIpv4(0, null);

    /**
     * The IPv4 address whose four bytes, read as one native (little-endian) int, are {@code raw}. The
     * last one is kept, matched by those bytes: a connection's ends read the same few addresses again and again
     * (both ends' local and peer address per connection), and InetAddress.getByAddress makes an
     * address, its holder and a byte array each time. InetAddress is immutable, so sharing is safe.
     */
    private static InetAddress ipv4(int raw) throws UnknownHostException {
        LastIpv4 last = lastIpv4;
        if (last.raw() == raw && last.address() != null) {
            return last.address();
        }
        byte[] b = {(byte) raw, (byte) (raw >>> 8), (byte) (raw >>> 16), (byte) (raw >>> 24)};
        InetAddress a = InetAddress.getByAddress(b);
        lastIpv4 = new LastIpv4(raw, a);
        return a;
    }

    /** An IPv4 address's four bytes as the little-endian int memory holds them. */
    private static int ipv4Raw(byte[] b) {
        return (b[0] & 0xFF) | (b[1] & 0xFF) << 8 | (b[2] & 0xFF) << 16 | (b[3] & 0xFF) << 24;
    }

    /** Network-order 16-bit value (as returned by rdma_get_src_port) to a host port number. */
    public static int portFromNetworkOrder(short be) {
        return Short.toUnsignedInt(Short.reverseBytes(be));
    }
}
