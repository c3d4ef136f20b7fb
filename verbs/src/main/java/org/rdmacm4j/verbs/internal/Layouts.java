package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.util.List;

/**
 * Every C struct the bindings read or write, transcribed from rdma-core 44's
 * {@code <infiniband/verbs.h>}, {@code <rdma/rdma_cma.h>} and glibc's socket headers.
 *
 * <p>Only members the bindings touch are named where a struct has many (the rest are
 * {@code opaque} runs); the sizes are still complete, and {@code LayoutConformanceTest} checks
 * every named member's offset and size and every struct's size against gcc.
 */
public final class Layouts {
    private Layouts() { }

    private static final java.lang.foreign.ValueLayout U8 = JAVA_BYTE;
    private static final java.lang.foreign.ValueLayout U16 = JAVA_SHORT;
    private static final java.lang.foreign.ValueLayout U32 = JAVA_INT;
    private static final java.lang.foreign.ValueLayout U64 = JAVA_LONG;
    private static final java.lang.foreign.ValueLayout PTR = ADDRESS;

    // ---------------------------------------------------------------- sockets (glibc)

    public static final CStruct SOCKADDR = CStruct.struct("struct sockaddr")
            .field("sa_family", U16).array("sa_data", U8, 14).build();

    public static final CStruct SOCKADDR_IN = CStruct.struct("struct sockaddr_in")
            .field("sin_family", U16).field("sin_port", U16).field("sin_addr", U32)
            .array("sin_zero", U8, 8).build();

    public static final CStruct SOCKADDR_IN6 = CStruct.struct("struct sockaddr_in6")
            .field("sin6_family", U16).field("sin6_port", U16).field("sin6_flowinfo", U32)
            .array("sin6_addr", U8, 16).field("sin6_scope_id", U32).build();

    public static final CStruct SOCKADDR_STORAGE = CStruct.struct("struct sockaddr_storage")
            .field("ss_family", U16).opaque("__ss_padding", 118, 1).opaque("__ss_align", 8, 8).build();

    // ---------------------------------------------------------------- verbs.h

    public static final CStruct IBV_GID = CStruct.union("union ibv_gid")
            .array("raw", U8, 16)
            .field("global", CStruct.struct("struct ibv_gid_global")
                    .field("subnet_prefix", U64).field("interface_id", U64).build())
            .build();

    public static final CStruct IBV_DEVICE = CStruct.struct("struct ibv_device")
            .opaque("_ops", 16, 8)
            .field("node_type", U32).field("transport_type", U32)
            .array("name", U8, 64).array("dev_name", U8, 64)
            .array("dev_path", U8, 256).array("ibdev_path", U8, 256).build();

    /** All 32 members are function pointers; the ones the static inline verbs call are named. */
    public static final CStruct IBV_CONTEXT_OPS = CStruct.struct("struct ibv_context_ops")
            .field("_compat_query_device", PTR).field("_compat_query_port", PTR)
            .field("_compat_alloc_pd", PTR).field("_compat_dealloc_pd", PTR)
            .field("_compat_reg_mr", PTR).field("_compat_rereg_mr", PTR).field("_compat_dereg_mr", PTR)
            .field("alloc_mw", PTR).field("bind_mw", PTR).field("dealloc_mw", PTR)
            .field("_compat_create_cq", PTR).field("poll_cq", PTR).field("req_notify_cq", PTR)
            .field("_compat_cq_event", PTR).field("_compat_resize_cq", PTR).field("_compat_destroy_cq", PTR)
            .field("_compat_create_srq", PTR).field("_compat_modify_srq", PTR)
            .field("_compat_query_srq", PTR).field("_compat_destroy_srq", PTR)
            .field("post_srq_recv", PTR)
            .field("_compat_create_qp", PTR).field("_compat_query_qp", PTR)
            .field("_compat_modify_qp", PTR).field("_compat_destroy_qp", PTR)
            .field("post_send", PTR).field("post_recv", PTR)
            .field("_compat_create_ah", PTR).field("_compat_destroy_ah", PTR)
            .field("_compat_attach_mcast", PTR).field("_compat_detach_mcast", PTR)
            .field("_compat_async_event", PTR).build();

