package org.rdmacm4j.verbs.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Links every downcall handle of the bindings without calling one: initialises each binding class
 * and each of its per-function holder classes (CmLib and IbvLib link on first use, one holder per
 * function). Linking needs the two libraries and native access, not a device, so an AOT-cache
 * training run (cm-core's {@code ColdStart}) can do on a build machine what the first connection
 * otherwise does in the JVM that makes it: spin the downcall stubs and their lambda forms.
 *
 * <p>Any thread; idempotent (a class is initialised once per JVM).
 */
public final class Linking {
    private Linking() { }

    /** The classes whose static handles are linked at initialisation (plus their nested holders). */
    private static final List<Class<?>> BINDINGS = List.of(CmLib.class, IbvLib.class, SysLib.class, Libc.class,
            Errno.class, OpsTable.class, DevNull.class);

    /** What {@link #linkAll} did: the number of handles linked, and each class that failed to link, with why. */
    public record Result(int linked, List<String> failures) { }

    public static Result linkAll() {
        List<String> failures = new ArrayList<>();
        for (Class<?> binding : BINDINGS) {
            initialise(binding, failures);
            for (Class<?> holder : binding.getDeclaredClasses()) {
                initialise(holder, failures);
            }
        }
        return new Result(Native.linkedFunctions().size(), List.copyOf(failures));
    }

    private static void initialise(Class<?> c, List<String> failures) {
        try {
            // Class.forName initialises without the access check a Lookup would make on a
            // private nested holder.
            Class.forName(c.getName(), true, c.getClassLoader());
        } catch (ClassNotFoundException | LinkageError | IllegalStateException e) {
            // A symbol this libibverbs lacks, or a library that did not load: reported, not fatal
            // (the process would fail the same way on its first call of that function).
            failures.add(c.getName() + ": " + e);
        }
    }
}
