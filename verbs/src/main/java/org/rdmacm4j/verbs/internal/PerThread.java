package org.rdmacm4j.verbs.internal;

import java.util.function.Supplier;

/**
 * A {@link ThreadLocal} with a one-entry cache in front: the value of the thread that asked last,
 * kept with that thread, is handed out without a ThreadLocal lookup while the same thread keeps
 * asking. In rdmacm4j nearly every native call comes from one thread (the CM dispatcher, or a
 * completion poller), so nearly every call hits the cache; any other thread (a platform or a
 * virtual one) misses, takes the ThreadLocal's value and becomes the cached one.
 *
 * <p>Why: under C1, the launchers' JIT, {@code ThreadLocal.get} ends in
 * {@code Reference.refersTo}, which C1 does not intrinsify: each lookup is a JNI call into the VM
 * (JVM_ReferenceRefersTo). The errno capture segment and the scratch block were looked up that
 * way before every control call, about 10k user instructions per connection in the guest.
 *
 * <p>Correct for any thread, without a lock: a thread's value never changes (the ThreadLocal's
 * initial value), so an entry whose owner is the current thread holds that thread's value however
 * old the entry is. The field is read and written without synchronisation on purpose; the entry
 * is immutable with final fields, so a thread that sees another thread's entry sees it whole
 * (JLS 17.5), finds that the owner is not itself and falls back. The entry keeps the last asking
 * thread and its value reachable until another thread replaces it: one entry, never more.
 */
public final class PerThread<T> {
    private final ThreadLocal<T> values;
    private Last<T> last;   // racy on purpose: see the class comment

    public PerThread(Supplier<? extends T> initial) {
        this.values = ThreadLocal.withInitial(initial);
    }

    /** The current thread's value. */
    public T get() {
        Last<T> l = last;
        if (l != null && l.owner == Thread.currentThread()) {
            return l.value;
        }
        return refresh();
    }

    private T refresh() {
        Thread me = Thread.currentThread();
        T v = values.get();
        last = new Last<>(me, v);
        return v;
    }

    /** A thread and its value; final fields, so safe to publish through a race. */
    private static final class Last<T> {
        final Thread owner;
        final T value;

        Last(Thread owner, T value) {
            this.owner = owner;
            this.value = value;
        }
    }
}
