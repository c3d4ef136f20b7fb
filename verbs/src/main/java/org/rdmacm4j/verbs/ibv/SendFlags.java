package org.rdmacm4j.verbs.ibv;

/** {@code enum ibv_send_flags}. OR them together. */
public final class SendFlags {
    private SendFlags() { }

    public static final int FENCE = 1;
    /** Generate a completion for this request (when the QP is not sq_sig_all). */
    public static final int SIGNALED = 1 << 1;
    public static final int SOLICITED = 1 << 2;
    /** Copy the data into the work request (up to the QP's max_inline_data); lkey unused. */
    public static final int INLINE = 1 << 3;
    public static final int IP_CSUM = 1 << 4;
}
