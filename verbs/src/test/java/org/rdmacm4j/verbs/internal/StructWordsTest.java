package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.cm.ConnParam;

/**
 * Pins {@link Words} and every struct encoded or decoded through it against the field-by-field
 * segment accesses it replaced (kept here as the reference, issue 21): random structs both ways,
 * compared field by field and byte by byte.
 */
class StructWordsTest {
    private static final int ROUNDS = 2000;

    @Test
    void wordsPackAsMemoryHoldsThem() {
        Random r = new Random(21);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(8, 8);
            for (int round = 0; round < ROUNDS; round++) {
                int lo = r.nextInt();
                int hi = r.nextInt();
                s.set(JAVA_INT_UNALIGNED, 0, lo);
                s.set(JAVA_INT_UNALIGNED, 4, hi);
                long w = s.get(JAVA_LONG_UNALIGNED, 0);
                assertThat(Words.ints(lo, hi)).isEqualTo(w);
                assertThat(Words.lo(w)).isEqualTo(lo);
                assertThat(Words.hi(w)).isEqualTo(hi);
                for (int at = 0; at <= 6; at++) {
                    assertThat(Words.u16(w, at)).isEqualTo(Short.toUnsignedInt(s.get(JAVA_SHORT_UNALIGNED, at)));
                }
                short s0 = (short) r.nextInt();
                short s1 = (short) r.nextInt();
                s.set(JAVA_SHORT_UNALIGNED, 0, s0);
                s.set(JAVA_SHORT_UNALIGNED, 2, s1);
                assertThat(Words.shorts(s0, s1)).as("sign bits of lo must not reach hi")
                        .isEqualTo(s.get(JAVA_INT_UNALIGNED, 0));
                int[] b = new int[8];
                for (int i = 0; i < 8; i++) {
                    b[i] = r.nextInt();   // only the low 8 bits count
                    s.set(JAVA_BYTE, i, (byte) b[i]);
                }
                assertThat(Words.bytes(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]))
                        .isEqualTo(s.get(JAVA_LONG_UNALIGNED, 0));
            }
        }
    }

    @Test
    void theWordCheckRefusesFieldsOutsideTheWord() {
        assertThat(ByteOrder.nativeOrder()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
        Words.check("ok", 8, 4, 8, 12);
        assertThatThrownBy(() -> Words.check("gap", 8, 4, 8, 16)).isInstanceOf(ExceptionInInitializerError.class);
        assertThatThrownBy(() -> Words.check("past", 8, 4, 12)).isInstanceOf(ExceptionInInitializerError.class);
        assertThatThrownBy(() -> Words.check("unaligned", 4, 4, 4, 8)).isInstanceOf(ExceptionInInitializerError.class);
    }

    @Test
    void connParamDecodesAsTheFieldByFieldReads() {
        Random r = new Random(106);
        CStruct cp = Layouts.RDMA_CONN_PARAM;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(256);
            fill(buffer, r);
            MemorySegment at = arena.allocate(cp.size() + 40, 8);
            for (int round = 0; round < ROUNDS; round++) {
                fill(at, r);
                long offset = r.nextInt(5) * 8;
                at.set(JAVA_LONG_UNALIGNED, offset + cp.offset("private_data"),
                        r.nextInt(4) == 0 ? 0L : buffer.address());
                ConnParam expected = referenceConnParam(at, offset);
                assertThat(Decode.connParam(at, offset)).isEqualTo(expected);
                assertThat(Decode.connParam(Decode.ALL_MEMORY, at.address() + offset)).isEqualTo(expected);
            }
        }
    }

    @Test
    void connParamEncodesAsTheFieldByFieldWrites() {
        Random r = new Random(9);
        CStruct cp = Layouts.RDMA_CONN_PARAM;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(256);
            MemorySegment expected = arena.allocate(cp.size(), 8);
            MemorySegment actual = arena.allocate(cp.size(), 8);
            for (int round = 0; round < ROUNDS; round++) {
                byte[] pd = new byte[r.nextInt(4) == 0 ? 0 : r.nextInt(256)];
                r.nextBytes(pd);
                ConnParam c = new ConnParam(pd, r.nextInt(256), r.nextInt(256), r.nextInt(256), r.nextInt(256),
                        r.nextInt(256), r.nextInt(256), r.nextInt());
                expected.fill((byte) 0);
                referenceConnParam(c, expected, data);
                actual.fill((byte) 0);   // zeroed, as the callers' Scratch slices are
                Decode.connParam(c, actual, data);
                assertThat(actual.toArray(JAVA_BYTE)).isEqualTo(expected.toArray(JAVA_BYTE));
                assertThat(Decode.connParam(actual, 0)).isEqualTo(c);
                // the one-block form: the same fields, the data right after the struct and pointed to
                MemorySegment block = arena.allocate(Decode.connParamSize(pd.length), 8);
                Decode.connParam(c, pd, block);
                assertThat(block.asSlice(8, cp.size() - 8).toArray(JAVA_BYTE))
                        .isEqualTo(expected.asSlice(8, cp.size() - 8).toArray(JAVA_BYTE));
                assertThat(block.get(JAVA_LONG_UNALIGNED, 0)).isEqualTo(pd.length == 0 ? 0L : block.address() + cp.size());
                assertThat(block.asSlice(cp.size()).toArray(JAVA_BYTE)).isEqualTo(pd);
                assertThat(Decode.connParam(block, 0)).isEqualTo(c);
            }
        }
    }

    @Test
    void sockaddrsRoundTripAsTheFieldByFieldPath() throws UnknownHostException {
        Random r = new Random(54);
        try (Arena arena = Arena.ofConfined()) {
            long storage = Layouts.SOCKADDR_STORAGE.size();
            for (int round = 0; round < ROUNDS; round++) {
                byte[] ip = new byte[r.nextInt(8) == 0 ? 16 : 4];
                r.nextBytes(ip);
                int port = r.nextInt(65536);
                InetSocketAddress a = new InetSocketAddress(InetAddress.getByAddress(ip), port);
                MemorySegment expected = arena.allocate(storage, 8);
                referenceWrite(expected, a);
                MemorySegment actual = Sockaddrs.write(arena, a);
                assertThat(actual.toArray(JAVA_BYTE)).isEqualTo(expected.toArray(JAVA_BYTE));
                assertThat(Sockaddrs.read(actual)).isEqualTo(a);
                if (ip.length == 4) {
                    assertThat(Sockaddrs.read(actual)).isEqualTo(referenceRead(actual, 0));
                }
                // random bytes behind a valid family, read at an offset inside a bigger struct
                MemorySegment junk = arena.allocate(storage + 16, 8);
                fill(junk, r);
                junk.set(JAVA_SHORT_UNALIGNED, 16, r.nextBoolean() ? Sockaddrs.AF_INET : (short) r.nextInt(3));
                assertThat(Sockaddrs.read(junk, 16)).isEqualTo(referenceRead(junk, 16));
            }
        }
    }

    @Test
    void aPointerReadAsALongGivesTheSegmentOfAPointerFieldRead() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(Layouts.RDMA_CM_ID.size());
            MemorySegment cell = arena.allocate(8, 8);
            cell.set(JAVA_LONG_UNALIGNED, 0, target.address());
            MemorySegment viaField = cell.get(Layouts.RDMA_CM_ID.pointerField(), 0);
            MemorySegment viaAt = Layouts.RDMA_CM_ID.at(cell.get(JAVA_LONG_UNALIGNED, 0));
            assertThat(viaAt.address()).isEqualTo(viaField.address());
            assertThat(viaAt.byteSize()).isEqualTo(viaField.byteSize()).isEqualTo(Layouts.RDMA_CM_ID.size());
            assertThat(viaAt.scope()).isEqualTo(viaField.scope());
            assertThat(viaAt.isNative()).isTrue();
            assertThatThrownBy(() -> Layouts.RDMA_CM_ID.at(0L)).as("NULL is refused, not sized")
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    // ---- the reference: the field-by-field code the images replaced (issue 21) ----

    private static ConnParam referenceConnParam(MemorySegment s, long offset) {
        CStruct cp = Layouts.RDMA_CONN_PARAM;
        long pointer = s.get(JAVA_LONG_UNALIGNED, offset + cp.offset("private_data"));
        int len = Decode.u8(s, offset + cp.offset("private_data_len"));
        byte[] pd = len == 0 || pointer == 0L ? new byte[0]
                : Decode.ALL_MEMORY.asSlice(pointer, len).toArray(JAVA_BYTE);
        return new ConnParam(pd, Decode.u8(s, offset + cp.offset("responder_resources")),
                Decode.u8(s, offset + cp.offset("initiator_depth")), Decode.u8(s, offset + cp.offset("flow_control")),
                Decode.u8(s, offset + cp.offset("retry_count")), Decode.u8(s, offset + cp.offset("rnr_retry_count")),
                Decode.u8(s, offset + cp.offset("srq")), s.get(JAVA_INT_UNALIGNED, offset + cp.offset("qp_num")));
    }

    private static void referenceConnParam(ConnParam c, MemorySegment p, MemorySegment data) {
        CStruct cp = Layouts.RDMA_CONN_PARAM;
        byte[] pd = c.privateData();
        MemorySegment.copy(pd, 0, data, JAVA_BYTE, 0, pd.length);
        p.set(JAVA_LONG_UNALIGNED, cp.offset("private_data"), pd.length == 0 ? 0L : data.address());
        p.set(JAVA_BYTE, cp.offset("private_data_len"), (byte) pd.length);
        p.set(JAVA_BYTE, cp.offset("responder_resources"), (byte) c.responderResources());
        p.set(JAVA_BYTE, cp.offset("initiator_depth"), (byte) c.initiatorDepth());
        p.set(JAVA_BYTE, cp.offset("flow_control"), (byte) c.flowControl());
        p.set(JAVA_BYTE, cp.offset("retry_count"), (byte) c.retryCount());
        p.set(JAVA_BYTE, cp.offset("rnr_retry_count"), (byte) c.rnrRetryCount());
        p.set(JAVA_BYTE, cp.offset("srq"), (byte) c.srq());
        p.set(JAVA_INT_UNALIGNED, cp.offset("qp_num"), c.qpNum());
    }

    private static final ValueLayout.OfShort BE16 = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).withByteAlignment(1);

    private static void referenceWrite(MemorySegment s, InetSocketAddress a) {
        InetAddress ip = a.getAddress();
        if (ip instanceof Inet4Address) {
            s.set(JAVA_SHORT_UNALIGNED, Layouts.SOCKADDR_IN.offset("sin_family"), Sockaddrs.AF_INET);
            s.set(BE16, Layouts.SOCKADDR_IN.offset("sin_port"), (short) a.getPort());
            MemorySegment.copy(ip.getAddress(), 0, s, JAVA_BYTE, Layouts.SOCKADDR_IN.offset("sin_addr"), 4);
        } else {
            Inet6Address v6 = (Inet6Address) ip;
            s.set(JAVA_SHORT_UNALIGNED, 0, Sockaddrs.AF_INET6);
            s.set(BE16, Layouts.SOCKADDR_IN6.offset("sin6_port"), (short) a.getPort());
            MemorySegment.copy(ip.getAddress(), 0, s, JAVA_BYTE, Layouts.SOCKADDR_IN6.offset("sin6_addr"), 16);
            s.set(JAVA_INT_UNALIGNED, Layouts.SOCKADDR_IN6.offset("sin6_scope_id"), v6.getScopeId());
        }
    }

    private static InetSocketAddress referenceRead(MemorySegment s, long offset) throws UnknownHostException {
        short family = s.get(JAVA_SHORT_UNALIGNED, offset);
        if (family == Sockaddrs.AF_INET) {
            byte[] b = new byte[4];
            MemorySegment.copy(s, JAVA_BYTE, offset + Layouts.SOCKADDR_IN.offset("sin_addr"), b, 0, 4);
            return new InetSocketAddress(InetAddress.getByAddress(b),
                    Short.toUnsignedInt(s.get(BE16, offset + Layouts.SOCKADDR_IN.offset("sin_port"))));
        }
        if (family == Sockaddrs.AF_INET6) {
            throw new AssertionError("not generated");
        }
        return null;
    }

    static void fill(MemorySegment s, Random r) {
        byte[] b = new byte[(int) s.byteSize()];
        r.nextBytes(b);
        MemorySegment.copy(b, 0, s, JAVA_BYTE, 0, b.length);
    }
}
