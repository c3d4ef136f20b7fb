package org.rdmacm4j.cm.statemachine.machine;

import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Phase;
import org.rdmacm4j.cm.statemachine.RejectReason;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.Draft;
import org.rdmacm4j.cm.statemachine.machine.Teardown.Mode;
import org.rdmacm4j.cm.statemachine.machine.Teardown.Stage;

/**
 * An established RC connection, active or passive: the inputs that end it and those that only
 * inform the handler. Returns the teardown stage entered, or {@link #STAY} (null) to stay established.
 *
 * <p>A Stage or null, not an {@code Optional<Stage>}: the caller tests it against null and uses it,
 * where it called {@code isPresent} and {@code get}, per step of an established id, under C1.
 */
final class Live {
    private Live() {
    }

    /** {@code v} is {@code in}'s variant, which the machine asked for once this step. */
    static Stage onInput(Phase phase, Input in, Input.Variant v, Draft d, Emitter out, ConnectionPolicy p) {
        return switch (v) {
            case CM_EVENT -> {
                Input.CmEvent e = (Input.CmEvent) in;
                yield switch (e.type()) {
                    case DISCONNECTED -> {
                        out.notice(new Notice.Disconnected(e.status()));
                        yield Teardown.peerGone(d, out, p);
                    }
                    case UNREACHABLE -> {
                        // Linux >= 6.0 netevent path (libfabric #12362): the path is gone; tear down.
                        yield fatal(d, out, p, new Failure.Unreachable(e.status()), Mode.ABORT);
                    }
                    case CONNECT_ERROR -> fatal(d, out, p, new Failure.ConnectError(e.status()), Mode.ABORT);
                    case ADDR_CHANGE -> {
                        out.notice(Singletons.ADDRESS_CHANGED_NOTICE);
                        yield p.disconnectOnAddrChange()
                                ? Teardown.begin(d, out, p, Mode.GRACEFUL, Singletons.CLOSED)
                                : STAY;
                    }
                    case DEVICE_REMOVAL -> {
                        out.notice(Singletons.DEVICE_REMOVED_NOTICE);
                        yield Teardown.begin(d, out, p, Mode.DEVICE_GONE, Singletons.DEVICE_REMOVED);
                    }
                    case TIMEWAIT_EXIT -> stay(out, phase, in, "TIMEWAIT_EXIT before DISCONNECTED");
                    case ESTABLISHED -> stay(out, phase, in, "duplicate ESTABLISHED");
                    // The passive side timed out its accept and sent a REJ after we saw ESTABLISHED (or the
                    // CM rejected a late message): the QP is dead. As UNREACHABLE: tell, tear down.
                    case REJECTED -> fatal(d, out, p, new Failure.Rejected(RejectReason.decode(p.transport(), e.status(),
                            e.params().privateData())), Mode.ABORT);
                    case ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_RESPONSE ->
                            stay(out, phase, in, "resolution/connect event on an established id");
                    case CONNECT_REQUEST -> stay(out, phase, in, "connection request on a non-listening id");
                    case MULTICAST_JOIN, MULTICAST_ERROR -> stay(out, phase, in, "multicast event on an RC id");
                };
            }
            case ASYNC_EVENT -> {
                Input.AsyncEvent e = (Input.AsyncEvent) in;
                yield switch (e.type()) {
                    case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, SRQ_ERR, WQ_FATAL ->
                            fatal(d, out, p, new Failure.QueuePairError(e.type()), Mode.ABORT);
                    case DEVICE_FATAL -> {
                        out.notice(Singletons.DEVICE_REMOVED_NOTICE);
                        yield Teardown.begin(d, out, p, Mode.DEVICE_GONE, Singletons.DEVICE_REMOVED);
                    }
                    case PATH_MIG, PATH_MIG_ERR, PORT_ERR, SRQ_LIMIT_REACHED -> {
                        out.notice(new Notice.Async(e.type()));
                        yield STAY;
                    }
                    case COMM_EST, SQ_DRAINED, PORT_ACTIVE, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, QP_LAST_WQE_REACHED,
                         CLIENT_REREGISTER, GID_CHANGE -> STAY;
                };
            }
            case TIMER_EXPIRED -> stay(out, phase, in, "no timer runs while established");
            case QUIESCED -> stay(out, phase, in, "nothing is being quiesced");
            case REQUEST_SETTLED -> stay(out, phase, in, "only a listener offers requests");
            case CALLS_SUCCEEDED -> STAY;
            case CALL_FAILED -> stay(out, phase, in, "no native call is outstanding");
            case CLOSE -> {
                Input.Command.Close c = (Input.Command.Close) in;
                d.addCloseWaiter(c.request());
                yield Teardown.begin(d, out, p, Mode.GRACEFUL, Singletons.CLOSED);
            }
            case ABORT -> {
                Input.Command.Abort c = (Input.Command.Abort) in;
                d.addCloseWaiter(c.request());
                yield Teardown.begin(d, out, p, Mode.ABORT, Singletons.CLOSED);
            }
            case DISCONNECT -> {
                Input.Command.Disconnect c = (Input.Command.Disconnect) in;
                d.addDisconnectWaiter(c.request());
                yield Teardown.begin(d, out, p, Mode.GRACEFUL, Singletons.CLOSED);
            }
            case CANCEL -> STAY;
            case CONNECT -> illegal(out, ((Input.Command.Connect) in).request(), "already connected");
            case ACCEPT -> illegal(out, ((Input.Command.Accept) in).request(), "already connected");
            case REJECT -> illegal(out, ((Input.Command.Reject) in).request(), "already connected");
            case JOIN_MULTICAST -> illegal(out, ((Input.Command.JoinMulticast) in).request(), "multicast needs a UD id");
            case LEAVE_MULTICAST -> illegal(out, ((Input.Command.LeaveMulticast) in).request(), "multicast needs a UD id");
        };
    }

    /** What {@link #onInput} answers to stay established: no teardown stage. */
    static final Stage STAY = null;

    private static Stage fatal(Draft d, Emitter out, ConnectionPolicy p, Failure failure, Mode mode) {
        out.notice(new Notice.Error(failure));
        return Teardown.begin(d, out, p, mode, failure);
    }

    static Stage stay(Emitter out, Phase phase, Input in, String why) {
        out.unexpected(phase, in, why);
        return STAY;
    }

    static Stage illegal(Emitter out, long request, String why) {
        out.fail(request, new Failure.IllegalState(why));
        return STAY;
    }
}
