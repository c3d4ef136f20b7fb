package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.UdParam;
import org.rdmacm4j.verbs.ibv.AhAttributes;
import org.rdmacm4j.verbs.ibv.Gid;

/** Copies native structs into the public immutable records, and back. Any thread. */
public final class Decode {
    private Decode() { }

    private static final CStruct CP = Layouts.RDMA_CONN_PARAM;
    private static final long CP_FLOW_CONTROL = CP.offset("flow_control");
    private static final long CP_INITIATOR_DEPTH = CP.offset("initiator_depth");
    private static final long CP_PRIVATE_DATA = CP.offset("private_data");
    private static final long CP_PRIVATE_DATA_LEN = CP.offset("private_data_len");
    private static final long CP_QP_NUM = CP.offset("qp_num");
    private static final long CP_RESPONDER_RESOURCES = CP.offset("responder_resources");
    private static final long CP_RETRY_COUNT = CP.offset("retry_count");
    private static final long CP_RNR_RETRY_COUNT = CP.offset("rnr_retry_count");
    private static final long CP_SRQ = CP.offset("srq");
    /**
     * rdma_conn_param's seven u8 fields sit in one 8-byte word after the private-data pointer
     * (private_data_len at byte 8, then responder_resources, initiator_depth, flow_control,
     * retry_count, rnr_retry_count, srq): {@link #connParam(MemorySegment, long)} reads that word
     * once instead of seven byte accesses, each a full segment access under C1 (a session acquire
     * and release, a bounds and alignment check). Checked against the layout when the class loads.
     */
    private static final long CP_BYTES = CP_PRIVATE_DATA_LEN;

    static {
        long[] order = {CP_PRIVATE_DATA_LEN, CP_RESPONDER_RESOURCES, CP_INITIATOR_DEPTH, CP_FLOW_CONTROL,
            CP_RETRY_COUNT, CP_RNR_RETRY_COUNT, CP_SRQ};
        for (int i = 0; i < order.length; i++) {
            if (order[i] != CP_BYTES + i) {
                throw new ExceptionInInitializerError("rdma_conn_param's u8 fields are not consecutive from "
                        + "private_data_len: byte " + i + " at " + order[i]);
            }
        }
    }

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** Byte {@code i} (0 = lowest address) of a word read in native order. */
    private static int byteOf(long word, int i) {
        int shift = LITTLE_ENDIAN ? 8 * i : 56 - 8 * i;
        return (int) (word >>> shift) & 0xFF;
    }

    /**
     * All of the address space as one segment, made once: what librdmacm hands over by pointer (a CM
     * event, its private data) is read out of it by address, with no segment made per event for the
     * pointer (and no restricted {@code reinterpret} per event: a stack walk for the caller's module
     * each time). Only for memory librdmacm gives us, at the struct offsets of {@link Layouts}.
     */
    public static final MemorySegment ALL_MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /**
     * {@code len} bytes at address {@code pointer}, or none if NULL/0: an event's private data (its
     * rdma_conn_param's or rdma_ud_param's pointer, read as a long; the length is the struct's u8).
     */
    static byte[] bytesAt(long pointer, int len) {
        if (len == 0 || pointer == 0L) {
            return NO_BYTES;
        }
        byte[] out = new byte[len];
        copyOut(ALL_MEMORY, pointer, out);
        return out;
    }

    /** None: an empty array is immutable, so one is shared. */
    private static final byte[] NO_BYTES = new byte[0];

    /*
     * Private data (at most 255 bytes) moves between a byte[] and memory by words below BULK_FROM
     * bytes, not with MemorySegment.copy: that copy ends in Unsafe.copyMemory0, a JNI call C1 does not
     * intrinsify (~50 ns, see Words), after the JDK's checks of layouts, alignment, array type and
     * length, while a word access is ~3 ns. A length of 8 or more ends with the word that ends at the
     * last byte (overlapping the one before: the same bytes again), so no byte loop; below 8, bytes.
     * Each access is a bounds-checked segment access, as the copy is. From BULK_FROM on, the one call
     * is cheaper than the words: the kernel reports an IB CM message's whole private-data area (56
     * bytes in a REQ, 148 in a DREQ, 196 in a REP, 224 in an RTU) whatever the peer sent, so most
     * events of a connection carry 148-224 bytes, and their word loops were the largest single Java
     * symbol of a warm connection's user instructions (Decode.copyOut, 7.3 k of 155.6 k in s39-ab1).
     * PrivateDataCopyHarness under C1 on the host, 2026-11-29, ns per copy out, words against bulk
     * (min): 16 bytes 32 / 60, 32 bytes 57 / 61, 40 bytes 74 / 63, 56 bytes 97 / 63, 196 bytes
     * 361 / 66, 224 bytes 396 / 62; copies in alike. So the crossover is between 32 and 40 bytes.
     */
    static final int BULK_FROM = 40;

