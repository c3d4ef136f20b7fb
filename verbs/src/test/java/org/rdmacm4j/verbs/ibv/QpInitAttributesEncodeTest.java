package org.rdmacm4j.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Layouts;

/**
 * {@link QpInitAttributes#encode} (seven writes, fields paired in words) against the ten field-by-field
 * writes into zeroed memory it replaced (issue 21): random values, byte for byte.
 */
class QpInitAttributesEncodeTest {
    @Test
    void encodesAsTheFieldByFieldWrites() {
        Random r = new Random(156);
        CStruct t = Layouts.IBV_QP_INIT_ATTR;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment expected = arena.allocate(t.size(), 8);
            MemorySegment actual = arena.allocate(t.size(), 8);
            for (int round = 0; round < 5000; round++) {
                long send = r.nextLong();
                long recv = r.nextBoolean() ? send : r.nextLong();
                long srq = r.nextBoolean() ? 0L : r.nextLong();
                int[] v = {r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(4)};
                boolean all = r.nextBoolean();
                expected.fill((byte) 0);
                expected.set(JAVA_LONG_UNALIGNED, t.offset("send_cq"), send);
                expected.set(JAVA_LONG_UNALIGNED, t.offset("recv_cq"), recv);
                expected.set(JAVA_LONG_UNALIGNED, t.offset("srq"), srq);
                expected.set(JAVA_INT_UNALIGNED, t.offset("cap.max_send_wr"), v[0]);
                expected.set(JAVA_INT_UNALIGNED, t.offset("cap.max_recv_wr"), v[1]);
                expected.set(JAVA_INT_UNALIGNED, t.offset("cap.max_send_sge"), v[2]);
                expected.set(JAVA_INT_UNALIGNED, t.offset("cap.max_recv_sge"), v[3]);
                expected.set(JAVA_INT_UNALIGNED, t.offset("cap.max_inline_data"), v[4]);
                expected.set(JAVA_INT_UNALIGNED, t.offset("qp_type"), v[5]);
                expected.set(JAVA_INT_UNALIGNED, t.offset("sq_sig_all"), all ? 1 : 0);
                actual.fill((byte) 0);   // zeroed, as both callers' Scratch slices are
                QpInitAttributes.encode(actual, send, recv, srq, v[0], v[1], v[2], v[3], v[4], v[5], all);
                assertThat(actual.toArray(JAVA_BYTE)).isEqualTo(expected.toArray(JAVA_BYTE));
            }
        }
    }
}
