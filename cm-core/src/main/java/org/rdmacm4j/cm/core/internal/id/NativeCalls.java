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

    /**
     * Runs one native call of {@code d}'s actions (an {@link Action.NativeCall}); throws
     * PortCallException if it failed. Takes the call as an {@link Action}: the casts below are to
     * records (one class compare each), where a cast to the NativeCall interface first would be a
     * call to C1's slow subtype-check stub per native call. {@code variant} is the call's
     * {@code variant()}, read once by the engine.
     */
    void run(IdDriver d, Action call, Action.Variant variant, IdRole role) {
        switch (variant) {
            case CREATE_ID -> {
                NativeId nid = d.kind.ud() ? port.createUdId() : port.createId();
                nid.attach(d);
                d.nativeId = nid;
                d.idDestroyed = false;
            }
            case RESOLVE_ADDR -> port.resolveAddr(d.nativeId, d.source, d.destination, ((Action.ResolveAddr) call).timeoutMs());
            // The id options go in with the call whose step reads them (the path record, the RTS
            // transition); a failure of either is the step's failure. Each new id of a retry gets them again.
            case RESOLVE_ROUTE -> {
                Action.ResolveRoute r = (Action.ResolveRoute) call;
                if (d.typeOfService.isPresent()) {   // not ifPresent(lambda): see setAckTimeout
                    port.setTypeOfService(d.nativeId, d.typeOfService.getAsInt());
                }
                port.resolveRoute(d.nativeId, r.timeoutMs());
            }
            case CONNECT -> {
                Action.Connect c = (Action.Connect) call;
                setAckTimeout(d);
                port.connect(d.nativeId, c.privateData(), clamp(c.tuning(), port.deviceLimits(d.nativeId)));
            }
            case ACCEPT -> {
                Action.Accept a = (Action.Accept) call;
                if (!role.runNative(d, a)) {
                    setAckTimeout(d);
                    port.accept(d.nativeId, a.privateData(), clamp(a.tuning(), port.deviceLimits(d.nativeId)));
                }
            }
            case CREATE_QP -> role.runNative(d, (Action.CreateQp) call);
            case JOIN_MULTICAST -> {
                Action.JoinMulticast j = (Action.JoinMulticast) call;
                if (!role.runNative(d, j)) {
                    throw new PortCallException("rdma_join_multicast_ex", 95, "multicast needs a UD id; this one is RC",
                            null);
                }
            }
            case RELISTEN -> role.runNative(d, (Action.Relisten) call);
            case ACK_CM_EVENT, ACK_ASYNC_EVENT, REJECT, NOTIFY, DISCONNECT, DRAIN_QP, DESTROY_QP, QUIESCE_CQ, DESTROY_CQ,
                 DESTROY_COMP_CHANNEL, DESTROY_ID, LEAK_ID, LEAVE_MULTICAST, OFFER_REQUEST, REFUSE_REQUEST,
                 SETTLE_REQUEST, ARM_TIMER, CANCEL_TIMER, COMPLETE_FUTURE, FAIL_FUTURE, CALL_HANDLER, LOG_UNEXPECTED ->
                    throw new AssertionError("not a native call: " + call);
        }
    }

    /**
     * Sets the id's ack timeout, if it has one. Not {@code ifPresent} with a lambda: that lambda
     * captures and is made on every connect and accept, under C1 a native VM call each
     * (docs/benchmarks.md, "Capturing lambdas under C1").
     */
    private void setAckTimeout(IdDriver d) {
        if (d.ackTimeout.isPresent()) {
            port.setAckTimeout(d.nativeId, d.ackTimeout.getAsInt());
        }
    }

    /** The device's limits cap what the policy asks for (rdma_connect/rdma_accept fail with EINVAL beyond them). */
    public static CmTuning clamp(CmTuning wanted, CmTuning device) {
        if (device == null || wanted.responderResources() <= device.responderResources()
                && wanted.initiatorDepth() <= device.initiatorDepth()) {
            return wanted;   // within the limits already (the usual case): no new tuning per connect/accept
        }
        return new CmTuning(Math.min(wanted.responderResources(), device.responderResources()),
                Math.min(wanted.initiatorDepth(), device.initiatorDepth()), wanted.retryCount(),
                wanted.rnrRetryCount());
    }
}
