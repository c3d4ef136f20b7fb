package org.rdmacm4j.verbs.ibv;

import org.rdmacm4j.verbs.internal.CValues;

/** {@code enum ibv_wc_status}: the outcome of a work request. Each constant carries its C value, checked against the header by the layout test. */
public enum WcStatus {
    SUCCESS(0),
    LOC_LEN_ERR(1),
    LOC_QP_OP_ERR(2),
    LOC_EEC_OP_ERR(3),
    LOC_PROT_ERR(4),
    WR_FLUSH_ERR(5),
    MW_BIND_ERR(6),
    BAD_RESP_ERR(7),
    LOC_ACCESS_ERR(8),
    REM_INV_REQ_ERR(9),
    REM_ACCESS_ERR(10),
    REM_OP_ERR(11),
    RETRY_EXC_ERR(12),
    RNR_RETRY_EXC_ERR(13),
    LOC_RDD_VIOL_ERR(14),
    REM_INV_RD_REQ_ERR(15),
    REM_ABORT_ERR(16),
    INV_EECN_ERR(17),
    INV_EEC_STATE_ERR(18),
    FATAL_ERR(19),
    RESP_TIMEOUT_ERR(20),
    GENERAL_ERR(21),
    TM_ERR(22),
    TM_RNDV_INCOMPLETE(23);

    private static final WcStatus[] BY_VALUE = new WcStatus[24];

    static {
        for (WcStatus c : values()) {
            BY_VALUE[c.value] = c;
        }
    }

    private final int value;

    WcStatus(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() { return value; }

    /** The C name. */
    public String cName() { return "IBV_WC_" + name(); }

    /** The constant for a C value; an unknown value is an IllegalArgumentException. Allocation-free. */
    public static WcStatus of(int value) {
        WcStatus c = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        return CValues.known(c, "IBV_WC_*", value);
    }

    /** {@code ibv_wc_status_str}. */
    public String describe() {
        org.rdmacm4j.verbs.Rdma.requireLibraries();
        return org.rdmacm4j.verbs.internal.IbvLib.wcStatusStr(value);
    }
}
