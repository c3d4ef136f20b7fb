package org.rdmacm4j.verbs.internal;

/**
 * The one check of the enums that map C values ({@code QpType.of}, {@code WcStatus.of}, ...): a value
 * that maps to no constant is an {@link IllegalArgumentException} naming it.
 *
 * <p>Hand-written, not Guava's {@code checkArgument(boolean, String, int)}: that overload is too big
 * for C1 (the launchers' JIT) to inline, because its failure path boxes the int and builds the message,
 * so every lookup paid a call (issue 21; WcStatus and WcOpcode are looked up per completion, QpType and
 * QpState per QP). {@link #known} is small enough to inline; the message is built in {@link #unknown},
 * only on failure. Any thread.
 */
public final class CValues {
    private CValues() { }

    /** {@code constant} if not null, else an IllegalArgumentException for {@code value} of {@code cPrefix} ("IBV_WC_*"). */
    public static <T> T known(T constant, String cPrefix, int value) {
        if (constant == null) {
            throw unknown(cPrefix, value);
        }
        return constant;
    }

    private static IllegalArgumentException unknown(String cPrefix, int value) {
        return new IllegalArgumentException("unknown " + cPrefix + " value " + value);
    }
}
