package org.rdmacm4j.cm.statemachine.doc;

import java.util.List;
import java.util.stream.Collectors;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.RejectReason;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/** Short, stable text for actions (what the generated tables show). */
public final class Render {
    private Render() {
    }

    public static String actions(List<Action> actions) {
        return actions.isEmpty() ? "—" : actions.stream().map(Render::action).collect(Collectors.joining(", "));
    }

    public static String action(Action a) {
        return switch (a) {
            case Action.AckCmEvent x -> "AckCmEvent";
            case Action.AckAsyncEvent x -> "AckAsyncEvent";
            case Action.CreateId x -> "CreateId";
            case Action.ResolveAddr x -> "ResolveAddr";
            case Action.ResolveRoute x -> "ResolveRoute";
            case Action.CreateQp x -> "CreateQp";
            case Action.Connect x -> "Connect";
            case Action.Accept x -> "Accept";
            case Action.JoinMulticast x -> "JoinMulticast";
            case Action.Relisten x -> "Relisten";
            case Action.Reject x -> PrivateData.decodeSystemReject(x.privateData())
                    .map(r -> "Reject(" + r + ")").orElse("Reject");
            case Action.Notify x -> "Notify";
            case Action.Disconnect x -> "Disconnect";
            case Action.DrainQp x -> "DrainQp";
            case Action.DestroyQp x -> "DestroyQp";
            case Action.QuiesceCq x -> "QuiesceCq";
            case Action.DestroyCq x -> "DestroyCq";
            case Action.DestroyCompChannel x -> "DestroyCompChannel";
            case Action.DestroyId x -> "DestroyId";
            case Action.LeaveMulticast x -> "LeaveMulticast";
            case Action.OfferRequest x -> "OfferRequest";
            case Action.RefuseRequest x -> "RefuseRequest(" + systemReject(x.rejectData()) + ")";
            case Action.SettleRequest x -> "SettleRequest";
            case Action.LeakId x -> "LeakId";
            case Action.ArmTimer x -> "Arm(" + x.kind() + ")";
            case Action.CancelTimer x -> "Cancel(" + x.kind() + ")";
            case Action.CompleteFuture x -> "Complete(" + outcome(x.outcome()) + ")";
            case Action.FailFuture x -> "Fail(" + failure(x.failure()) + ")";
            case Action.CallHandler x -> "Handler(" + notice(x.notice()) + ")";
            case Action.LogUnexpected x -> "LogUnexpected";
        };
    }

    private static String systemReject(org.rdmacm4j.cm.statemachine.Bytes data) {
        return PrivateData.decodeSystemReject(data).map(Enum::name).orElse("?");
    }

    static String outcome(Outcome o) {
        return o.getClass().getSimpleName();
    }

    static String failure(Failure f) {
        return switch (f) {
            case Failure.Rejected r -> "Rejected:" + reason(r.reason());
            case Failure.TimedOut t -> "TimedOut:" + t.deadline();
            case Failure.QueuePairError q -> "QueuePairError:" + q.event();
            case Failure.AddressError x -> "AddressError";
            case Failure.RouteError x -> "RouteError";
            case Failure.Unreachable x -> "Unreachable";
            case Failure.ConnectError x -> "ConnectError";
            case Failure.PeerDisconnected x -> "PeerDisconnected";
            case Failure.DeviceRemoved x -> "DeviceRemoved";
            case Failure.Cancelled x -> "Cancelled";
            case Failure.Closed x -> "Closed";
            case Failure.IllegalState x -> "IllegalState";
            case Failure.NativeCallFailed x -> "NativeCallFailed:" + x.call();
            case Failure.MulticastError x -> "MulticastError";
            case Failure.ListenerFailed x -> "ListenerFailed";
            case Failure.Expired x -> "Expired";
        };
    }

    static String reason(RejectReason r) {
        return r.getClass().getSimpleName();
    }

    static String notice(Notice n) {
        return switch (n) {
            case Notice.Error e -> "Error:" + failure(e.failure());
            case Notice.Async a -> "Async:" + a.event();
            case Notice.Established x -> "Established";
            case Notice.Disconnected x -> "Disconnected";
            case Notice.AddressChanged x -> "AddressChanged";
            case Notice.DeviceRemoved x -> "DeviceRemoved";
            case Notice.MulticastRejoined x -> "MulticastRejoined";
            case Notice.MulticastLost x -> "MulticastLost";
            case Notice.RequestExpired x -> "RequestExpired";
        };
    }
}
