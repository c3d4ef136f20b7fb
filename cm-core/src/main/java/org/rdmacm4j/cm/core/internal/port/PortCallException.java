package org.rdmacm4j.cm.core.internal.port;

/**
 * A fallible {@link CmPort} call failed: the native function and its errno. The dispatcher turns
 * it into {@code Input.CallFailed}; the state machine decides what it means.
 */
public final class PortCallException extends RuntimeException {
    private final String function;
    private final int errno;

    public PortCallException(String function, int errno, String message, Throwable cause) {
        super(function + " failed: " + message, cause);
        this.function = function;
        this.errno = errno;
    }

    public String function() {
        return function;
    }

    public int errno() {
        return errno;
    }
}
