package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.UdParam;

/**
 * Fuzz test of where the peer's bytes first cross from native memory into Java: the private data
 * (and, for a SIDR reply, the address vector the kernel built from it) that librdmacm leaves in
 * the event's {@code struct rdma_conn_param} / {@code struct rdma_ud_param}, copied by
 * {@link Decode#connParam} and {@link Decode#udParam} before the event is acked. The length that
 * sizes the native read is the struct's {@code uint8_t private_data_len}; the buffer behind the
 * pointer is the ucma event's {@code __u8 private_data[RDMA_MAX_PRIVATE_DATA]} (256,
 * rdma/rdma_cma_abi.h), so no value of the field can read past it. Here every byte of the struct
 * is random (structure-aware: the pointer is a 256-byte buffer like librdmacm's, or NULL), and
 * the copy must be exactly the first {@code private_data_len} bytes of that buffer, with every
 * other field read in range (the records' constructors check ranges: a decode that produced an
 * out-of-range value would throw).
 *
 * <p>Tries: {@code jqwik.tries.default}; campaign {@code -Djqwik.tries.default=1000000}.
 */
class CmEventDecodeFuzzTest {
    /** RDMA_MAX_PRIVATE_DATA, rdma/rdma_cma_abi.h: the buffer librdmacm points private_data at. */
    private static final int RDMA_MAX_PRIVATE_DATA = 256;
    private static final AtomicLong CONN = new AtomicLong();
    private static final AtomicLong UD = new AtomicLong();

    @Test
    void theLengthThatSizesTheReadIsOneByte() {
        for (CStruct s : new CStruct[] {Layouts.RDMA_CONN_PARAM, Layouts.RDMA_UD_PARAM}) {
            CStruct.Field len = s.fields().stream().filter(f -> f.path().equals("private_data_len")).findFirst()
                    .orElseThrow();
            assertThat(len.size()).as("%s.private_data_len", s.cName()).isEqualTo(1);
        }
        assertThat(255).isLessThan(RDMA_MAX_PRIVATE_DATA);
    }

    @Provide
    Arbitrary<byte[]> structBytes() {
        return Arbitraries.bytes().array(byte[].class).ofSize((int) Math.max(Layouts.RDMA_CONN_PARAM.size(),
                Layouts.RDMA_UD_PARAM.size()));
    }

    @Provide
    Arbitrary<byte[]> privateData() {
        return Arbitraries.bytes().array(byte[].class).ofSize(RDMA_MAX_PRIVATE_DATA);
    }

    @Provide
    Arbitrary<Integer> length() {
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.integers().between(0, 255)),
                Tuple.of(1, Arbitraries.of(0, 1, 2, 55, 56, 57, 148, 180, 196, 254, 255)));
    }

    /** librdmacm leaves the pointer NULL for an event without private data. */
    @Provide
    Arbitrary<Boolean> nullPointer() {
        return Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(true)), Tuple.of(7, Arbitraries.just(false)));
    }

    @Property
    void connParamCopiesExactlyTheAdvertisedBytes(@ForAll("structBytes") byte[] raw, @ForAll("privateData") byte[] data,
                                                  @ForAll("length") int length, @ForAll("nullPointer") boolean nullPointer) {
        CONN.incrementAndGet();
        CStruct cp = Layouts.RDMA_CONN_PARAM;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p = arena.allocate(cp.size(), cp.alignment());
            MemorySegment.copy(raw, 0, p, JAVA_BYTE, 0, (int) cp.size());
            MemorySegment buf = arena.allocate(RDMA_MAX_PRIVATE_DATA);
            MemorySegment.copy(data, 0, buf, JAVA_BYTE, 0, RDMA_MAX_PRIVATE_DATA);
            p.set(ADDRESS, cp.offset("private_data"), nullPointer ? MemorySegment.NULL : buf);
            p.set(JAVA_BYTE, cp.offset("private_data_len"), (byte) length);

            ConnParam c = Decode.connParam(p);
            Statistics.label("private data").collect(nullPointer ? "NULL" : length == 0 ? "empty" : "bytes");
            assertThat(c.privateData()).isEqualTo(nullPointer ? new byte[0] : Arrays.copyOf(data, length));
            assertThat(c.responderResources()).isEqualTo(Decode.u8(p, cp.offset("responder_resources")));
            assertThat(c.rnrRetryCount()).isEqualTo(Decode.u8(p, cp.offset("rnr_retry_count")));
            // every field, each against a byte read of its own (connParam reads them as one word)
            assertThat(c.initiatorDepth()).isEqualTo(Decode.u8(p, cp.offset("initiator_depth")));
            assertThat(c.flowControl()).isEqualTo(Decode.u8(p, cp.offset("flow_control")));
            assertThat(c.retryCount()).isEqualTo(Decode.u8(p, cp.offset("retry_count")));
            assertThat(c.srq()).isEqualTo(Decode.u8(p, cp.offset("srq")));
            assertThat(c.qpNum()).isEqualTo(p.get(JAVA_INT_UNALIGNED, cp.offset("qp_num")));

            // read in place inside a larger struct (the event's param union), as CmEventChannel does
            long at = 48;
            MemorySegment event = arena.allocate(at + cp.size(), 8);
            MemorySegment.copy(p, 0, event, at, cp.size());
            assertThat(Decode.connParam(event, at)).isEqualTo(c);
        }
    }

    @Property
    void udParamCopiesExactlyTheAdvertisedBytes(@ForAll("structBytes") byte[] raw, @ForAll("privateData") byte[] data,
                                                @ForAll("length") int length, @ForAll("nullPointer") boolean nullPointer) {
        UD.incrementAndGet();
        CStruct up = Layouts.RDMA_UD_PARAM;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p = arena.allocate(up.size(), up.alignment());
            MemorySegment.copy(raw, 0, p, JAVA_BYTE, 0, (int) up.size());
            MemorySegment buf = arena.allocate(RDMA_MAX_PRIVATE_DATA);
            MemorySegment.copy(data, 0, buf, JAVA_BYTE, 0, RDMA_MAX_PRIVATE_DATA);
            p.set(ADDRESS, up.offset("private_data"), nullPointer ? MemorySegment.NULL : buf);
            p.set(JAVA_BYTE, up.offset("private_data_len"), (byte) length);

            UdParam u = Decode.udParam(p);
            Statistics.label("private data").collect(nullPointer ? "NULL" : length == 0 ? "empty" : "bytes");
            assertThat(u.privateData()).isEqualTo(nullPointer ? new byte[0] : Arrays.copyOf(data, length));
            assertThat(u.ahAttr().dgid().raw())
                    .isEqualTo(Arrays.copyOfRange(raw, (int) up.offset("ah_attr.grh.dgid"),
                            (int) up.offset("ah_attr.grh.dgid") + 16));
        }
    }

    @AfterContainer
    static void report() {
        System.out.println(String.format("fuzz %-55s %,12d inputs", "Decode.connParam (rdma_conn_param):", CONN.get()));
        System.out.println(String.format("fuzz %-55s %,12d inputs", "Decode.udParam (rdma_ud_param):", UD.get()));
    }
}
