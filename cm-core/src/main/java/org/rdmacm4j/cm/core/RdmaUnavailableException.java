package org.rdmacm4j.cm.core;

import java.util.List;
import java.util.Objects;

/**
 * This machine (or this JVM) cannot use RDMA at all, so {@link RdmaCm#open()} could not even open
 * librdmacm's event channel: the libraries are missing, native access is not enabled, the kernel
 * has no RDMA device (or no {@code rdma_ucm} module), or the device files cannot be opened.
 *
 * <p>Its message is one line meant for a person: what is missing, how to fix it where that is
 * known, and the command that examines the whole setup and names every fix, the doctor:
 * {@code examples/bin/doctor} in a checkout, or
 * {@code java --enable-native-access=org.rdmacm4j.verbs -p <the rdmacm4j jars> -m org.rdmacm4j.cm.core/org.rdmacm4j.cm.core.doctor.Doctor}
 * ({@link #DOCTOR}). {@link #getCause()} is the original failure (an
 * {@link org.rdmacm4j.verbs.RdmaException} such as {@code rdma_create_event_channel failed: ENODEV},
 * or the {@link IllegalStateException} of a library that did not load). It carries no id history.
 *
 * <p>A program that wants to say it in its own words can switch on {@link #missing()}.
 */
public class RdmaUnavailableException extends RdmaCmException {
    private static final long serialVersionUID = 1L;

    /** How the doctor is run: the examples launcher in a checkout, or the main in cm-core's jar. */
    public static final String DOCTOR = "examples/bin/doctor (or: java --enable-native-access=org.rdmacm4j.verbs"
            + " -p <the rdmacm4j jars> -m org.rdmacm4j.cm.core/org.rdmacm4j.cm.core.doctor.Doctor)";

    /** What is missing. */
    public enum Missing {
        /** The JVM does not let {@code org.rdmacm4j.verbs} call native code ({@code --enable-native-access}). */
        NATIVE_ACCESS,
        /** librdmacm.so.1 or libibverbs.so.1 did not load (the packages librdmacm1, libibverbs1). */
        LIBRARY,
        /** No RDMA device, or no kernel RDMA support ({@code /dev/infiniband/rdma_cm} missing). */
        DEVICE,
        /** Devices are there but the event channel could not be opened (permissions of /dev/infiniband, limits). */
        ACCESS
    }

    private final Missing missing;
    private final String problem;

    /**
     * @param missing what is missing
     * @param problem the problem in words, with its fix where known (the doctor's name is appended)
     * @param cause   the original failure, or null
     */
    public RdmaUnavailableException(Missing missing, String problem, Throwable cause) {
        super(message(problem), List.of(), cause);
        this.missing = Objects.requireNonNull(missing, "missing");
        this.problem = problem;
    }

    private static String message(String problem) {
        String p = problem == null ? "" : problem.strip().replaceAll("\\s*\\R\\s*", " ");
        while (p.endsWith(".")) {
            p = p.substring(0, p.length() - 1);
        }
        return "RDMA is not available on this machine: " + p + ". To see what is missing and how to fix it, run "
                + DOCTOR;
    }

    /** What is missing. */
    public Missing missing() {
        return missing;
    }

    /** The problem alone, without the doctor's name. */
    public String problem() {
        return problem;
    }
}
