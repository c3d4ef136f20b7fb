package org.rdmacm4j.examples;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.rdmacm4j.cm.core.RdmaUnavailableException;

/**
 * The one entry of every example (examples/launch.sh runs {@code Launch NAME CLASS ARGS...}): runs
 * {@code org.rdmacm4j.examples.CLASS.main(ARGS)}, and if RDMA is not usable on this machine
 * ({@link RdmaUnavailableException} from {@code RdmaCm.open()}, anywhere in the cause chain and
 * not already reported by the example) prints its one-line message, {@code NAME: ...}, which says
 * what is missing and names the doctor, and exits 1, without a stack trace. Every other failure
 * is left as it was.
 */
public final class Launch {
    private Launch() { }

    public static void main(String[] args) throws Throwable {
        if (args.length < 2) {
            System.err.println("usage: Launch NAME CLASS [ARGS...] (examples/launch.sh runs it)");
            System.exit(2);
        }
        String name = args[0];
        MethodHandle main = MethodHandles.lookup().findStatic(Class.forName("org.rdmacm4j.examples." + args[1]),
                "main", MethodType.methodType(void.class, String[].class));
        String[] rest = java.util.Arrays.copyOfRange(args, 2, args.length);
        try {
            main.invokeExact(rest);
        } catch (Throwable t) {
            RdmaUnavailableException u = unavailable(t);
            if (u == null) {
                throw t;
            }
            System.err.println(name + ": " + u.getMessage());
            System.exit(1);
        }
    }

    /** The RdmaUnavailableException in {@code t}'s cause chain, or null. */
    static RdmaUnavailableException unavailable(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof RdmaUnavailableException u) {
                return u;
            }
        }
        return null;
    }
}
