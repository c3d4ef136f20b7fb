package org.rdmacm4j.verbs.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The lifecycle of one native object: open or closed, its parent, its live children.
 *
 * <p>Each native wrapper class holds one of these (composition, so the wrappers stay final).
 * It gives three guarantees the C API does not: use after close is an
 * {@link IllegalStateException} before any native call; closing a parent with live children is
 * an {@link IllegalStateException} that names them; close is idempotent.
 *
 * <p>Any thread may ask; the native object's owner thread should be the one that closes it
 * (a close racing a use on another thread is the caller's bug, and not detected).
 *
 * <p>Cheap to make and to free, because a connection makes several (its ids, its QP) on the CM
 * dispatcher (issue 21): the description can be given as a {@link Supplier}, built only when a
 * message or {@link #live()} needs it (a string concatenation per object was 3 % of the
 * dispatcher's Java samples; the wrappers pass a small record, not a lambda, whose call site would
 * be linked at a process's first connection); a parent counts its children instead of keeping them
 * (their names are looked up in the live set only for the message of a refused close), and the
 * parents are a fixed array; the hash of an object is a number from a sequence, not the JVM's
 * identity hash (a runtime call the first time each object is hashed, into the live set).
 *
 * <p>The live set is an {@link AddressTable} keyed by the object's serial number, behind the table's
 * monitor, as {@link Registry} is and for its reason: a {@code ConcurrentHashMap} set cost each object
 * a putVal and a replaceNode (1.3k user instructions per connection under C1 in the guest, with
 * {@code Ownership.<init>}'s 1.1k), and took about as many atomic operations (a bin CAS and a count CAS
 * to add; the bin's monitor and a count CAS to remove) as the uncontended monitor's two pairs. The
 * set is read only for messages and diagnostics ({@link #live()}, a refused close).
 *
 * <p>No monitors: the closed flag and the child count are one int changed by compare-and-set
 * ({@link #state}), the parents array by atomic swaps. Each native object of a connection took
 * five to eleven monitor enters and exits here (its own, and each parent's as it adopted and
 * forgot the child), and the guest's instruction profile (docs/benchmarks.md, "Instructions per
 * connection, counted") showed C1's monitor slow paths and the runtime's monitor code among the
 * bindings' costs. A CAS is what a monitor's fast path costs at best, with no slow path. With
 * the sampled Cleaner below: VerbsFloor's user instructions per connection 299-306 k -> 280-285 k,
 * rdmacm4j's 396 k -> 382 k (s33-ab1).
 *
 * <p>The leak warning ({@link #watch}) registers a Cleaner for one in {@value #WATCH_SAMPLE} of the
 * per-connection objects ({@link #watchSampled}) unless {@code -Dorg.rdmacm4j.leakCheck=all}: a
 * Cleaner registration per object (an allocation, the Cleaner's locked list on register and on
 * close, a reference the collector must discover) is a safety net every connection paid for; a
 * systematic leak still shows within {@value #WATCH_SAMPLE} connections, as with Netty's sampled
 * leak detector.
 */
public final class Ownership {
    /** The open objects by {@link #serial}; guarded by its own monitor (see the class comment). */
    private static final AddressTable<Ownership> LIVE = new AddressTable<>();
    private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.verbs");

    private static final Ownership[] NO_PARENTS = new Ownership[0];
    /** Serial numbers: the live set's keys, from 1 (AddressTable's 0 marks a free slot); a long never wraps. */
    private static final AtomicLong SERIALS = new AtomicLong();

    private final long serial = SERIALS.incrementAndGet();
    /** The serial number spread by the golden ratio. */
    private final int hash = (int) serial * 0x9E3779B9;

    /** {@link #state}'s closed bit; the bits below it count the open children. */
    private static final int CLOSED = 1 << 30;
    private static final int CHILDREN = CLOSED - 1;
    /** One in this many {@link #watchSampled} objects gets a Cleaner (a power of two). */
    static final int WATCH_SAMPLE = 64;
    private static final boolean WATCH_ALL = "all".equals(System.getProperty("org.rdmacm4j.leakCheck"));
    private static final AtomicInteger SAMPLED = new AtomicInteger();
    /** Cleaner registrations made by {@link #watch}, for the tests. */
    private static final AtomicInteger WATCHED = new AtomicInteger();

    private static final VarHandle STATE;
    private static final VarHandle PARENTS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(Ownership.class, "state", int.class);
            PARENTS = l.findVarHandle(Ownership.class, "parents", Ownership[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The description once built (benign race: every thread builds the same string). */
    private volatile String what;
    private final Supplier<String> describer;
    /**
     * The open objects this one depends on; volatile so that a refused close can name a parent's
     * children by scanning; swapped whole (never changed in place).
     */
    private volatile Ownership[] parents = NO_PARENTS;
    /**
     * {@link #CLOSED} or not, plus how many open objects depend on this one: one word so that
     * adopting a child and closing can never both succeed (compare-and-set through STATE). Read
     * with a plain volatile read on the data path ({@link #ensureOpen}).
     */
    @SuppressWarnings("unused")   // through STATE, and volatile reads
    private volatile int state;

    /**
     * {@code parents} (none for root objects) must be open. An object may depend on several:
     * a QP on its PD, its CQs, its SRQ and its rdma_cm id; each then refuses to close first. Nulls
     * among them are skipped. An array without nulls is kept, not copied: pass a fresh one (varargs
     * do), and never write it afterwards.
     */
    public Ownership(String what, Ownership... parents) {
        this(null, what, parents);
    }

    /**
     * As {@link #Ownership(String, Ownership...)}, with the description built on first use. The
     * supplier must not reach the wrapper that holds this object (hold values, not the wrapper): the
     * wrapper's cleaner ({@link #watch}) holds it.
     */
    public Ownership(Supplier<String> what, Ownership... parents) {
        this(what, null, parents);
    }

    private Ownership(Supplier<String> describer, String what, Ownership[] parents) {
        this.describer = describer;
        this.what = what;
        if (parents != null) {   // null (a single null argument): a root object
            this.parents = adoptedBy(parents);
        }
        // Listed live only once every parent took it: a constructor that throws (a closed parent)
        // leaves nothing behind, neither a live entry nor a child count on the parents before it.
        synchronized (LIVE) {
            LIVE.put(serial, this);
        }
    }

    /** The non-null {@code parents}, each of which has adopted this object; none has if one is closed. */
    private Ownership[] adoptedBy(Ownership[] parents) {
        int n = 0;
        for (Ownership p : parents) {
            if (p != null) {
                n++;
            }
        }
        // The caller's array when it holds no null (every caller passes a fresh one: varargs, or one
        // built for the call, never written after), not a copy of it: one array less per object.
        Ownership[] mine = n == parents.length ? parents : new Ownership[n];
        int i = 0;
        try {
            for (Ownership p : parents) {
                if (p != null) {
                    p.adopt(this);
                    mine[i++] = p;
                }
            }
        } catch (RuntimeException e) {
            for (int j = 0; j < i; j++) {
                mine[j].forget();
            }
            throw e;
        }
        return mine;
    }

    private void adopt(Ownership child) {
        int s;
        do {
            s = state;
            if ((s & CLOSED) != 0) {
                throw closedException();
            }
        } while (!STATE.weakCompareAndSet(this, s, s + 1));
    }

    /** A child closed or moved to another parent. */
    private void forget() {
        STATE.getAndAdd(this, -1);
    }

    /** What the object is, as in every message about it. */
    private String what() {
        String w = what;
        if (w == null) {
            w = describer.get();
            what = w;
        }
        return w;
    }

    /** Throws {@link IllegalStateException} if closed. */
    public void ensureOpen() {
        if ((state & CLOSED) != 0) {
            throw closedException();
        }
    }

    private IllegalStateException closedException() {
        return new IllegalStateException(what() + " is closed");
    }

    public boolean isClosed() {
        return (state & CLOSED) != 0;
    }

    /**
     * Starts a close: false if already closed (the caller returns at once); throws if children
     * are still open. After true the caller destroys the native object and calls
     * {@link #closed()}, or {@link #reopen()} if the destroy failed.
     */
    public boolean beginClose() {
        int s;
        do {
            s = state;
            if ((s & CLOSED) != 0) {
                return false;
            }
            if ((s & CHILDREN) != 0) {
                break;
            }
        } while (!STATE.weakCompareAndSet(this, s, CLOSED));
        if ((s & CHILDREN) == 0) {
            return true;
        }
        throw new IllegalStateException("cannot close " + what() + ": still open: " + childNames() + " (close them first)");
    }

    /** The open objects that depend on this one, by description, sorted (the live set, scanned). */
    private String childNames() {
        return liveNow().stream().filter(o -> o.dependsOn(this)).map(Ownership::what).sorted()
                .collect(Collectors.joining(", "));
    }

    private boolean dependsOn(Ownership parent) {
        for (Ownership p : parents) {
            if (p == parent) {
                return true;
            }
        }
        return false;
    }

    /**
     * The close protocol of every native wrapper, written once: returns at once if already
     * closed (idempotent); throws {@link IllegalStateException} naming the children still open;
     * otherwise runs {@code destroy} (the native destroy, then any bookkeeping that must only
     * happen once it succeeded) and marks the object closed. If {@code destroy} throws, the
     * native object still exists: the wrapper stays open and usable, and the exception
     * propagates.
     */
    public void close(Runnable destroy) {
        if (!beginClose()) {
            return;
        }
        try {
            destroy.run();
        } catch (RuntimeException e) {
            reopen();
            throw e;
        }
        closed();
    }

    /** The native destroy failed: the object still exists and stays usable. */
    public void reopen() {
        STATE.getAndBitwiseAnd(this, ~CLOSED);   // no child could be adopted while closed: the count is 0
    }

    /** The native object is gone; the parents forget it. */
    public void closed() {
        synchronized (LIVE) {
            LIVE.remove(serial);
        }
        Ownership[] ps = (Ownership[]) PARENTS.getAndSet(this, NO_PARENTS);
        for (Ownership p : ps) {
            p.forget();
        }
    }

    /** Moves this object from one parent to another (an id migrated to another event channel). */
    public void reparent(Ownership oldParent, Ownership newParent) {
        newParent.adopt(this);
        Ownership[] was;
        Ownership[] ps;
        do {
            was = parents;
            ps = was.clone();
            for (int i = 0; i < ps.length; i++) {
                if (ps[i] == oldParent) {
                    ps[i] = newParent;
                }
            }
        } while (!PARENTS.compareAndSet(this, was, ps));
        oldParent.forget();
    }

    /**
     * A safety net, not a way to free: if {@code wrapper} becomes unreachable while still open,
     * log a warning naming it. The native object is not destroyed from the cleaner thread
     * (that would break the owner-thread rule and the teardown order); it stays a leak, loudly.
     */
    public void watch(Object wrapper) {
        WATCHED.incrementAndGet();
        CLEANER.register(wrapper, new LeakWarning(this));
    }

    /**
     * The cleaning action of {@link #watch}: a named class, not a capturing lambda, because every
     * connection's CQ and completion channel are watched, and under C1 (the launchers' JIT) making
     * a capturing lambda is a native call into the VM (docs/architecture.md, "Linkage"). Holds the
     * ownership only, never the wrapper.
     */
    private static final class LeakWarning implements Runnable {
        private final Ownership ownership;

        LeakWarning(Ownership ownership) {
            this.ownership = ownership;
        }

        @Override
        public void run() {
            if (!ownership.isClosed()) {
                LOG.log(System.Logger.Level.WARNING, "{0} was garbage-collected without close(): its native"
                        + " object leaks until the process exits", ownership.what());
            }
        }
    }

    /**
     * {@link #watch} for the kinds every connection makes (ids, QPs): one in {@link #WATCH_SAMPLE}
     * of them, or all with {@code -Dorg.rdmacm4j.leakCheck=all}.
     */
    public void watchSampled(Object wrapper) {
        if (WATCH_ALL || (SAMPLED.getAndIncrement() & (WATCH_SAMPLE - 1)) == 0) {
            watch(wrapper);
        }
    }

    /** How many objects {@link #watch} has registered with the Cleaner, for the tests. */
    static int watched() {
        return WATCHED.get();
    }

    /** Every native object of this JVM that is open now, by description (sorted). */
    public static java.util.List<String> live() {
        return liveNow().stream().map(Ownership::what).sorted().toList();
    }

    /** The open objects now, copied under the monitor (their descriptions are built outside it). */
    private static List<Ownership> liveNow() {
        synchronized (LIVE) {
            return LIVE.values();
        }
    }

    /** Live children, for tests and diagnostics. */
    public int childCount() {
        return state & CHILDREN;
    }

    /** Consistent with identity equality: a number from the serial sequence ({@code serial}), not the identity hash. */
    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public String toString() {
        return what();
    }
}
