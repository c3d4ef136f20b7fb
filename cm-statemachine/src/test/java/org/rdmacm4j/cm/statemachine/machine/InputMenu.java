package org.rdmacm4j.cm.statemachine.machine;

import java.util.List;
import java.util.Map;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Input.Command;
import org.rdmacm4j.cm.statemachine.TimerKind;
import org.rdmacm4j.cm.statemachine.Timers;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * Turns a random int into a realistic input for the driver's current state: fresh event and
 * request numbers, timers that are armed (or stale ones), and right after a step that issued native
 * calls either the failure of one of them or CallsSucceeded (as the core feeds them).
 */
final class InputMenu {
    private static final String[] GROUPS = {"239.1.1.1", "239.2.2.2"};
    private static final int[] STATUSES = {0, -110, -22, 8, 10, 28, 4, -111};
    private long nextSeq = 1_000;
    private long nextRequest = 1;
    private final boolean ud;

    InputMenu(String machine) {
        this.ud = "ud".equals(machine);
    }

    /** Like {@link #next(Driver, int)}, but with {@code biased} most inputs follow the happy path. */
    Input next(Driver<?, ?> driver, int choice, boolean biased) {
        int c = Math.floorMod(choice, 1 << 20);
        if (biased && c % 10 < 7 && driver.lastCalls().isEmpty()) {
            return progress(driver, c / 10);
        }
        return next(driver, choice);
    }

    Input next(Driver<?, ?> driver, int choice) {
        int c = Math.floorMod(choice, 1 << 20);
        List<Action.NativeCall> calls = driver.lastCalls();
        if (!calls.isEmpty()) {
            // As the core does: right after a step with native calls comes either the failure of one
            // of them or CallsSucceeded, before any other input.
            return c % 5 == 0 ? new Input.CallFailed(calls.get((c / 5) % calls.size()), 12) : new Input.CallsSucceeded();
        }
        int kind = c % 9;
        int arg = c / 9;
        return switch (kind) {
            case 7, 8 -> progress(driver, arg);
            case 0, 1 -> cmEvent(arg);
            case 2 -> new Input.AsyncEvent(nextSeq++, AsyncEventType.values()[arg % AsyncEventType.values().length], 1);
            // Close and Abort end a run; keep them rarer than the other commands so runs get deep.
            case 3, 4 -> arg % 9 == 4 || arg % 9 == 5 ? (arg / 9) % 3 == 0 ? command(arg) : progress(driver, arg / 27)
                    : command(arg);
            case 5 -> timer(driver.timers(), arg);
            default -> arg % 5 == 0 ? new Input.RequestSettled()
                    : new Input.Quiesced(arg % 2 == 0 ? Input.Resource.QP : Input.Resource.CQ);
        };
    }

    /**
     * The input that moves the current phase along its happy path, so that random sequences reach
     * the deep phases (ESTABLISHED, TIMEWAIT, RELEASING...) often, not by luck.
     */
    private Input progress(Driver<?, ?> driver, int arg) {
        return switch (driver.phase().name()) {
            case "IDLE" -> command(0);
            case "RESOLVING_ADDR" -> cm(CmEventType.ADDR_RESOLVED, new EventParams.None());
            case "RESOLVING_ROUTE" -> cm(CmEventType.ROUTE_RESOLVED, new EventParams.None());
            case "CONNECTING" -> arg % 4 == 3
                    ? new Input.CmEvent(nextSeq++, CmEventType.REJECTED, 8, conn(arg))   // no listener yet: retried
                    : cm(CmEventType.ESTABLISHED, conn(arg));
            case "ACCEPTING", "SIDR_QUERY" -> cm(CmEventType.ESTABLISHED, conn(arg));
            case "REQUEST_RECEIVED" -> command(arg % 2 == 0 ? 1 : 2);
            case "ESTABLISHED", "DISCONNECTING" -> cm(CmEventType.DISCONNECTED, new EventParams.None());
            case "TIMEWAIT" -> cm(CmEventType.TIMEWAIT_EXIT, new EventParams.None());
            case "DRAINING", "RETRY_DRAINING" -> new Input.Quiesced(Input.Resource.QP);
            case "RELEASING", "RETRY_RELEASING" -> new Input.Quiesced(Input.Resource.CQ);
            case "READY" -> arg % 3 == 0 ? cm(CmEventType.MULTICAST_JOIN, EventParams.Ud.forGroup(GROUPS[arg % 2]))
                    : arg % 3 == 1 ? cm(CmEventType.MULTICAST_ERROR, EventParams.Ud.forGroup(GROUPS[arg % 2]))
                    : command(7 + 9 * arg);
            case "LISTENING" -> arg % 4 == 1 ? new Input.RequestSettled()
                    : cm(arg % 4 == 0 ? CmEventType.ADDR_CHANGE : CmEventType.CONNECT_REQUEST, conn(arg));
            default -> {
                Input.TimerExpired t = earliestTimer(driver.timers());
                yield t != null ? t : cmEvent(arg);
            }
        };
    }

