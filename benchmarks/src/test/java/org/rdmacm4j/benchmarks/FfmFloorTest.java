package org.rdmacm4j.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
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
}