    public static final CStruct IBV_CONTEXT = CStruct.struct("struct ibv_context")
            .field("device", PTR).field("ops", IBV_CONTEXT_OPS)
            .field("cmd_fd", JAVA_INT).field("async_fd", JAVA_INT).field("num_comp_vectors", JAVA_INT)
            .opaque("mutex", 40, 8).field("abi_compat", PTR).build();

    /**
     * {@code struct verbs_context} sits immediately before {@code struct ibv_context} in memory;
     * {@code ibv_query_port} (a macro over {@code ___ibv_query_port}) reaches the extended op
     * {@code query_port} through it. Between {@code query_port} and {@code _ABI_placeholder3} are
     * 37 pointers the bindings never call.
     */
    public static final CStruct VERBS_CONTEXT = CStruct.struct("struct verbs_context")
            .field("query_port", PTR).opaque("_unused_ops", 37 * 8, 8)
            .field("_ABI_placeholder3", U64).field("sz", U64)
            .field("context", IBV_CONTEXT).build();

    public static final CStruct IBV_DEVICE_ATTR = CStruct.struct("struct ibv_device_attr")
            .array("fw_ver", U8, 64).field("node_guid", U64).field("sys_image_guid", U64)
            .field("max_mr_size", U64).field("page_size_cap", U64)
            .field("vendor_id", U32).field("vendor_part_id", U32).field("hw_ver", U32)
            .field("max_qp", U32).field("max_qp_wr", U32).field("device_cap_flags", U32)
            .field("max_sge", U32).field("max_sge_rd", U32).field("max_cq", U32).field("max_cqe", U32)
            .field("max_mr", U32).field("max_pd", U32).field("max_qp_rd_atom", U32)
            .field("max_ee_rd_atom", U32).field("max_res_rd_atom", U32).field("max_qp_init_rd_atom", U32)
            .field("max_ee_init_rd_atom", U32).field("atomic_cap", U32).field("max_ee", U32)
            .field("max_rdd", U32).field("max_mw", U32).field("max_raw_ipv6_qp", U32)
            .field("max_raw_ethy_qp", U32).field("max_mcast_grp", U32).field("max_mcast_qp_attach", U32)
            .field("max_total_mcast_qp_attach", U32).field("max_ah", U32).field("max_fmr", U32)
            .field("max_map_per_fmr", U32).field("max_srq", U32).field("max_srq_wr", U32)
            .field("max_srq_sge", U32).field("max_pkeys", U16).field("local_ca_ack_delay", U8)
            .field("phys_port_cnt", U8).build();

    public static final CStruct IBV_PORT_ATTR = CStruct.struct("struct ibv_port_attr")
            .field("state", U32).field("max_mtu", U32).field("active_mtu", U32).field("gid_tbl_len", U32)
            .field("port_cap_flags", U32).field("max_msg_sz", U32).field("bad_pkey_cntr", U32)
            .field("qkey_viol_cntr", U32).field("pkey_tbl_len", U16).field("lid", U16).field("sm_lid", U16)
            .field("lmc", U8).field("max_vl_num", U8).field("sm_sl", U8).field("subnet_timeout", U8)
            .field("init_type_reply", U8).field("active_width", U8).field("active_speed", U8)
            .field("phys_state", U8).field("link_layer", U8).field("flags", U8)
            .field("port_cap_flags2", U16).build();

    public static final CStruct IBV_PD = CStruct.struct("struct ibv_pd")
            .field("context", PTR).field("handle", U32).build();

    public static final CStruct IBV_MR = CStruct.struct("struct ibv_mr")
            .field("context", PTR).field("pd", PTR).field("addr", PTR).field("length", U64)
            .field("handle", U32).field("lkey", U32).field("rkey", U32).build();