    /** {@code out.length} bytes of {@code s} from {@code offset} into {@code out}. */
    static void copyOut(MemorySegment s, long offset, byte[] out) {
        if (out.length >= BULK_FROM) {
            MemorySegment.copy(s, JAVA_BYTE, offset, out, 0, out.length);
        } else {
            copyOutByWords(s, offset, out);
        }
    }

    /** {@link #copyOut}'s words, at any length (the harness measures it beside the bulk copy). */
    static void copyOutByWords(MemorySegment s, long offset, byte[] out) {
        int len = out.length;
        if (len < 8) {
            for (int i = 0; i < len; i++) {
                out[i] = s.get(JAVA_BYTE, offset + i);
            }
            return;
        }
        for (int i = 0; i < len - 8; i += 8) {
            Words.unpack(s.get(JAVA_LONG_UNALIGNED, offset + i), out, i);
        }
        Words.unpack(s.get(JAVA_LONG_UNALIGNED, offset + len - 8), out, len - 8);
    }

    /** All of {@code in} into {@code s} from {@code offset}. */
    static void copyIn(byte[] in, MemorySegment s, long offset) {
        if (in.length >= BULK_FROM) {
            MemorySegment.copy(in, 0, s, JAVA_BYTE, offset, in.length);
        } else {
            copyInByWords(in, s, offset);
        }
    }

    /** {@link #copyIn}'s words, at any length. */
    static void copyInByWords(byte[] in, MemorySegment s, long offset) {
        int len = in.length;
        if (len < 8) {
            for (int i = 0; i < len; i++) {
                s.set(JAVA_BYTE, offset + i, in[i]);
            }
            return;
        }
        for (int i = 0; i < len - 8; i += 8) {
            s.set(JAVA_LONG_UNALIGNED, offset + i, Words.bytesOf(in, i));
        }
        s.set(JAVA_LONG_UNALIGNED, offset + len - 8, Words.bytesOf(in, len - 8));
    }

    private static final CStruct UP = Layouts.RDMA_UD_PARAM;
    private static final long UP_AH_ATTR = UP.offset("ah_attr");
    private static final long UP_PRIVATE_DATA = UP.offset("private_data");
    private static final long UP_PRIVATE_DATA_LEN = UP.offset("private_data_len");
    private static final long UP_QKEY = UP.offset("qkey");
    private static final long UP_QP_NUM = UP.offset("qp_num");
    private static final CStruct AH = Layouts.IBV_AH_ATTR;
    private static final long AH_DLID = AH.offset("dlid");
    private static final long AH_GRH_DGID = AH.offset("grh.dgid");
    private static final long AH_GRH_FLOW_LABEL = AH.offset("grh.flow_label");
    private static final long AH_GRH_HOP_LIMIT = AH.offset("grh.hop_limit");
    private static final long AH_GRH_SGID_INDEX = AH.offset("grh.sgid_index");
    private static final long AH_GRH_TRAFFIC_CLASS = AH.offset("grh.traffic_class");
    private static final long AH_IS_GLOBAL = AH.offset("is_global");
    private static final long AH_PORT_NUM = AH.offset("port_num");
    private static final long AH_SL = AH.offset("sl");
    private static final long AH_SRC_PATH_BITS = AH.offset("src_path_bits");
    private static final long AH_STATIC_RATE = AH.offset("static_rate");

