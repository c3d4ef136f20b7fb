package org.rdmacm4j.verbs.ibv;

/** {@code enum ibv_wc_flags}: what a work completion carries. */
public final class WcFlags {
    private WcFlags() { }

    public static final int GRH = 1;
    public static final int WITH_IMM = 1 << 1;
    public static final int IP_CSUM_OK = 1 << 2;
    public static final int WITH_INV = 1 << 3;
    public static final int TM_SYNC_REQ = 1 << 4;
    public static final int TM_MATCH = 1 << 5;
    public static final int TM_DATA_VALID = 1 << 6;
}
