package org.rdmacm4j.verbs.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Links every downcall handle of the bindings without calling one: initialises each binding class
 * and each of its per-function holder classes (CmLib and IbvLib link on first use, one holder per
 * function), then the {@code invokeExact} call sites of their shapes ({@link CallSiteShapes}).
 * Linking needs the two libraries and native access, not a device, so an AOT-cache training run
 * (cm-core's {@code ColdStart}) can do on a build machine what the first connection otherwise does
 * in the JVM that makes it: spin the downcall stubs and their lambda forms.
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

    /**
     * The holders of the functions one RC connection's life calls, client and server side, in the
     * order a process's first connection reaches them: the id and the listener, address and route
     * resolution, the CM events, the device's PD, completion channel and CQ, the provider's ops
     * ({@link OpsTable}: a CQ and a QP look theirs up when made), the message slots' memory
     * registration, the QP, connect and accept; the poller's completion events; then teardown
     * (disconnect, moving a used QP to ERR, destroy, deregistration, the CQ, its channel, the PD),
     * which the first close would otherwise link. Kept complete by {@code PrelinkIT} (guest): a fresh
     * JVM's first connection, a message each way and its close link nothing this has not. Functions
     * sharing a descriptor with an earlier one cost little (the JDK links a descriptor's stub once);
     * each new descriptor costs a stub and its lambda forms, 5-15 ms on a host and 50-200 ms under the
     * guest's TCG.
     */
    private static final List<Class<?>> CONNECTION_PATH = List.of(
            CmLib.CreateId.class, CmLib.BindAddr.class, CmLib.Listen.class,
            CmLib.ResolveAddr.class, CmLib.GetCmEventPlain.class, CmLib.GetCmEvent.class, CmLib.AckCmEvent.class, CmLib.ResolveRoute.class,
            IbvLib.QueryDevice.class, IbvLib.AllocPd.class, IbvLib.CreateCompChannel.class, IbvLib.CreateCq.class,
            OpsTable.class, IbvLib.RegMr.class, CmLib.CreateQp.class, CmLib.Connect.class, CmLib.Accept.class,
            IbvLib.GetCqEventPlain.class, IbvLib.GetCqEvent.class, IbvLib.AckCqEvents.class,
            CmLib.Disconnect.class, IbvLib.ModifyQp.class, CmLib.DestroyQp.class, CmLib.DestroyId.class,
            IbvLib.DeregMr.class, IbvLib.DestroyCq.class, IbvLib.DestroyCompChannel.class, IbvLib.DeallocPd.class);

    /**
     * Links the functions of {@link #CONNECTION_PATH}, in that order, without calling one. Any thread;
     * idempotent. A thread that needs a holder this is linking waits for it (class initialisation),
     * so running it beside the first connection never links a function twice.
     */
    public static Result linkConnectionPath() {
        return link(CONNECTION_PATH);
    }

    public static Result linkAll() {
        return link(bindingClasses());
    }

    /** Every binding class, each followed by its nested holders: what {@link #linkAll} initialises. */
    static List<Class<?>> bindingClasses() {
        List<Class<?>> classes = new ArrayList<>();
        for (Class<?> binding : BINDINGS) {
            classes.add(binding);
            classes.addAll(List.of(binding.getDeclaredClasses()));
        }
        return classes;
    }

    /**
     * Initialises each class in order, collecting the failures, then links a call site of every
     * handle shape ({@link CallSiteShapes}), and reports what is linked after.
     */
    private static Result link(List<Class<?>> classes) {
        List<String> failures = new ArrayList<>();
        for (Class<?> c : classes) {
            initialise(c, failures);
        }
        CallSiteShapes.link();
        return new Result(Native.linkedFunctions().size(), List.copyOf(failures));
    }

    private static void initialise(Class<?> c, List<String> failures) {
        try {
            // Class.forName initialises without the access check a Lookup would make on a
            // nested holder of another class.
            Class.forName(c.getName(), true, c.getClassLoader());
        } catch (ClassNotFoundException | LinkageError | IllegalStateException e) {
            // A symbol this libibverbs lacks, or a library that did not load: reported, not fatal
            // (the process would fail the same way on its first call of that function).
            failures.add(c.getName() + ": " + e);
        }
    }
}
