package org.rdmacm4j.cm.core.internal;

/**
 * The core's handle on one native rdma_cm_id and the objects the {@link CmPort} made for it (QP,
 * CQ, completion channel). The port subclasses it; the dispatcher attaches the id's driver.
 * Dispatcher thread only.
 */
public abstract class NativeId {
    private IdDriver driver;

    IdDriver driver() {
        return driver;
    }

    void attach(IdDriver d) {
        this.driver = d;
    }
}
