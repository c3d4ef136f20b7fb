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

    public static final MethodHandle POLL_CQ = Native.pointer("ibv_context_ops.poll_cq",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), Linker.Option.critical(false));
    /**
     * The CQ as a long ({@link Native#POINTER}): it is libibverbs' memory, and the poller arms a
     * connection's CQ after each batch of completions. poll_cq and the posts keep ADDRESS: their
     * arrays are the caller's, in arenas that may be closed, which the session acquire of an
     * ADDRESS argument keeps from happening during the call.
     */
    public static final MethodHandle REQ_NOTIFY_CQ = Native.pointer("ibv_context_ops.req_notify_cq",
            FunctionDescriptor.of(JAVA_INT, Native.POINTER, JAVA_INT));
    public static final MethodHandle POST_SEND = Native.pointer("ibv_context_ops.post_send",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    public static final MethodHandle POST_RECV = POST_SEND;   // same C signature
    public static final MethodHandle POST_SRQ_RECV = POST_SEND;

    /**
     * One slot of {@code struct ibv_context_ops}, its offset from the context computed once: each
     * QP, CQ and SRQ reads two of them when it is made (a by-name lookup per object was a map probe
     * and a boxed path per read, on every connection).
     */
    public enum Op {
        POLL_CQ("poll_cq"), REQ_NOTIFY_CQ("req_notify_cq"), POST_SEND("post_send"), POST_RECV("post_recv"),
        POST_SRQ_RECV("post_srq_recv");

        private final String cName;
        private final long offset;

        Op(String cName) {
            this.cName = cName;
            this.offset = Layouts.IBV_CONTEXT.offset("ops") + Layouts.IBV_CONTEXT_OPS.offset(cName);
        }

        /** The member's name in {@code struct ibv_context_ops}. */
        public String cName() { return cName; }
    }

    /** {@code context->ops.<op>}; a NULL pointer means the provider lacks the op. */
    public static MemorySegment op(MemorySegment context, Op op) {
        MemorySegment ctx = Layouts.IBV_CONTEXT.view(context);
        MemorySegment fn = ctx.get(ADDRESS_UNALIGNED, op.offset);
        if (fn.address() == 0L) {
            throw new UnsupportedOperationException("the provider has no " + op.cName + " op");
        }
        return fn;
    }
}
