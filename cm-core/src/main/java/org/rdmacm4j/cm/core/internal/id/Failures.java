package org.rdmacm4j.cm.core.internal.id;

import java.util.List;
import org.rdmacm4j.cm.core.AddressResolutionException;
import org.rdmacm4j.cm.core.ConnectTimeoutException;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.core.ConnectionRejectedException.Reason;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.DeviceRemovedException;
import org.rdmacm4j.cm.core.HistoryEntry;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RequestExpiredException;
import org.rdmacm4j.cm.core.RouteResolutionException;
import org.rdmacm4j.cm.core.UnreachableException;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.RejectReason;
import org.rdmacm4j.verbs.Rdma;

/** Maps the machines' typed failures to the public exception types. Never a bare errno. */
public final class Failures {
    private Failures() { }

    /** A failed work completion: retries exhausted means the peer stopped answering. */
    public static org.rdmacm4j.cm.core.DataPathException completionFailed(String message,
            org.rdmacm4j.verbs.ibv.WcStatus status, List<HistoryEntry> h) {
        return status == org.rdmacm4j.verbs.ibv.WcStatus.RETRY_EXC_ERR
                ? new org.rdmacm4j.cm.core.PeerUnresponsiveException(message, status.cName(), h)
                : new org.rdmacm4j.cm.core.DataPathException(message, status.cName(), h);
    }

    /**
     * An operation cut short by the connection's teardown; if a data-path failure (a dead peer)
     * caused the teardown ({@code cause}, or null), it is the cause, so a pending future says why.
     */
    public static ConnectionClosedException cutShort(String message, org.rdmacm4j.cm.core.DataPathException cause) {
        return cause == null ? new ConnectionClosedException(message, List.of())
                : new ConnectionClosedException(message + " (" + cause.getMessage() + ")", List.of(), cause);
    }

    public static RuntimeException toException(Failure f, String who, List<HistoryEntry> h) {
        return switch (f) {
            case Failure.AddressError e -> new AddressResolutionException(
                    who + ": address resolution failed (" + status(e.status()) + ")", h);
            case Failure.RouteError e -> new RouteResolutionException(
                    who + ": route resolution failed (" + status(e.status()) + ")", h);
            case Failure.Rejected r -> rejected(r.reason(), who, h);
            case Failure.Unreachable e -> new UnreachableException(
                    who + ": peer unreachable (" + status(e.status()) + ")", h);
            case Failure.ConnectError e -> new ConnectionFailedException(
                    who + ": connection error (" + status(e.status()) + ")", h);
            case Failure.PeerDisconnected e -> new ConnectionFailedException(
                    who + ": the peer disconnected before the connection was established", h);
            case Failure.TimedOut t -> new ConnectTimeoutException(who + ": " + t.deadline() + " passed", h);
            case Failure.DeviceRemoved d -> new DeviceRemovedException(who + ": the RDMA device was removed", h);
            case Failure.Cancelled c -> new java.util.concurrent.CancellationException(who + ": cancelled");
            case Failure.Closed c -> new ConnectionClosedException(who + " was closed", h);
            case Failure.IllegalState s -> new IllegalStateException(who + ": " + s.why());
            case Failure.NativeCallFailed n -> new ConnectionFailedException(
                    who + ": " + n.call() + " failed (" + errno(n.errno()) + ")", h);
            case Failure.QueuePairError q -> new ConnectionFailedException(
                    who + ": queue pair error " + q.event(), h);
            case Failure.MulticastError m -> new org.rdmacm4j.cm.core.MulticastException(
                    who + ": multicast group " + m.group() + " failed (" + status(m.status()) + ")",
                    group(m.group()), m.status(), false, h);
            case Failure.ListenerFailed l -> new ConnectionFailedException(
                    who + ": the listener could not be re-created (" + errno(l.errno()) + ")", h);
            case Failure.Expired e -> new RequestExpiredException(who + ": " + e.why(), h);
        };
    }

    /** The exception for a handler's onError (always an RdmaCmException). */
    public static RdmaCmException forHandler(Failure f, String who, List<HistoryEntry> h) {
        RuntimeException e = toException(f, who, h);
        return e instanceof RdmaCmException r ? r : new ConnectionFailedException(e.getMessage(), h, e);
    }

    private static ConnectionRejectedException rejected(RejectReason r, String who, List<HistoryEntry> h) {
        return switch (r) {
            case RejectReason.ConsumerReject c -> new ConnectionRejectedException(Reason.CONSUMER,
                    c.payload().payload().toArray(), who + ": rejected by the peer's application ("
                    + c.payload().payload().length() + " bytes of private data)", h);
            case RejectReason.NoListener n -> new ConnectionRejectedException(Reason.NO_LISTENER, new byte[0],
                    who + ": rejected: nobody listens on that address and port", h);
            case RejectReason.StaleConnection s -> new ConnectionRejectedException(Reason.STALE_CONNECTION,
                    new byte[0], who + ": rejected: stale connection", h);
            case RejectReason.Timeout t -> new ConnectionRejectedException(Reason.TIMEOUT, new byte[0],
                    who + ": rejected: the CM handshake timed out at the peer", h);
            case RejectReason.Busy b -> new ConnectionRejectedException(Reason.BUSY, new byte[0],
                    who + ": rejected: the listener is busy (too many undecided requests), retry later", h);
            case RejectReason.Refused f -> new ConnectionRejectedException(Reason.REFUSED, new byte[0],
                    who + ": rejected by the peer's rdmacm4j: " + f.code(), h);
            case RejectReason.IwarpRefused i -> new ConnectionRejectedException(Reason.NO_LISTENER,
                    i.payload().payload().toArray(), who + ": connection refused (iWARP)", h);
            case RejectReason.Other o -> new ConnectionRejectedException(Reason.OTHER,
                    o.payload().payload().toArray(), who + ": rejected with status " + o.status(), h);
        };
    }

    public static String status(int status) {
        return status < 0 ? "status " + status + " = -" + Rdma.errnoName(-status) : "status " + status;
    }

    public static String errno(int errno) {
        return "errno " + errno + " " + Rdma.errnoName(errno);
    }

    /** The key counters use for a failed connect. */
    public static String counterKey(Throwable t) {
        String base = t.getClass().getSimpleName();
        return t instanceof ConnectionRejectedException r ? base + "/" + r.reason() : base;
    }

    /** The group of a multicast failure: always a literal, so no lookup. */
    public static java.net.InetAddress group(String literal) {
        try {
            return java.net.InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }
}
