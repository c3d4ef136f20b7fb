package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.math.BigInteger;
import java.nio.ByteBuffer;
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

/**
 * Fuzz test of {@link RemoteRegion#fromBytes}, which reads a region the peer advertised (in a
 * message or in private data), and of the bounds check every one-sided operation makes against
 * it ({@link RemoteRegion#checkBounds}, {@link RemoteRegion#slice}): for any bytes and any offset
 * and length, the only exception is the documented IllegalArgumentException, a region read back
 * is exactly the big-endian fields, and an operation that passes the check lies inside the
 * advertised region (computed without overflow).
 *
 * <p>Tries: {@code jqwik.tries.default}; campaign {@code -Djqwik.tries.default=1000000}.
 */
class RemoteRegionFuzzTest {
    private static final AtomicLong PARSED = new AtomicLong();
    private static final AtomicLong BOUNDS = new AtomicLong();

    /** Advertisements: valid, with extra bytes, truncated, with a mutated length field, or noise. */
    @Provide
    Arbitrary<byte[]> advertised() {
        Arbitrary<Long> length = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(0, Long.MAX_VALUE)),
                Tuple.of(2, Arbitraries.of(0L, 1L, 8L, 4096L, Long.MAX_VALUE, -1L, Long.MIN_VALUE, 1L << 32)),
                Tuple.of(2, Arbitraries.longs()));
        Arbitrary<byte[]> valid = Combinators.combine(Arbitraries.longs(), Arbitraries.integers(), length,
                        Arbitraries.bytes().array(byte[].class).ofMaxSize(40))
                .as((address, rkey, len, extra) -> {
                    ByteBuffer b = ByteBuffer.allocate(RemoteRegion.BYTES + extra.length);
                    b.putLong(address).putInt(rkey).putLong(len).put(extra);   // big endian, as toBytes
                    return b.array();
                });
        return Arbitraries.frequencyOf(
                Tuple.of(4, valid),
                Tuple.of(2, valid.flatMap(b -> Arbitraries.integers().between(0, b.length)
                        .map(n -> Arrays.copyOf(b, n)))),
                Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMaxSize(64)));
    }

    @Property
    void fromBytesReadsTheFieldsOrThrowsIllegalArgument(@ForAll("advertised") byte[] in) {
        PARSED.incrementAndGet();
        RemoteRegion[] out = new RemoteRegion[1];
        Throwable thrown = catchThrowable(() -> out[0] = RemoteRegion.fromBytes(in));
        if (in.length < RemoteRegion.BYTES) {
            Statistics.label("outcome").collect("too short");
            assertThat(thrown).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(in.length + "");
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(in);
        long address = b.getLong();
        int rkey = b.getInt();
        long length = b.getLong();
        if (length < 0) {
            Statistics.label("outcome").collect("negative length");
            assertThat(thrown).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length");
            return;
        }
        Statistics.label("outcome").collect("region");
        assertThat(thrown).isNull();
        assertThat(out[0]).isEqualTo(new RemoteRegion(address, rkey, length));
        assertThat(RemoteRegion.fromBytes(out[0].toBytes())).isEqualTo(out[0]);
        assertThat(FuzzSupport.steadyAllocation(() -> RemoteRegion.fromBytes(in), 512))
                .as("bytes allocated reading %d bytes", in.length).isLessThanOrEqualTo(512);
    }

    @Provide
    Arbitrary<Long> extent() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(0, 1 << 20)),
                Tuple.of(2, Arbitraries.of(0L, 1L, 7L, 8L, Long.MAX_VALUE, Long.MAX_VALUE - 1, -1L, Long.MIN_VALUE)),
                Tuple.of(1, Arbitraries.longs()));
    }

    @Property
    void anOperationThatPassesTheCheckLiesInsideTheRegion(@ForAll("extent") long regionLength,
                                                         @ForAll long address, @ForAll("extent") long offset,
                                                         @ForAll("extent") long length) {
        BOUNDS.incrementAndGet();
        RemoteRegion r = new RemoteRegion(address, 7, Math.max(0, regionLength));
        BigInteger end = BigInteger.valueOf(offset).add(BigInteger.valueOf(length));
        boolean inside = offset >= 0 && length >= 0 && end.compareTo(BigInteger.valueOf(r.length())) <= 0;
        Statistics.label("inside").collect(inside);
        if (inside) {
            r.checkBounds(offset, length);
            RemoteRegion s = r.slice(offset, length);
            assertThat(s.length()).isEqualTo(length);
            assertThat(s.address()).isEqualTo(address + offset);
        } else {
            assertThatThrownBy(() -> r.checkBounds(offset, length)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> r.slice(offset, length)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @AfterContainer
    static void report() {
        System.out.println(FuzzSupport.report("RemoteRegion.fromBytes", PARSED));
        System.out.println(FuzzSupport.report("RemoteRegion.checkBounds/slice", BOUNDS));
    }
}
