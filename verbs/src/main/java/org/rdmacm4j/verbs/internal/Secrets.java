package org.rdmacm4j.verbs.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QpInitAttributes;
import org.rdmacm4j.verbs.ibv.QueuePair;

/**
 * How {@code org.rdmacm4j.verbs.cm} reaches what {@code org.rdmacm4j.verbs.ibv} keeps private
 * (native segments, ownership, constructors), without public methods on exported classes. The
 * ibv package installs the implementation from a static initialiser (the JDK's SharedSecrets
 * pattern). Not exported.
 */
public final class Secrets {
    private Secrets() { }

    /** What the cm package needs from ibv objects. */
    public interface Ibv {
        /** The live segment of a PD (throws IllegalStateException if closed). */
        MemorySegment segment(ProtectionDomain pd);

        Ownership ownership(ProtectionDomain pd);

        /**
         * Writes {@code attrs} as a struct ibv_qp_init_attr; returns the CQ/SRQ ownerships the QP will
         * depend on, then {@code spare} empty slots for the caller's.
         */
        Ownership[] writeQpInitAttr(QpInitAttributes attrs, MemorySegment out, int spare);

        /** Wraps the QP rdma_create_qp made in {@code pd}; {@code destroy} is rdma_destroy_qp. */
        QueuePair adoptQp(MemorySegment qp, ProtectionDomain pd, QpInitAttributes attrs, Runnable destroy,
                          Ownership... parents);

        /** A non-owning view of a context librdmacm opened (id->verbs, rdma_get_devices). */
        DeviceContext borrowContext(MemorySegment context, String what, Ownership parent);
    }

    private static volatile Ibv ibv;

    public static void install(Ibv implementation) {
        ibv = implementation;
    }

    public static Ibv ibv() {
        Ibv i = ibv;
        if (i == null) {
            try {
                Class.forName("org.rdmacm4j.verbs.ibv.IbvSecrets", true, Secrets.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
            i = ibv;
        }
        return i;
    }

    /** For callers that need a scratch struct of a given layout. */
    public static MemorySegment allocate(SegmentAllocator arena, CStruct type) {
        return arena.allocate(type.size(), type.alignment());
    }
}
