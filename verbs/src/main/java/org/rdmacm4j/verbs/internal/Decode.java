package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.UdParam;
import org.rdmacm4j.verbs.ibv.AhAttributes;
import org.rdmacm4j.verbs.ibv.Gid;

/** Copies native structs into the public immutable records, and back. Any thread. */
public final class Decode {
    private Decode() { }

    private static final CStruct CP = Layouts.RDMA_CONN_PARAM;
    private static final CStruct UP = Layouts.RDMA_UD_PARAM;
    private static final CStruct AH = Layouts.IBV_AH_ATTR;

    /** {@code len} bytes at {@code p}, or none if NULL/0. */
    public static byte[] bytes(MemorySegment p, int len) {
        if (len == 0 || p.equals(MemorySegment.NULL)) {
            return new byte[0];
        }
        return p.reinterpret(len).toArray(JAVA_BYTE);
    }

    public static int u8(MemorySegment s, long offset) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, offset));
    }

    public static int u16(MemorySegment s, long offset) {
        return Short.toUnsignedInt(s.get(JAVA_SHORT, offset));
    }

    public static ConnParam connParam(MemorySegment p) {
        return new ConnParam(
                bytes(p.get(ADDRESS, CP.offset("private_data")), u8(p, CP.offset("private_data_len"))),
                u8(p, CP.offset("responder_resources")), u8(p, CP.offset("initiator_depth")),
                u8(p, CP.offset("flow_control")), u8(p, CP.offset("retry_count")),
                u8(p, CP.offset("rnr_retry_count")), u8(p, CP.offset("srq")), p.get(JAVA_INT, CP.offset("qp_num")));
    }

    /** Writes {@code c} into a zeroed rdma_conn_param; {@code data} holds the private data bytes. */
    public static void connParam(ConnParam c, MemorySegment p, MemorySegment data) {
        byte[] pd = c.privateData();
        MemorySegment.copy(pd, 0, data, JAVA_BYTE, 0, pd.length);
        p.set(ADDRESS, CP.offset("private_data"), pd.length == 0 ? MemorySegment.NULL : data);
        p.set(JAVA_BYTE, CP.offset("private_data_len"), (byte) pd.length);
        p.set(JAVA_BYTE, CP.offset("responder_resources"), (byte) c.responderResources());
        p.set(JAVA_BYTE, CP.offset("initiator_depth"), (byte) c.initiatorDepth());
        p.set(JAVA_BYTE, CP.offset("flow_control"), (byte) c.flowControl());
        p.set(JAVA_BYTE, CP.offset("retry_count"), (byte) c.retryCount());
        p.set(JAVA_BYTE, CP.offset("rnr_retry_count"), (byte) c.rnrRetryCount());
        p.set(JAVA_BYTE, CP.offset("srq"), (byte) c.srq());
        p.set(JAVA_INT, CP.offset("qp_num"), c.qpNum());
    }

    public static UdParam udParam(MemorySegment p) {
        return new UdParam(
                bytes(p.get(ADDRESS, UP.offset("private_data")), u8(p, UP.offset("private_data_len"))),
                ahAttr(p.asSlice(UP.offset("ah_attr"), AH.size())),
                p.get(JAVA_INT, UP.offset("qp_num")), p.get(JAVA_INT, UP.offset("qkey")));
    }

    public static Gid gid(MemorySegment s, long offset) {
        var be = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).withByteAlignment(1);
        return new Gid(s.get(be, offset), s.get(be, offset + 8));
    }

    public static void gid(Gid g, MemorySegment s, long offset) {
        var be = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).withByteAlignment(1);
        s.set(be, offset, g.subnetPrefix());
        s.set(be, offset + 8, g.interfaceId());
    }

    public static AhAttributes ahAttr(MemorySegment a) {
        return new AhAttributes(gid(a, AH.offset("grh.dgid")), a.get(JAVA_INT, AH.offset("grh.flow_label")),
                u8(a, AH.offset("grh.sgid_index")), u8(a, AH.offset("grh.hop_limit")),
                u8(a, AH.offset("grh.traffic_class")), u16(a, AH.offset("dlid")), u8(a, AH.offset("sl")),
                u8(a, AH.offset("src_path_bits")), u8(a, AH.offset("static_rate")), u8(a, AH.offset("is_global")) != 0,
                u8(a, AH.offset("port_num")));
    }

    /** Writes {@code h} into the ibv_ah_attr at {@code a} (which the caller zeroed). */
    public static void ahAttr(AhAttributes h, MemorySegment a) {
        gid(h.dgid(), a, AH.offset("grh.dgid"));
        a.set(JAVA_INT, AH.offset("grh.flow_label"), h.flowLabel());
        a.set(JAVA_BYTE, AH.offset("grh.sgid_index"), (byte) h.sgidIndex());
        a.set(JAVA_BYTE, AH.offset("grh.hop_limit"), (byte) h.hopLimit());
        a.set(JAVA_BYTE, AH.offset("grh.traffic_class"), (byte) h.trafficClass());
        a.set(JAVA_SHORT, AH.offset("dlid"), (short) h.dlid());
        a.set(JAVA_BYTE, AH.offset("sl"), (byte) h.sl());
        a.set(JAVA_BYTE, AH.offset("src_path_bits"), (byte) h.srcPathBits());
        a.set(JAVA_BYTE, AH.offset("static_rate"), (byte) h.staticRate());
        a.set(JAVA_BYTE, AH.offset("is_global"), (byte) (h.isGlobal() ? 1 : 0));
        a.set(JAVA_BYTE, AH.offset("port_num"), (byte) h.portNum());
    }
}