    private Input.CmEvent cm(CmEventType type, EventParams params) {
        return new Input.CmEvent(nextSeq++, type, 0, params);
    }

    /** The armed timer with the lowest generation, as a fake clock would fire it; null if none. */
    static Input.TimerExpired earliestTimer(Timers timers) {
        return timers.armed().entrySet().stream().min(Map.Entry.comparingByValue())
                .map(e -> new Input.TimerExpired(e.getKey(), e.getValue())).orElse(null);
    }

    private Input timer(Timers timers, int arg) {
        List<Map.Entry<TimerKind, Long>> armed = List.copyOf(timers.armed().entrySet());
        if (!armed.isEmpty() && arg % 4 != 0) {
            Map.Entry<TimerKind, Long> e = armed.get(arg % armed.size());
            return new Input.TimerExpired(e.getKey(), e.getValue());
        }
        TimerKind k = TimerKind.values()[arg % TimerKind.values().length];
        return new Input.TimerExpired(k, 1_000_000 + arg);   // stale: never armed with that generation
    }

    Input.CmEvent cmEvent(int arg) {
        CmEventType type = CmEventType.values()[arg % CmEventType.values().length];
        int status = type == CmEventType.REJECTED || type == CmEventType.UNREACHABLE
                ? STATUSES[(arg / 16) % STATUSES.length] : (arg / 16) % 3 == 0 ? -110 : 0;
        EventParams params = switch (type) {
            case MULTICAST_JOIN, MULTICAST_ERROR, ESTABLISHED -> ud
                    ? EventParams.Ud.forGroup(GROUPS[(arg / 128) % 2]) : conn(arg);
            case CONNECT_REQUEST, REJECTED, CONNECT_RESPONSE -> conn(arg);
            default -> new EventParams.None();
        };
        return new Input.CmEvent(nextSeq++, type, status, params);
    }

    private static EventParams conn(int arg) {
        byte[] payload = new byte[(arg / 7) % 5];
        Bytes data = arg % 3 == 0 ? Bytes.of(payload) : PrivateData.encode(MessageKind.REJECT, payload).wire();
        return EventParams.Conn.withData(data);
    }

    Command command(int arg) {
        long r = nextRequest++;
        String group = GROUPS[(arg / 9) % 2];
        return switch (arg % 9) {
            case 0 -> new Command.Connect(r, PrivateData.encode(ud ? MessageKind.SIDR_REQUEST
                    : (arg / 9) % 4 == 3 ? MessageKind.ACCEPT : MessageKind.CONNECT_REQUEST, new byte[] {1}));
            case 1 -> new Command.Accept(r, PrivateData.encode(ud ? MessageKind.SIDR_REPLY
                    : (arg / 9) % 4 == 3 ? MessageKind.CONNECT_REQUEST : MessageKind.ACCEPT, new byte[] {2}));
            case 2 -> new Command.Reject(r, PrivateData.encode(MessageKind.REJECT, new byte[] {3}));
            case 3 -> new Command.Disconnect(r);
            case 4 -> new Command.Close(r);
            case 5 -> new Command.Abort(r);
            case 6 -> new Command.Cancel();
            case 7 -> new Command.JoinMulticast(r, group);
            default -> new Command.LeaveMulticast(r, group);
        };
    }

    Command close(boolean abort) {
        long r = nextRequest++;
        return abort ? new Command.Abort(r) : new Command.Close(r);
    }
}
