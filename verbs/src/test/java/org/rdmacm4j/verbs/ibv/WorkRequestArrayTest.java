package org.rdmacm4j.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Layouts;

/** The mechanics shared by SendRequests and RecvRequests, for both C types (no device needed). */
class WorkRequestArrayTest {

    @Test
    void linkAndBadIndexUseTheStrideOfEitherStruct() {
        for (CStruct t : new CStruct[] {Layouts.IBV_SEND_WR, Layouts.IBV_RECV_WR}) {
            WorkRequestArray a = new WorkRequestArray(t, 3, 2);
            try {
                MemorySegment w = a.wrs;
                long stride = t.size();
                long next = t.offset("next");
                a.link(3);
                assertThat(w.get(JAVA_LONG, next)).as(t.cName()).isEqualTo(w.address() + stride);
                assertThat(w.get(JAVA_LONG, stride + next)).isEqualTo(w.address() + 2 * stride);
                assertThat(w.get(JAVA_LONG, 2 * stride + next)).isZero();
                a.link(2);
                assertThat(w.get(JAVA_LONG, stride + next)).isZero();
                assertThat(a.badIndex()).isEqualTo(-1);
                a.badWr.set(JAVA_LONG, 0, w.address() + 2 * stride);
                assertThat(a.badIndex()).isEqualTo(2);
                assertThat(a.at(2)).isEqualTo(2 * stride);
            } finally {
                a.close();
            }
        }
    }

    @Test
    void eachRequestOwnsItsSgeSlotsAndClearKeepsThem() {
        CStruct t = Layouts.IBV_RECV_WR;
        WorkRequestArray a = new WorkRequestArray(t, 2, 3);
        try {
            long off = a.at(1);
            long sgList = a.wrs.get(JAVA_LONG, off + t.offset("sg_list"));
            long sgeSize = Layouts.IBV_SGE.size();
            assertThat(sgList - a.wrs.get(JAVA_LONG, t.offset("sg_list"))).isEqualTo(3 * sgeSize);
            a.sge(1, 1, 0x5000, 32, 0x42);
            a.sge(1, 0, 0x6000, 16, 0x43);
            assertThat(a.wrs.get(JAVA_INT, off + t.offset("num_sge"))).as("never lowered").isEqualTo(2);
            MemorySegment sg = MemorySegment.ofAddress(sgList).reinterpret(3 * sgeSize);
            assertThat(sg.get(JAVA_LONG, sgeSize + Layouts.IBV_SGE.offset("addr"))).isEqualTo(0x5000);
            assertThat(sg.get(JAVA_INT, sgeSize + Layouts.IBV_SGE.offset("length"))).isEqualTo(32);
            assertThat(sg.get(JAVA_INT, sgeSize + Layouts.IBV_SGE.offset("lkey"))).isEqualTo(0x42);
            assertThat(sg.get(JAVA_LONG, Layouts.IBV_SGE.offset("addr"))).isEqualTo(0x6000);
            a.wrs.set(JAVA_LONG, off + t.offset("wr_id"), 99);
            a.wrs.set(JAVA_LONG, t.offset("wr_id"), 7);
            assertThat(a.clear(1)).isEqualTo(off);
            assertThat(a.wrs.get(JAVA_LONG, t.offset("wr_id"))).as("request 0 untouched").isEqualTo(7);
            assertThat(a.wrs.get(JAVA_LONG, off + t.offset("wr_id"))).isZero();
            assertThat(a.wrs.get(JAVA_INT, off + t.offset("num_sge"))).isZero();
            assertThat(a.wrs.get(JAVA_LONG, off + t.offset("sg_list"))).isEqualTo(sgList);
        } finally {
            a.close();
        }
    }

    @Test
    void argumentsAreCheckedWithTheMessagesOfThePublicClasses() {
        WorkRequestArray a = new WorkRequestArray(Layouts.IBV_SEND_WR, 3, 2);
        assertThatThrownBy(() -> a.at(3)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("request 3 of 3");
        assertThatThrownBy(() -> a.sge(0, 2, 0, 1, 0)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("sge 2 of 2");
        assertThatThrownBy(() -> a.sge(0, 0, 0, -1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("length -1 is negative");
        assertThatThrownBy(() -> a.link(4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("count 4 is outside 1..3");
        assertThatThrownBy(() -> new WorkRequestArray(Layouts.IBV_RECV_WR, 1, 65))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacity 1 (1..65536) or maxSge 65 (1..64) out of range");
        assertThatThrownBy(() -> RecvRequests.allocate(65537, 1))
                .hasMessage("capacity 65537 (1..65536) or maxSge 1 (1..64) out of range");
        a.close();
        a.close();
        assertThatThrownBy(() -> a.link(1)).isInstanceOf(IllegalStateException.class);
    }
}
