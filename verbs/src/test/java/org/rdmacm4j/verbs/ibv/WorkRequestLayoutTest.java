package org.rdmacm4j.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.internal.Layouts;

/** The pre-laid-out work requests and completions, checked byte by byte (no device needed). */
class WorkRequestLayoutTest {

    @Test
    void sendRequestsAreChainedAndFilledWhereTheCStructHasThem() {
        try (SendRequests r = SendRequests.allocate(3, 2)) {
            r.set(0, 11, WrOpcode.SEND_WITH_IMM, SendFlags.SIGNALED | SendFlags.INLINE)
                    .sge(0, 0, 0x1000, 64, 0x77).sge(0, 1, 0x2000, 8, 0x78).immData(0, 0x01020304);
            r.set(1, 12, WrOpcode.RDMA_WRITE, 0).sge(1, 0, 0x3000, 16, 0x79).rdma(1, 0xABCDEF00L, 0x55);
            r.set(2, 13, WrOpcode.ATOMIC_CMP_AND_SWP, SendFlags.SIGNALED).sge(2, 0, 0x4000, 8, 0x7A)
                    .atomic(2, 0x9000, 0x66, 5, 9);
            r.link(3);
            MemorySegment w = r.segment();
            long stride = Layouts.IBV_SEND_WR.size();
            var t = Layouts.IBV_SEND_WR;
            assertThat(w.get(JAVA_LONG, t.offset("wr_id"))).isEqualTo(11);
            assertThat(w.get(JAVA_LONG, t.offset("next"))).isEqualTo(w.address() + stride);
            assertThat(w.get(JAVA_LONG, stride + t.offset("next"))).isEqualTo(w.address() + 2 * stride);
            assertThat(w.get(JAVA_LONG, 2 * stride + t.offset("next"))).isZero();
            assertThat(w.get(JAVA_INT, t.offset("num_sge"))).isEqualTo(2);
            assertThat(w.get(JAVA_INT, t.offset("opcode"))).isEqualTo(3);
            assertThat(w.get(JAVA_INT, t.offset("send_flags"))).isEqualTo(2 | 8);
            assertThat(w.get(JAVA_INT, t.offset("imm_data"))).as("network order").isEqualTo(0x04030201);
            assertThat(w.get(JAVA_LONG, stride + t.offset("wr.rdma.remote_addr"))).isEqualTo(0xABCDEF00L);
            assertThat(w.get(JAVA_INT, stride + t.offset("wr.rdma.rkey"))).isEqualTo(0x55);
            assertThat(w.get(JAVA_LONG, 2 * stride + t.offset("wr.atomic.compare_add"))).isEqualTo(5);
            assertThat(w.get(JAVA_LONG, 2 * stride + t.offset("wr.atomic.swap"))).isEqualTo(9);
            assertThat(w.get(JAVA_INT, 2 * stride + t.offset("wr.atomic.rkey"))).isEqualTo(0x66);

            MemorySegment sg = MemorySegment.ofAddress(w.get(JAVA_LONG, t.offset("sg_list")))
                    .reinterpret(2 * Layouts.IBV_SGE.size());
            assertThat(sg.get(JAVA_LONG, 0)).isEqualTo(0x1000);
            assertThat(sg.get(JAVA_INT, 8)).isEqualTo(64);
            assertThat(sg.get(JAVA_INT, 12)).isEqualTo(0x77);
            assertThat(sg.get(JAVA_LONG, 16)).isEqualTo(0x2000);
            r.link(1);
            assertThat(w.get(JAVA_LONG, t.offset("next"))).isZero();
            r.reset(0);
            assertThat(w.get(JAVA_INT, t.offset("num_sge"))).isZero();
            assertThat(w.get(JAVA_LONG, t.offset("sg_list"))).isEqualTo(sg.address());
        }
    }

    @Test
    void outOfRangeArgumentsFailBeforeAnythingIsPosted() {
        try (SendRequests r = SendRequests.allocate(2, 1); RecvRequests q = RecvRequests.allocate(2, 1)) {
            assertThatThrownBy(() -> r.sge(2, 0, 0, 1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> r.sge(0, 1, 0, 1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> r.sge(0, 0, 0, -1, 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> r.atomic(0, 0x1001, 1, 0, 0)).hasMessageContaining("8-byte aligned");
            assertThatThrownBy(() -> r.link(3)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> q.link(0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> q.sge(0, 1, 0, 1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        }
        assertThatThrownBy(() -> SendRequests.allocate(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WorkCompletions.allocate(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void workCompletionsReadEveryFieldFromTheCOffsets() {
        try (WorkCompletions wc = WorkCompletions.allocate(4)) {
            MemorySegment a = wc.segment();
            var t = Layouts.IBV_WC;
            long s = t.size();
            a.set(JAVA_LONG, s + t.offset("wr_id"), 42);
            a.set(JAVA_INT, s + t.offset("status"), WcStatus.REM_ACCESS_ERR.value());
            a.set(JAVA_INT, s + t.offset("opcode"), WcOpcode.RECV_RDMA_WITH_IMM.value());
            a.set(JAVA_INT, s + t.offset("byte_len"), 4096);
            a.set(JAVA_INT, s + t.offset("imm_data"), 0x04030201);
            a.set(JAVA_INT, s + t.offset("qp_num"), 17);
            a.set(JAVA_INT, s + t.offset("wc_flags"), WcFlags.WITH_IMM);
            wc.filled(2);
            assertThat(wc.count()).isEqualTo(2);
            assertThat(wc.wrId(1)).isEqualTo(42);
            assertThat(wc.status(1)).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(wc.opcode(1)).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(wc.byteLength(1)).isEqualTo(4096);
            assertThat(wc.immData(1)).isEqualTo(0x01020304);
            assertThat(wc.qpNum(1)).isEqualTo(17);
            assertThat(wc.flags(1) & WcFlags.WITH_IMM).isNotZero();
            assertThatThrownBy(() -> wc.wrId(2)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void enumLookupsAreExactAndUnknownValuesAreRejected() {
        assertThat(WcOpcode.of(128)).isEqualTo(WcOpcode.RECV);
        assertThat(QpType.of(4)).isEqualTo(QpType.UD);
        assertThat(AsyncEventType.of(15).element()).isEqualTo(AsyncEventType.Element.SRQ);
        assertThat(AsyncEventType.PORT_ERR.element()).isEqualTo(AsyncEventType.Element.PORT);
        assertThatThrownBy(() -> WcOpcode.of(8)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> QpState.of(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pureLibraryStringsComeFromLibibverbs() {
        assertThat(WcStatus.SUCCESS.describe()).isEqualTo("success");
        assertThat(WcStatus.RETRY_EXC_ERR.describe()).isEqualTo("transport retry counter exceeded");
        assertThat(AsyncEventType.QP_FATAL.describe()).isEqualTo("local work queue catastrophic error");
    }
}
