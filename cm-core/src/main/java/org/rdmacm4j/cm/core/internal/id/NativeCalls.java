package org.rdmacm4j.cm.core.internal.id;

import org.rdmacm4j.cm.core.internal.port.CmPort;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.CmTuning;

/**
 * The native calls a machine's actions name (each an {@link Action.NativeCall}: its failure is the
 * step's CallFailed), on the port: those that mean the same for every kind here, the rest by the
 * kind's {@link IdRole}. The id options go in with the call whose step reads them. Dispatcher thread.
 */
final class NativeCalls {
    private final CmPort port;

    NativeCalls(CmPort port) {
        this.port = port;
    }

    /** Runs one native call of {@code d}'s actions; throws PortCallException if it failed. */
    void run(IdDriver d, Action.NativeCall call, IdRole role) {
        switch (call) {
            case Action.CreateId c -> {
                NativeId nid = d.kind.ud() ? port.createUdId() : port.createId();
                nid.attach(d);
                d.nativeId = nid;
                d.idDestroyed = false;
            }
            case Action.ResolveAddr r -> port.resolveAddr(d.nativeId, d.source, d.destination, r.timeoutMs());
            // The id options go in with the call whose step reads them (the path record, the RTS
            // transition); a failure of either is the step's failure. Each new id of a retry gets them again.
            case Action.ResolveRoute r -> {
                d.typeOfService.ifPresent(tos -> port.setTypeOfService(d.nativeId, tos));
                port.resolveRoute(d.nativeId, r.timeoutMs());
            }
            case Action.Connect c -> {
                d.ackTimeout.ifPresent(t -> port.setAckTimeout(d.nativeId, t));
                port.connect(d.nativeId, c.privateData(), clamp(c.tuning(), port.deviceLimits(d.nativeId)));
            }
            case Action.Accept a -> {
                if (!role.runNative(d, a)) {
                    d.ackTimeout.ifPresent(t -> port.setAckTimeout(d.nativeId, t));
                    port.accept(d.nativeId, a.privateData(), clamp(a.tuning(), port.deviceLimits(d.nativeId)));
                }
            }
            case Action.CreateQp c -> role.runNative(d, c);
            case Action.JoinMulticast j -> {
                if (!role.runNative(d, j)) {
                    throw new PortCallException("rdma_join_multicast_ex", 95, "multicast needs a UD id; this one is RC",
                            null);
                }
            }
            case Action.Relisten r -> role.runNative(d, r);
        }
    }

    /** The device's limits cap what the policy asks for (rdma_connect/rdma_accept fail with EINVAL beyond them). */
    public static CmTuning clamp(CmTuning wanted, CmTuning device) {
        if (device == null) {
            return wanted;
        }
        return new CmTuning(Math.min(wanted.responderResources(), device.responderResources()),
                Math.min(wanted.initiatorDepth(), device.initiatorDepth()), wanted.retryCount(),
                wanted.rnrRetryCount());
    }
}
