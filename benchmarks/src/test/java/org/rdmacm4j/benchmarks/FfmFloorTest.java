package org.rdmacm4j.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.benchmarks.FfmFloor.Structs.offset;

import org.junit.jupiter.api.Test;

/**
 * FfmFloor's struct layouts against the offsets of librdmacm's and libibverbs' headers on 64-bit
 * Linux (rdma/rdma_cma.h, infiniband/verbs.h; the verbs module's layout conformance test checks its
 * own layouts of the same structs against the installed headers). A wrong offset here would make
 * the floor program write the QP type or the retry count into the wrong byte.
 */
class FfmFloorTest {

    @Test
    void theEventIsReadAtTheHeadersOffsets() {
        assertThat(offset(FfmFloor.Structs.CM_EVENT, "id")).isZero();
        assertThat(offset(FfmFloor.Structs.CM_EVENT, "listen_id")).isEqualTo(8);
        assertThat(offset(FfmFloor.Structs.CM_EVENT, "event")).isEqualTo(16);
        assertThat(offset(FfmFloor.Structs.CM_EVENT, "status")).isEqualTo(20);
        assertThat(offset(FfmFloor.Structs.CM_ID, "context")).isEqualTo(16);
    }

    @Test
    void theConnectionParametersAndQpAttributesAreWrittenAtTheHeadersOffsets() {
        assertThat(FfmFloor.Structs.CONN_PARAM.byteSize()).isEqualTo(24);
        assertThat(offset(FfmFloor.Structs.CONN_PARAM, "responder_resources")).isEqualTo(9);
        assertThat(offset(FfmFloor.Structs.CONN_PARAM, "initiator_depth")).isEqualTo(10);
        assertThat(offset(FfmFloor.Structs.CONN_PARAM, "retry_count")).isEqualTo(12);
        assertThat(offset(FfmFloor.Structs.CONN_PARAM, "qp_num")).isEqualTo(16);
        assertThat(FfmFloor.Structs.QP_INIT_ATTR.byteSize()).isEqualTo(64);
        assertThat(offset(FfmFloor.Structs.QP_INIT_ATTR, "cap")).isEqualTo(32);
        assertThat(offset(FfmFloor.Structs.QP_INIT_ATTR, "qp_type")).isEqualTo(52);
        assertThat(offset(FfmFloor.Structs.QP_INIT_ATTR, "sq_sig_all")).isEqualTo(56);
    }

    @Test
    void theArgumentsAreTheCLoopsForEachMode() {
        assertThat(FloorLoop.Args.parse("F", new String[] {"latency", "192.0.2.1", "192.0.2.3", "7000", "300"}))
                .isEqualTo(new FloorLoop.Args("192.0.2.1", "192.0.2.3", 7000, 300, 0, 0));
        assertThat(FloorLoop.Args.parse("F", new String[] {"warm", "s", "c", "7000", "2000", "1001", "500"}))
                .isEqualTo(new FloorLoop.Args("s", "c", 7000, 2000, 1001, 500));
        assertThat(FloorLoop.Args.parse("F", new String[] {"storm", "s", "c", "7000", "500"}))
                .isEqualTo(new FloorLoop.Args("s", "c", 7000, 0, 0, 500));
    }

    @Test
    void badArgumentsAreRefusedWithTheUsageOrTheRule() {
        assertThatThrownBy(() -> FloorLoop.Args.parse("F", new String[] {"warm", "s", "c", "7000", "2000", "500"}))
                .hasMessageStartingWith("usage: F latency");
        assertThatThrownBy(() -> FloorLoop.Args.parse("F", new String[] {"warm", "s", "c", "7000", "100", "101", "5"}))
                .hasMessageContaining("1 <= FROM <= K");
        assertThatThrownBy(() -> FloorLoop.Args.parse("F", new String[] {"latency", "s", "c", "0", "5"}))
                .hasMessageContaining("PORT in 1..65535");
        assertThatThrownBy(() -> FloorLoop.Args.parse("F", new String[] {"storm", "s", "c", "7000", "x"}))
                .isInstanceOf(NumberFormatException.class);
    }
}
