package org.rdmacm4j.cm.core.internal.nativeport;

import java.lang.System.Logger.Level;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.verbs.RdmaException;

/**
 * What every part of the port does the same way with a verbs call: turn its failure into the
 * {@link PortCallException} the dispatcher expects, or close a native object and log (not throw)
 * a failure.
 *
 * <p>Threads: the dispatcher's.
 */
final class PortFailures {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");

    private PortFailures() {
    }

    static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.log(Level.ERROR, "closing " + c + " failed", e);
        }
    }

    static PortCallException failed(RdmaException e) {
        return new PortCallException(e.function(), e.errno(), e.getMessage(), e);
    }
}