    public static final CStruct IBV_COMP_CHANNEL = CStruct.struct("struct ibv_comp_channel")
            .field("context", PTR).field("fd", U32).field("refcnt", U32).build();

    public static final CStruct IBV_CQ = CStruct.struct("struct ibv_cq")
            .field("context", PTR).field("channel", PTR).field("cq_context", PTR)
            .field("handle", U32).field("cqe", U32).opaque("mutex", 40, 8).opaque("cond", 48, 8)
            .field("comp_events_completed", U32).field("async_events_completed", U32).build();

    public static final CStruct IBV_QP = CStruct.struct("struct ibv_qp")
            .field("context", PTR).field("qp_context", PTR).field("pd", PTR)
            .field("send_cq", PTR).field("recv_cq", PTR).field("srq", PTR)
            .field("handle", U32).field("qp_num", U32).field("state", U32).field("qp_type", U32)
            .opaque("mutex", 40, 8).opaque("cond", 48, 8).field("events_completed", U32).build();

    public static final CStruct IBV_QP_CAP = CStruct.struct("struct ibv_qp_cap")
            .field("max_send_wr", U32).field("max_recv_wr", U32).field("max_send_sge", U32)
            .field("max_recv_sge", U32).field("max_inline_data", U32).build();

    public static final CStruct IBV_QP_INIT_ATTR = CStruct.struct("struct ibv_qp_init_attr")
            .field("qp_context", PTR).field("send_cq", PTR).field("recv_cq", PTR).field("srq", PTR)
            .field("cap", IBV_QP_CAP).field("qp_type", U32).field("sq_sig_all", U32).build();

    public static final CStruct IBV_GLOBAL_ROUTE = CStruct.struct("struct ibv_global_route")
            .field("dgid", IBV_GID).field("flow_label", U32).field("sgid_index", U8)
            .field("hop_limit", U8).field("traffic_class", U8).build();

    public static final CStruct IBV_AH_ATTR = CStruct.struct("struct ibv_ah_attr")
            .field("grh", IBV_GLOBAL_ROUTE).field("dlid", U16).field("sl", U8)
            .field("src_path_bits", U8).field("static_rate", U8).field("is_global", U8)
            .field("port_num", U8).build();

    public static final CStruct IBV_QP_ATTR = CStruct.struct("struct ibv_qp_attr")
            .field("qp_state", U32).field("cur_qp_state", U32).field("path_mtu", U32)
            .field("path_mig_state", U32).field("qkey", U32).field("rq_psn", U32).field("sq_psn", U32)
            .field("dest_qp_num", U32).field("qp_access_flags", U32).field("cap", IBV_QP_CAP)
            .field("ah_attr", IBV_AH_ATTR).field("alt_ah_attr", IBV_AH_ATTR)
            .field("pkey_index", U16).field("alt_pkey_index", U16).field("en_sqd_async_notify", U8)
            .field("sq_draining", U8).field("max_rd_atomic", U8).field("max_dest_rd_atomic", U8)
            .field("min_rnr_timer", U8).field("port_num", U8).field("timeout", U8)
            .field("retry_cnt", U8).field("rnr_retry", U8).field("alt_port_num", U8)
            .field("alt_timeout", U8).field("rate_limit", U32).build();

    public static final CStruct IBV_SGE = CStruct.struct("struct ibv_sge")
            .field("addr", U64).field("length", U32).field("lkey", U32).build();

