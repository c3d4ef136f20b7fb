package org.rdmacm4j.verbs.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 */
public final class Ownership {
    private static final Set<Ownership> LIVE = ConcurrentHashMap.newKeySet();
    private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.verbs");

    private final String what;
    private final java.util.List<Ownership> parents = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Set<Ownership> children = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;   // written under this; read without a lock on the data path

    /**
     * {@code parents} (none for root objects) must be open. An object may depend on several:
     * a QP on its PD, its CQs, its SRQ and its rdma_cm id; each then refuses to close first.
     */
    public Ownership(String what, Ownership... parents) {
        this.what = what;
        LIVE.add(this);
        if (parents == null) {   // a single null argument: a root object
            return;
        }
        for (Ownership p : parents) {
            if (p != null) {
                p.adopt(this);
                this.parents.add(p);
            }
        }
    }

    private synchronized void adopt(Ownership child) {
        ensureOpen();
        children.add(child);
    }

    /** Throws {@link IllegalStateException} if closed. */
    public void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(what + " is closed");
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Starts a close: false if already closed (the caller returns at once); throws if children
     * are still open. After true the caller destroys the native object and calls
     * {@link #closed()}, or {@link #reopen()} if the destroy failed.
     */
    public synchronized boolean beginClose() {
        if (closed) {
            return false;
        }
        if (!children.isEmpty()) {
            throw new IllegalStateException("cannot close " + what + ": still open: "
                    + children.stream().map(c -> c.what).sorted().collect(Collectors.joining(", "))
                    + " (close them first)");
        }
        closed = true;
        return true;
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
    public synchronized void reopen() {
        closed = false;
    }

    /** The native object is gone; the parents forget it. */
    public void closed() {
        LIVE.remove(this);
        for (Ownership p : parents) {
            p.children.remove(this);
        }
        parents.clear();
    }

    /** Moves this object from one parent to another (an id migrated to another event channel). */
    public void reparent(Ownership oldParent, Ownership newParent) {
        newParent.adopt(this);
        parents.add(newParent);
        oldParent.children.remove(this);
        parents.remove(oldParent);
    }

    /**
     * A safety net, not a way to free: if {@code wrapper} becomes unreachable while still open,
     * log a warning naming it. The native object is not destroyed from the cleaner thread
     * (that would break the owner-thread rule and the teardown order); it stays a leak, loudly.
     */
    public void watch(Object wrapper) {
        CLEANER.register(wrapper, () -> {
            if (!closed) {
                LOG.log(System.Logger.Level.WARNING, "{0} was garbage-collected without close(): its native"
                        + " object leaks until the process exits", what);
            }
        });
    }

    /** Every native object of this JVM that is open now, by description (sorted). */
    public static java.util.List<String> live() {
        return LIVE.stream().map(o -> o.what).sorted().toList();
    }

    /** Live children, for tests and diagnostics. */
    public int childCount() {
        return children.size();
    }

    @Override
    public String toString() {
        return what;
    }
}
