package org.rdmacm4j.verbs;

import org.rdmacm4j.verbs.internal.ErrnoNames;

/**
 * A librdmacm or libibverbs call failed. The only exception type for native failures in this
 * module: it names the C function, the errno value, its symbolic name and the strerror text.
 *
 * <p>Unchecked on purpose: the callers above this module (the CM dispatcher, completion
 * pollers) turn failures into state-machine inputs or typed connection errors at one place;
 * a checked exception on every binding would only be re-wrapped there.
 */
public final class RdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String function;
    private final int errno;
    private final String errnoName;
    private final String strerror;

    /** For callers that already hold the description (see {@code Native.failure}). */
    public RdmaException(String function, int errno, String strerror) {
        super(function + " failed: " + ErrnoNames.of(errno) + " (" + errno + ", " + strerror + ")");
        this.function = function;
        this.errno = errno;
        this.errnoName = ErrnoNames.of(errno);
        this.strerror = strerror;
    }

    /** The C function that failed, e.g. {@code rdma_resolve_addr}. */
    public String function() { return function; }

    /** The errno value (or the error number the function returned directly). */
    public int errno() { return errno; }

    /** The symbolic name: ENODEV, ETIMEDOUT, ... ({@code E?n} for an unknown number). */
    public String errnoName() { return errnoName; }

    /** strerror(3) text for {@link #errno()}. */
    public String strerror() { return strerror; }
}
