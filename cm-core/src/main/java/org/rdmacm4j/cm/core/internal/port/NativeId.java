package org.rdmacm4j.cm.core.internal.port;

/**
 * The core's handle on one native rdma_cm_id and the objects the {@link CmPort} made for it (QP,
 * CQ, completion channel). The port subclasses it; the dispatcher attaches the id's owner (its
 * driver, which the port never looks into). Dispatcher thread only.
 */
public abstract class NativeId {
    /** What the dispatcher attaches to a native id: the id's driver. A marker, so the port stays below it. */
    public interface Owner { }

    private Owner owner;

    public Owner owner() {
        return owner;
    }

    public void attach(Owner o) {
        this.owner = o;
    }
}
