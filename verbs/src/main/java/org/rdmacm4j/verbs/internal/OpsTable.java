package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.ADDRESS_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The static inline verbs of verbs.h, done as the header does them: through the function
 * pointers in {@code context->ops} ({@code struct ibv_context_ops}). There is no exported
 * symbol to bind; the pointer is read once per object (a context's ops table does not change
 * after open) and passed as the first argument of an address-less downcall handle.
 *
 * <p>poll_cq is linked critical: on rxe (and every provider with a user-mapped CQ) it only reads
 * memory, never blocks and never calls back into Java. post_send, post_recv, post_srq_recv and
 * req_notify_cq are not: on rxe each one ends in a write(2) doorbell or a kernel command.
 *
 * <p>None of these allocate, and none capture errno: they return the error number themselves
 * (poll_cq: a negative value).
 */
public final class OpsTable {
    private OpsTable() { }

    private static final long OPS = Layouts.IBV_CONTEXT.offset("ops");

    public static final MethodHandle POLL_CQ = Native.pointer("ibv_context_ops.poll_cq",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), Linker.Option.critical(false));
    public static final MethodHandle REQ_NOTIFY_CQ = Native.pointer("ibv_context_ops.req_notify_cq",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    public static final MethodHandle POST_SEND = Native.pointer("ibv_context_ops.post_send",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    public static final MethodHandle POST_RECV = POST_SEND;   // same C signature
    public static final MethodHandle POST_SRQ_RECV = POST_SEND;

    /** {@code context->ops.<name>}; a NULL pointer means the provider lacks the op. */
    public static MemorySegment op(MemorySegment context, String name) {
        MemorySegment ctx = Layouts.IBV_CONTEXT.view(context);
        MemorySegment fn = ctx.get(ADDRESS_UNALIGNED, OPS + Layouts.IBV_CONTEXT_OPS.offset(name));
        if (fn.equals(MemorySegment.NULL)) {
            throw new UnsupportedOperationException("the provider has no " + name + " op");
        }
        return fn;
    }
}
