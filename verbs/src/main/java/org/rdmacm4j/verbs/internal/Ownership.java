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
    private final String what;
    private Ownership parent;   // changes only through reparent (rdma_migrate_id)
    private final Set<Ownership> children = ConcurrentHashMap.newKeySet();
    private boolean closed;   // guarded by this

    /** {@code parent} may be null (root objects); it must be open. */
    public Ownership(String what, Ownership parent) {
        this.what = what;
        this.parent = parent;
        if (parent != null) {
            parent.adopt(this);
        }
    }

    private synchronized void adopt(Ownership child) {
        ensureOpen();
        children.add(child);
    }

    /** Throws {@link IllegalStateException} if closed. */
    public synchronized void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(what + " is closed");
        }
    }

    public synchronized boolean isClosed() {
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

    /** The native destroy failed: the object still exists and stays usable. */
    public synchronized void reopen() {
        closed = false;
    }

    /** The native object is gone; the parent forgets it. */
    public void closed() {
        if (parent != null) {
            parent.children.remove(this);
        }
    }

    /** Moves this object under another parent (an id migrated to another event channel). */
    public void reparent(Ownership newParent) {
        newParent.adopt(this);
        if (parent != null) {
            parent.children.remove(this);
        }
        parent = newParent;
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