    public static final CStruct IBV_SEND_WR = CStruct.struct("struct ibv_send_wr")
            .field("wr_id", U64).field("next", PTR).field("sg_list", PTR).field("num_sge", U32)
            .field("opcode", U32).field("send_flags", U32)
            .anonymous(CStruct.union("imm").field("imm_data", U32).field("invalidate_rkey", U32).build())
            .field("wr", CStruct.union("wr")
                    .field("rdma", CStruct.struct("rdma")
                            .field("remote_addr", U64).field("rkey", U32).build())
                    .field("atomic", CStruct.struct("atomic")
                            .field("remote_addr", U64).field("compare_add", U64).field("swap", U64)
                            .field("rkey", U32).build())
                    .field("ud", CStruct.struct("ud")
                            .field("ah", PTR).field("remote_qpn", U32).field("remote_qkey", U32).build())
                    .build())
            .field("qp_type", CStruct.union("qp_type")
                    .field("xrc", CStruct.struct("xrc").field("remote_srqn", U32).build()).build())
            .anonymous(CStruct.union("bind_mw_tso")
                    .field("bind_mw", CStruct.struct("bind_mw").field("mw", PTR).field("rkey", U32)
                            .opaque("bind_info", 32, 8).build())
                    .field("tso", CStruct.struct("tso").field("hdr", PTR).field("hdr_sz", U16)
                            .field("mss", U16).build())
                    .build())
            .build();

    public static final CStruct IBV_RECV_WR = CStruct.struct("struct ibv_recv_wr")
            .field("wr_id", U64).field("next", PTR).field("sg_list", PTR).field("num_sge", U32).build();

    public static final CStruct IBV_WC = CStruct.struct("struct ibv_wc")
            .field("wr_id", U64).field("status", U32).field("opcode", U32).field("vendor_err", U32)
            .field("byte_len", U32)
            .anonymous(CStruct.union("imm").field("imm_data", U32).field("invalidated_rkey", U32).build())
            .field("qp_num", U32).field("src_qp", U32).field("wc_flags", U32).field("pkey_index", U16)
            .field("slid", U16).field("sl", U8).field("dlid_path_bits", U8).build();

    public static final CStruct IBV_SRQ = CStruct.struct("struct ibv_srq")
            .field("context", PTR).field("srq_context", PTR).field("pd", PTR).field("handle", U32)
            .opaque("mutex", 40, 8).opaque("cond", 48, 8).field("events_completed", U32).build();

    public static final CStruct IBV_SRQ_ATTR = CStruct.struct("struct ibv_srq_attr")
            .field("max_wr", U32).field("max_sge", U32).field("srq_limit", U32).build();

    public static final CStruct IBV_SRQ_INIT_ATTR = CStruct.struct("struct ibv_srq_init_attr")
            .field("srq_context", PTR).field("attr", IBV_SRQ_ATTR).build();

    public static final CStruct IBV_ASYNC_EVENT = CStruct.struct("struct ibv_async_event")
            .field("element", CStruct.union("element").field("cq", PTR).field("qp", PTR)
                    .field("srq", PTR).field("wq", PTR).field("port_num", U32).build())
            .field("event_type", U32).build();

    /** The 40-byte global route header at the start of every UD receive buffer. */
    public static final CStruct IBV_GRH = CStruct.struct("struct ibv_grh")
            .field("version_tclass_flow", U32).field("paylen", U16).field("next_hdr", U8).field("hop_limit", U8)
            .field("sgid", IBV_GID).field("dgid", IBV_GID).build();

    public static final CStruct IBV_AH = CStruct.struct("struct ibv_ah")
            .field("context", PTR).field("pd", PTR).field("handle", U32).build();

    // ---------------------------------------------------------------- rdma_cma.h

    public static final CStruct RDMA_IB_ADDR = CStruct.struct("struct rdma_ib_addr")
            .field("sgid", IBV_GID).field("dgid", IBV_GID).field("pkey", U16).build();

