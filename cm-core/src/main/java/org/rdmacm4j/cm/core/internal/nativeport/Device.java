package org.rdmacm4j.cm.core.internal.nativeport;

import org.rdmacm4j.cm.core.internal.poll.SlotPool;
import org.rdmacm4j.verbs.cm.CmDevices;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;

/**
 * A device in use: librdmacm's context (borrowed through rdma_get_devices), its PD, its slot pool,
 * its spare CQs, its async fd's epoll token, and how many ids hold it. {@link Devices} opens and closes it.
 *
 * <p>Threads: the dispatcher's.
 */
final class Device {
    final CmDevices snapshot;
    final DeviceContext context;
    final ProtectionDomain pd;
    final SlotPool pool;
    /** CQs of finished connections kept for the next QP on the device. */
    final CqSpares spares;
    final long token;
    int users;

    Device(CmDevices snapshot, DeviceContext context, long token, SpareTrim trim) {
        this.spares = new CqSpares(trim);
        this.snapshot = snapshot;
        this.context = context;
        this.pd = context.allocatePd();
        this.pool = new SlotPool(pd);
        this.token = token;
    }
}
