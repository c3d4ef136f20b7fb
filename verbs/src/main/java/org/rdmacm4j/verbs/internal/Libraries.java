package org.rdmacm4j.verbs.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;

/**
 * Loads librdmacm.so.1 and libibverbs.so.1 once, by soname (the runtime packages install only
 * the .so.1 names; the unversioned .so comes with the -dev packages). A library that does not
 * load is remembered with its reason instead of failing class initialisation, so that
 * {@code Rdma.unavailabilityCause()} can say exactly what is missing.
 *
 * <p>Any thread.
 */
public final class Libraries {
    private Libraries() { }

    public static final Linker LINKER = Linker.nativeLinker();
    public static final String RDMACM_SONAME = "librdmacm.so.1";
    public static final String IBVERBS_SONAME = "libibverbs.so.1";

    private static final Loaded RDMACM = load(RDMACM_SONAME);
    private static final Loaded IBVERBS = load(IBVERBS_SONAME);

    private record Loaded(SymbolLookup lookup, String failure) { }

    private static Loaded load(String soname) {
        try {
            // Arena.global(): both libraries stay mapped for the life of the process, as
            // librdmacm's own device list does ("devices remain open while librdmacm is loaded").
            return new Loaded(SymbolLookup.libraryLookup(soname, Arena.global()), null);
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return new Loaded(null, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** Why librdmacm did not load, or null if it did. */
    public static String rdmacmFailure() { return RDMACM.failure(); }

    /** Why libibverbs did not load, or null if it did. */
    public static String ibverbsFailure() { return IBVERBS.failure(); }

    public static SymbolLookup rdmacm() { return loaded(RDMACM, RDMACM_SONAME, "librdmacm1"); }

    public static SymbolLookup ibverbs() { return loaded(IBVERBS, IBVERBS_SONAME, "libibverbs1"); }

    /** The C library (strerror, fcntl, poll) through the linker's default lookup. */
    public static SymbolLookup libc() { return LINKER.defaultLookup(); }

    private static SymbolLookup loaded(Loaded l, String soname, String debianPackage) {
        if (l.lookup() == null) {
            throw new IllegalStateException(soname + " could not be loaded (" + l.failure()
                    + "); install the Debian package " + debianPackage);
        }
        return l.lookup();
    }

    /** True if this module may call restricted FFM methods without a warning or failure. */
    public static boolean nativeAccessEnabled() {
        return Libraries.class.getModule().isNativeAccessEnabled();
    }

    /** The exact flag that enables native access for this module where it is loaded from. */
    public static String nativeAccessFlag() {
        Module m = Libraries.class.getModule();
        return "--enable-native-access=" + (m.isNamed() ? m.getName() : "ALL-UNNAMED");
    }
}