    public static final CStruct RDMA_ADDR = CStruct.struct("struct rdma_addr")
            .anonymous(CStruct.union("src").field("src_addr", SOCKADDR).field("src_sin", SOCKADDR_IN)
                    .field("src_sin6", SOCKADDR_IN6).field("src_storage", SOCKADDR_STORAGE).build())
            .anonymous(CStruct.union("dst").field("dst_addr", SOCKADDR).field("dst_sin", SOCKADDR_IN)
                    .field("dst_sin6", SOCKADDR_IN6).field("dst_storage", SOCKADDR_STORAGE).build())
            .field("addr", CStruct.union("addr").field("ibaddr", RDMA_IB_ADDR).build())
            .build();

    public static final CStruct RDMA_ROUTE = CStruct.struct("struct rdma_route")
            .field("addr", RDMA_ADDR).field("path_rec", PTR).field("num_paths", U32).build();

    public static final CStruct RDMA_EVENT_CHANNEL = CStruct.struct("struct rdma_event_channel")
            .field("fd", U32).build();

    public static final CStruct RDMA_CM_ID = CStruct.struct("struct rdma_cm_id")
            .field("verbs", PTR).field("channel", PTR).field("context", PTR).field("qp", PTR)
            .field("route", RDMA_ROUTE).field("ps", U32).field("port_num", U8).field("event", PTR)
            .field("send_cq_channel", PTR).field("send_cq", PTR).field("recv_cq_channel", PTR)
            .field("recv_cq", PTR).field("srq", PTR).field("pd", PTR).field("qp_type", U32).build();

    public static final CStruct RDMA_CONN_PARAM = CStruct.struct("struct rdma_conn_param")
            .field("private_data", PTR).field("private_data_len", U8).field("responder_resources", U8)
            .field("initiator_depth", U8).field("flow_control", U8).field("retry_count", U8)
            .field("rnr_retry_count", U8).field("srq", U8).field("qp_num", U32).build();

    public static final CStruct RDMA_UD_PARAM = CStruct.struct("struct rdma_ud_param")
            .field("private_data", PTR).field("private_data_len", U8).field("ah_attr", IBV_AH_ATTR)
            .field("qp_num", U32).field("qkey", U32).build();

    /** The argument of rdma_join_multicast_ex. */
    public static final CStruct RDMA_CM_JOIN_MC_ATTR_EX = CStruct.struct("struct rdma_cm_join_mc_attr_ex")
            .field("comp_mask", U32).field("join_flags", U32).field("addr", PTR).build();

    public static final CStruct RDMA_CM_EVENT = CStruct.struct("struct rdma_cm_event")
            .field("id", PTR).field("listen_id", PTR).field("event", U32).field("status", U32)
            .field("param", CStruct.union("param").field("conn", RDMA_CONN_PARAM)
                    .field("ud", RDMA_UD_PARAM).build())
            .build();

    /** Every struct above, for the conformance test. Anonymous helper unions are covered through their parents. */
    public static List<CStruct> all() {
        return List.of(SOCKADDR, SOCKADDR_IN, SOCKADDR_IN6, SOCKADDR_STORAGE, IBV_GID, IBV_DEVICE,
                IBV_CONTEXT_OPS, IBV_CONTEXT, VERBS_CONTEXT, IBV_DEVICE_ATTR, IBV_PORT_ATTR, IBV_PD, IBV_MR,
                IBV_COMP_CHANNEL, IBV_CQ, IBV_QP, IBV_QP_CAP, IBV_QP_INIT_ATTR, IBV_GLOBAL_ROUTE,
                IBV_AH_ATTR, IBV_QP_ATTR, IBV_SGE, IBV_SEND_WR, IBV_RECV_WR, IBV_WC, IBV_SRQ,
                IBV_SRQ_ATTR, IBV_SRQ_INIT_ATTR, IBV_ASYNC_EVENT, IBV_GRH, IBV_AH, RDMA_IB_ADDR, RDMA_ADDR,
                RDMA_ROUTE, RDMA_EVENT_CHANNEL, RDMA_CM_ID, RDMA_CONN_PARAM, RDMA_UD_PARAM, RDMA_CM_JOIN_MC_ATTR_EX,
                RDMA_CM_EVENT);
    }
}
