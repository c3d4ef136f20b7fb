package org.rdmacm4j.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Libraries;

/**
 * Whether RDMA can be used from this JVM, and if not, exactly what is missing.
 *
 * <p>Checked in order: native access for this module (the exact {@code --enable-native-access}
 * flag), the two libraries (and the Debian packages that ship them), and at least one RDMA
 * device (with how to create a soft-RoCE one). Any thread; each call probes afresh, because a
 * device can be added while the JVM runs.
 */
public final class Rdma {
    private Rdma() { }

    /** What is missing. */
    public enum Missing {
        /** Restricted FFM methods are not enabled for this module. */
        NATIVE_ACCESS,
        /** librdmacm.so.1 or libibverbs.so.1 did not load. */
        LIBRARY,
        /** The libraries loaded but found no RDMA device (or no kernel RDMA support). */
        DEVICE
    }

    /** The probe's answer: null fields when available. */
    public record Probe(Missing missing, String cause) {
        public boolean available() {
            return missing == null;
        }
    }

    /** True if native access, both libraries and at least one device are there. */
    public static boolean isAvailable() {
        return probe().available();
    }

    /** Why RDMA is unavailable, or null if it is available. */
    public static String unavailabilityCause() {
        return probe().cause();
    }

    /** Throws {@link UnsupportedOperationException} with the cause if unavailable. */
    public static void ensureAvailability() {
        Probe p = probe();
        if (!p.available()) {
            throw new UnsupportedOperationException(p.cause());
        }
    }

    /** Probes now. */
    public static Probe probe() {
        if (!Libraries.nativeAccessEnabled()) {
            return new Probe(Missing.NATIVE_ACCESS, "native access is not enabled for "
                    + describeModule() + ": start the JVM with " + Libraries.nativeAccessFlag());
        }
        String lib = libraryProblem();
        if (lib != null) {
            return new Probe(Missing.LIBRARY, lib);
        }
        String dev = deviceProblem();
        if (dev != null) {
            return new Probe(Missing.DEVICE, dev);
        }
        return new Probe(null, null);
    }

    /**
     * Every native object this JVM has open through these bindings (channels, ids, contexts,
     * PDs, MRs, CQs, QPs, AHs, SRQs), by description. Empty when everything was closed: tests
     * assert that after each class.
     */
    public static java.util.List<String> liveObjects() {
        return org.rdmacm4j.verbs.internal.Ownership.live();
    }

    /** The symbolic name of an errno value ("ECONNREFUSED"), or "E?N" for a number Linux does not define. Pure Java. */
    public static String errnoName(int errno) {
        return org.rdmacm4j.verbs.internal.ErrnoNames.of(errno);
    }

    /**
     * Links every librdmacm, libibverbs and libc downcall handle of the bindings now, without calling
     * any, and returns how many functions are linked. Needs native access and the two
     * libraries, not an RDMA device: it is what an AOT-cache training run on a build machine uses to
     * do the linking that a fresh JVM's first connection would otherwise pay for
     * ({@code org.rdmacm4j.cm.core.ColdStart}). Idempotent, any thread.
     *
     * @throws IllegalStateException if native access is not enabled, a library is missing, or a
     *     function the bindings use is not in the installed library (naming each)
     */
    public static int linkAll() {
        return link(true);
    }

    /**
     * Links, without calling any, the librdmacm and libibverbs functions an RC connection's life
     * calls (id, listener, resolution, CM events, PD, completion channel, CQ, the provider's ops,
     * QP, connect, accept, disconnect, destroy), in the order a first connection reaches them, and
     * returns how many functions are linked. {@code org.rdmacm4j.cm.core}
     * runs it on a background thread when an {@code RdmaCm} opens, so that a process's first
     * connection does not link them on the dispatcher. Idempotent, any thread.
     *
     * @throws IllegalStateException as {@link #linkAll()}
     */
    public static int linkConnectionPath() {
        return link(false);
    }

    /**
     * The functions this process has linked so far, by name: exported symbols as themselves
     * ({@code "rdma_connect"}), functions called through a provider's ops table as
     * {@code struct.member} ({@code "ibv_context_ops.poll_cq"}). For cold-start work: what a
     * window of a program linked is the difference of two calls. Any thread.
     */
    public static java.util.Set<String> linkedFunctions() {
        return org.rdmacm4j.verbs.internal.Native.linkedFunctions();
    }

    private static int link(boolean all) {
        if (!Libraries.nativeAccessEnabled()) {
            throw new IllegalStateException("native access is not enabled for " + describeModule()
                    + ": start the JVM with " + Libraries.nativeAccessFlag());
        }
        requireLibraries();
        org.rdmacm4j.verbs.internal.Linking.Result r = all ? org.rdmacm4j.verbs.internal.Linking.linkAll()
                : org.rdmacm4j.verbs.internal.Linking.linkConnectionPath();
        if (!r.failures().isEmpty()) {
            throw new IllegalStateException("could not link: " + String.join("; ", r.failures()));
        }
        return r.linked();
    }

    /**
     * Throws IllegalStateException naming the library and package if either library is missing.
     * Called before the first binding of a class is touched, so that a missing library is a
     * clear error and not an ExceptionInInitializerError.
     */
    public static void requireLibraries() {
        String lib = libraryProblem();
        if (lib != null) {
            throw new IllegalStateException(lib);
        }
    }

    private static String libraryProblem() {
        if (Libraries.rdmacmFailure() != null) {
            return Libraries.RDMACM_SONAME + " could not be loaded (" + Libraries.rdmacmFailure()
                    + "): install the Debian package librdmacm1 (apt-get install librdmacm1)";
        }
        if (Libraries.ibverbsFailure() != null) {
            return Libraries.IBVERBS_SONAME + " could not be loaded (" + Libraries.ibverbsFailure()
                    + "): install the Debian package libibverbs1 (apt-get install libibverbs1 ibverbs-providers)";
        }
        return null;
    }

    private static String deviceProblem() {
        int count;
        String why;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocate(JAVA_INT);
            try {
                MemorySegment list = IbvLib.getDeviceList(n);
                count = n.get(JAVA_INT_UNALIGNED, 0);
                IbvLib.freeDeviceList(list);
                why = "ibv_get_device_list found " + count + " devices";
            } catch (RdmaException e) {
                count = 0;
                why = e.getMessage() + (e.errno() == 38 ? " - the kernel has no RDMA support loaded" : "");
            }
        }
        if (count > 0 && !Files.exists(Path.of("/dev/infiniband/rdma_cm"))) {
            return "no RDMA device usable by rdma_cm: /dev/infiniband/rdma_cm is missing"
                    + " (load the kernel module: modprobe rdma_ucm)";
        }
        if (count == 0) {
            return "no RDMA device (" + why + "). Create a soft-RoCE device: modprobe rdma_rxe rdma_ucm ib_uverbs"
                    + " && rdma link add rxe0 type rxe netdev <ifname> (the kernel needs CONFIG_RDMA_RXE;"
                    + " see docs/verbs.md)";
        }
        return null;
    }

    private static String describeModule() {
        Module m = Rdma.class.getModule();
        return m.isNamed() ? "module " + m.getName() : "the unnamed module (class path)";
    }
}
