package org.rdmacm4j.verbs.ibv;

/** {@code enum ibv_access_flags}: bits for memory registration and QP access. OR them together. */
public final class Access {
    private Access() { }

    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    public static final int MW_BIND = 1 << 4;
    public static final int ZERO_BASED = 1 << 5;
    public static final int ON_DEMAND = 1 << 6;
    public static final int HUGETLB = 1 << 7;
    /** An optional bit (IBV_ACCESS_OPTIONAL_FIRST): registration then goes through ibv_reg_mr_iova2. */
    public static final int RELAXED_ORDERING = 1 << 20;

    /** Everything a peer may need for RDMA WRITE, READ and atomics on a region. */
    public static final int ALL_REMOTE = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;
}
