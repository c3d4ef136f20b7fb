package org.rdmacm4j.cm.core.internal.datagram;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.statistics.Statistics;
import org.rdmacm4j.cm.core.FuzzSupport;
import org.rdmacm4j.cm.core.internal.poll.SlotPool;

/**
 * Fuzz test of what a UD endpoint reads from a received datagram before the payload
 * (DatagramPath.onCompletion): the 40 bytes in front of it, a GRH (IB, RoCE v1) or a RoCE v2
 * IPv4 header in its last 20 bytes, which {@link DatagramPath#grhAddress} reads for the sender's
 * address, the group check and the loopback filter; and the completion's byte_len, which
 * {@link DatagramPath#payloadLength} turns into the length of the slice handed to the handler.
 * Both must be total: an address (or null) for any 40 bytes, read only inside them (the test
 * hands in segments of exactly 40 bytes, heap and native, whose bounds are checked), and -1 or a
 * length inside the posted buffer for any byte_len.
 *
 * <p>Tries: {@code jqwik.tries.default}; campaign {@code -Djqwik.tries.default=1000000}.
 */
class DatagramHeaderFuzzTest {
    private static final AtomicLong HEADERS = new AtomicLong();
    private static final AtomicLong LENGTHS = new AtomicLong();

    @Provide
    Arbitrary<byte[]> header() {
        Arbitrary<byte[]> gid = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.bytes().array(byte[].class).ofSize(4).map(v4 -> {   // ::ffff:a.b.c.d
                    byte[] g = new byte[16];
                    g[10] = (byte) 0xFF;
                    g[11] = (byte) 0xFF;
                    System.arraycopy(v4, 0, g, 12, 4);
                    return g;
                })),
                Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofSize(14).map(rest -> {   // ff0e::/16 multicast
                    byte[] g = new byte[16];
                    g[0] = (byte) 0xFF;
                    g[1] = 0x0E;
                    System.arraycopy(rest, 0, g, 2, 14);
                    return g;
                })),
                Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofSize(16)));
        Arbitrary<byte[]> grh = Combinators.combine(Arbitraries.bytes().array(byte[].class).ofSize(8), gid, gid)
                .as((head, sgid, dgid) -> {   // IB/RoCE v1 GRH: version 6 in the top nibble, GIDs at 8 and 24
                    byte[] b = new byte[40];
                    System.arraycopy(head, 0, b, 0, 8);
                    b[0] = (byte) (0x60 | (b[0] & 0x0F));
                    System.arraycopy(sgid, 0, b, 8, 16);
                    System.arraycopy(dgid, 0, b, 24, 16);
                    return b;
                });
        Arbitrary<Integer> versionIhl = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.just(0x45)),
                Tuple.of(1, Arbitraries.of(0x44, 0x46, 0x4F, 0x65, 0x00, 0xFF, 0x60)),
                Tuple.of(1, Arbitraries.integers().between(0, 255)));
        Arbitrary<byte[]> roceV2 = Combinators.combine(Arbitraries.bytes().array(byte[].class).ofSize(40),
                        Arbitraries.of(true, false), versionIhl)
                .as((b, zeroFirstHalf, vi) -> {   // RoCE v2 over IPv4: the IPv4 header in bytes 20..39
                    byte[] h = b.clone();
                    if (zeroFirstHalf) {
                        Arrays.fill(h, 0, 20, (byte) 0);
                    }
                    h[20] = (byte) (int) vi;
                    return h;
                });
        return Arbitraries.frequencyOf(
                Tuple.of(2, grh), Tuple.of(2, roceV2), Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofSize(40)));
    }

    @Property
    void grhAddressReadsTheRightFieldsForAnyHeader(@ForAll("header") byte[] in, @ForAll boolean source) throws Exception {
        HEADERS.incrementAndGet();
        InetAddress expected = (in[20] & 0xFF) == 0x45
                ? InetAddress.getByAddress(Arrays.copyOfRange(in, source ? 32 : 36, source ? 36 : 40))
                : InetAddress.getByAddress(Arrays.copyOfRange(in, source ? 8 : 24, source ? 24 : 40));
        Statistics.label("layout").collect((in[20] & 0xFF) == 0x45 ? "RoCE v2 IPv4" : "GRH",
                expected.getClass().getSimpleName());
        assertThat(DatagramPath.grhAddress(MemorySegment.ofArray(in.clone()), source)).isEqualTo(expected);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(40);
            MemorySegment.copy(in, 0, buf, ValueLayout.JAVA_BYTE, 0, 40);
            assertThat(DatagramPath.grhAddress(buf, source)).isEqualTo(expected);
        }
    }

    @Provide
    Arbitrary<Integer> mtu() {
        return Arbitraries.of(256, 512, 1024, 2048, 4096);   // the IB MTUs
    }

    @Property
    void payloadLengthIsInsideThePostedBufferOrRejected(@ForAll("mtu") int mtu, @ForAll int any,
                                                        @ForAll boolean relative, @ForAll boolean nearGrh) {
        LENGTHS.incrementAndGet();
        int near = Math.floorMod(any, 7) - 3;
        int slot = SlotPool.sizeClass(mtu + DatagramPath.GRH);   // what the receive buffer really holds
        int byteLength = !relative ? any : nearGrh ? DatagramPath.GRH + near
                : (any & 8) == 0 ? mtu + DatagramPath.GRH + near : slot + near;
        int length = DatagramPath.payloadLength(byteLength, mtu);
        long unsigned = Integer.toUnsignedLong(byteLength);
        boolean fits = unsigned >= DatagramPath.GRH && unsigned <= mtu + DatagramPath.GRH;
        Statistics.label("byte_len").collect(fits ? "a datagram" : unsigned < DatagramPath.GRH ? "shorter than the GRH"
                : "beyond the posted buffer");
        if (fits) {
            assertThat(length).isEqualTo(unsigned - DatagramPath.GRH);
            assertThat(DatagramPath.GRH + length).isLessThanOrEqualTo(slot);
        } else {
            assertThat(length).isEqualTo(-1);
        }
    }

    @AfterContainer
    static void report() {
        System.out.println(FuzzSupport.report("DatagramPath.grhAddress (GRH / RoCE v2 header)", HEADERS));
        System.out.println(FuzzSupport.report("DatagramPath.payloadLength (byte_len)", LENGTHS));
    }
}