    public static int u8(MemorySegment s, long offset) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, offset));
    }

    public static int u16(MemorySegment s, long offset) {
        return Short.toUnsignedInt(s.get(JAVA_SHORT_UNALIGNED, offset));
    }

    public static ConnParam connParam(MemorySegment p) {
        return connParam(p, 0);
    }

    /**
     * The rdma_conn_param at {@code offset} in {@code s} (the event's {@code param} union): read in
     * place, no slice of the event per decode.
     */
    public static ConnParam connParam(MemorySegment s, long offset) {
        long pointer = s.get(JAVA_LONG_UNALIGNED, offset + CP_PRIVATE_DATA);
        long u8s = s.get(JAVA_LONG_UNALIGNED, offset + CP_BYTES);   // the seven u8 fields (see CP_BYTES)
        return new ConnParam(bytesAt(pointer, byteOf(u8s, 0)),
                byteOf(u8s, 1), byteOf(u8s, 2), byteOf(u8s, 3), byteOf(u8s, 4), byteOf(u8s, 5), byteOf(u8s, 6),
                s.get(JAVA_INT_UNALIGNED, offset + CP_QP_NUM));
    }

    /**
     * Writes {@code c} into a zeroed rdma_conn_param; {@code data} holds the private data bytes.
     * Three writes, not nine: the seven u8 fields go as one word (see {@link #CP_BYTES}; under C1 each
     * write is a VarHandle chain, and with the reads above this was 106 of the dispatcher's 6,176 Java
     * samples in a warm CmBench run, issue 21). The word's eighth byte is padding, written zero.
     */
    public static void connParam(ConnParam c, MemorySegment p, MemorySegment data) {
        byte[] pd = c.privateData();
        copyIn(pd, data, 0);
        connParamFields(c, pd.length, data.address(), p);
    }

    /**
     * {@link #connParam(ConnParam, MemorySegment, MemorySegment)} with the private data in the same
     * block, right after the struct ({@link #connParamSize}): one scratch slice per connect or accept,
     * not two. {@code privateData} is {@code c}'s own (the cm package passes its array without the copy
     * {@code privateData()} makes: read here, within the call, never kept).
     */
    public static void connParam(ConnParam c, byte[] privateData, MemorySegment p) {
        long at = CP.size();
        copyIn(privateData, p, at);
        connParamFields(c, privateData.length, p.address() + at, p);
    }

    /** The bytes {@link #connParam(ConnParam, byte[], MemorySegment)} writes for {@code privateDataLength}. */
    public static long connParamSize(int privateDataLength) {
        return CP.size() + privateDataLength;
    }

    /** The struct's fields, the private data already at {@code data} (not pointed to when there is none). */
    private static void connParamFields(ConnParam c, int len, long data, MemorySegment p) {
        // A long, not an ADDRESS write: see QpInitAttributes.write (no pointer var handle on the path).
        p.set(JAVA_LONG_UNALIGNED, CP_PRIVATE_DATA, len == 0 ? 0L : data);
        p.set(JAVA_LONG_UNALIGNED, CP_BYTES, Words.bytes(len, c.responderResources(), c.initiatorDepth(),
                c.flowControl(), c.retryCount(), c.rnrRetryCount(), c.srq(), 0));
        p.set(JAVA_INT_UNALIGNED, CP_QP_NUM, c.qpNum());
    }

    public static UdParam udParam(MemorySegment p) {
        return new UdParam(
                bytesAt(p.get(JAVA_LONG_UNALIGNED, UP_PRIVATE_DATA), u8(p, UP_PRIVATE_DATA_LEN)),
                ahAttr(p.asSlice(UP_AH_ATTR, AH.size())),
                p.get(JAVA_INT_UNALIGNED, UP_QP_NUM), p.get(JAVA_INT_UNALIGNED, UP_QKEY));
    }

    /** A GID's two halves: big-endian 64-bit values at any alignment. */
    private static final ValueLayout.OfLong BE_LONG = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).withByteAlignment(1);

    public static Gid gid(MemorySegment s, long offset) {
        var be = BE_LONG;
        return new Gid(s.get(be, offset), s.get(be, offset + 8));
    }

    public static void gid(Gid g, MemorySegment s, long offset) {
        var be = BE_LONG;
        s.set(be, offset, g.subnetPrefix());
        s.set(be, offset + 8, g.interfaceId());
    }

    public static AhAttributes ahAttr(MemorySegment a) {
        return new AhAttributes(gid(a, AH_GRH_DGID), a.get(JAVA_INT_UNALIGNED, AH_GRH_FLOW_LABEL),
                u8(a, AH_GRH_SGID_INDEX), u8(a, AH_GRH_HOP_LIMIT),
                u8(a, AH_GRH_TRAFFIC_CLASS), u16(a, AH_DLID), u8(a, AH_SL),
                u8(a, AH_SRC_PATH_BITS), u8(a, AH_STATIC_RATE), u8(a, AH_IS_GLOBAL) != 0,
                u8(a, AH_PORT_NUM));
    }

    /** Writes {@code h} into the ibv_ah_attr at {@code a} (which the caller zeroed). */
    public static void ahAttr(AhAttributes h, MemorySegment a) {
        gid(h.dgid(), a, AH_GRH_DGID);
        a.set(JAVA_INT_UNALIGNED, AH_GRH_FLOW_LABEL, h.flowLabel());
        a.set(JAVA_BYTE, AH_GRH_SGID_INDEX, (byte) h.sgidIndex());
        a.set(JAVA_BYTE, AH_GRH_HOP_LIMIT, (byte) h.hopLimit());
        a.set(JAVA_BYTE, AH_GRH_TRAFFIC_CLASS, (byte) h.trafficClass());
        a.set(JAVA_SHORT_UNALIGNED, AH_DLID, (short) h.dlid());
        a.set(JAVA_BYTE, AH_SL, (byte) h.sl());
        a.set(JAVA_BYTE, AH_SRC_PATH_BITS, (byte) h.srcPathBits());
        a.set(JAVA_BYTE, AH_STATIC_RATE, (byte) h.staticRate());
        a.set(JAVA_BYTE, AH_IS_GLOBAL, (byte) (h.isGlobal() ? 1 : 0));
        a.set(JAVA_BYTE, AH_PORT_NUM, (byte) h.portNum());
    }
}
