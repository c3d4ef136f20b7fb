package org.rdmacm4j.cm.statemachine.doc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.CmIdMachine;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Input.CmEvent;
import org.rdmacm4j.cm.statemachine.Input.Command;
import org.rdmacm4j.cm.statemachine.ListenerPolicy;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Phase;
import org.rdmacm4j.cm.statemachine.RejectReason;
import org.rdmacm4j.cm.statemachine.TimerKind;
import org.rdmacm4j.cm.statemachine.Timers;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.machine.ActiveConnectionMachine;
import org.rdmacm4j.cm.statemachine.machine.ActivePhase;
import org.rdmacm4j.cm.statemachine.machine.ActiveState;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext;
import org.rdmacm4j.cm.statemachine.machine.ListenerMachine;
import org.rdmacm4j.cm.statemachine.machine.ListenerPhase;
import org.rdmacm4j.cm.statemachine.machine.ListenerState;
import org.rdmacm4j.cm.statemachine.machine.PassiveConnectionMachine;
import org.rdmacm4j.cm.statemachine.machine.PassivePhase;
import org.rdmacm4j.cm.statemachine.machine.PassiveState;
import org.rdmacm4j.cm.statemachine.machine.UdMachine;
import org.rdmacm4j.cm.statemachine.machine.UdPhase;
import org.rdmacm4j.cm.statemachine.machine.UdState;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * The four machines with one representative state per phase (reached by driving the machine from
 * its start along a documented path, so every representative is a real, reachable state) and one
 * exemplar per kind of input. The generated docs and the matrix test walk exactly this grid.
 */
public final class Catalog {
    /** Multicast group the UD representative is joining. */
    public static final String GROUP = "239.1.1.1";
    /** A group nobody joined. */
    public static final String OTHER_GROUP = "239.2.2.2";

    private Catalog() {
    }

    /** A machine with its representative states, in phase order. */
    public record Entry<P extends Enum<P> & Phase, S extends MachineState<P>>(
            CmIdMachine<P, S> machine, Map<P, S> representatives, String summary) {
        public List<Exemplar> exemplars() {
            return Catalog.exemplars(machine.name());
        }
    }

    /** Policy used by the docs: IB, waiting for TIMEWAIT_EXIT so that every phase is reachable. */
    public static ConnectionPolicy connectionPolicy() {
        return ConnectionPolicy.defaults(Transport.INFINIBAND).withAwaitTimewaitExit(true);
    }

    public static List<Entry<?, ?>> all() {
        return List.of(active(), passive(), listener(), ud());
    }

    public static Entry<ActivePhase, ActiveState> active() {
        ActiveConnectionMachine m = new ActiveConnectionMachine(connectionPolicy());
        Representatives<ActivePhase, ActiveState> r = new Representatives<>(m);
        ActiveState s = r.file(ActivePhase.IDLE, ActiveState.initial());
        s = r.reach(ActivePhase.RESOLVING_ADDR, s,
                new Command.Connect(1, PrivateData.encode(MessageKind.CONNECT_REQUEST, new byte[] {1})));
        r.reach(ActivePhase.BACKOFF, s, cm(CmEventType.ADDR_ERROR, -110));
        s = r.reach(ActivePhase.RESOLVING_ROUTE, s, cm(CmEventType.ADDR_RESOLVED, 0));
        s = r.reach(ActivePhase.CONNECTING, s, cm(CmEventType.ROUTE_RESOLVED, 0));
        ActiveState retry = r.reach(ActivePhase.RETRY_DRAINING, s, cm(CmEventType.REJECTED, RejectReason.IB_INVALID_SERVICE_ID));
        r.reach(ActivePhase.RETRY_RELEASING, retry, new Input.Quiesced(Input.Resource.QP));
        // Only an iWARP id abandons a connect whose result is outstanding; the state is stepped by the
        // catalogued (IB) machine, whose policy differs only in the transport.
        r.file(ActivePhase.CONNECT_ABANDONED, new ActiveConnectionMachine(ConnectionPolicy.defaults(Transport.IWARP))
                .step(s, new Command.Close(3)).next());
        s = r.reach(ActivePhase.ESTABLISHED, s, cm(CmEventType.ESTABLISHED, 0));
        s = r.reach(ActivePhase.DISCONNECTING, s, new Command.Close(2));
        s = r.reach(ActivePhase.TIMEWAIT, s, cm(CmEventType.DISCONNECTED, 0));
        s = r.reach(ActivePhase.DRAINING, s, cm(CmEventType.TIMEWAIT_EXIT, 0));
        s = r.reach(ActivePhase.RELEASING, s, new Input.Quiesced(Input.Resource.QP));
        r.reach(ActivePhase.CLOSED, s, new Input.Quiesced(Input.Resource.CQ));
        return new Entry<>(m, r.inPhaseOrder(),
                "Active RC id: Connect, then (IDLE) -> RESOLVING_ADDR (ADDR_ERROR from there for BACKOFF) -> "
                        + "RESOLVING_ROUTE -> CONNECTING -> ESTABLISHED -> Close -> DISCONNECTING -> DISCONNECTED -> "
                        + "TIMEWAIT -> TIMEWAIT_EXIT -> DRAINING -> Quiesced(QP) -> RELEASING -> Quiesced(CQ) -> CLOSED; "
                        + "CONNECTING -> REJECTED(8) -> RETRY_DRAINING -> Quiesced(QP) -> RETRY_RELEASING; "
                        + "CONNECTING -> Close on an iWARP id -> CONNECT_ABANDONED");
    }

    public static Entry<PassivePhase, PassiveState> passive() {
        PassiveConnectionMachine m = new PassiveConnectionMachine(connectionPolicy());
        Representatives<PassivePhase, PassiveState> r = new Representatives<>(m);
        PassiveState s = r.file(PassivePhase.REQUEST_RECEIVED, m.open(request(), deviceLimits()).next());
        s = r.reach(PassivePhase.ACCEPTING, s,
                new Command.Accept(1, PrivateData.encode(MessageKind.ACCEPT, new byte[] {1})));
        s = r.reach(PassivePhase.ESTABLISHED, s, cm(CmEventType.ESTABLISHED, 0));
        s = r.reach(PassivePhase.DISCONNECTING, s, new Command.Close(2));
        s = r.reach(PassivePhase.TIMEWAIT, s, cm(CmEventType.DISCONNECTED, 0));
        s = r.reach(PassivePhase.DRAINING, s, cm(CmEventType.TIMEWAIT_EXIT, 0));
        s = r.reach(PassivePhase.RELEASING, s, new Input.Quiesced(Input.Resource.QP));
        r.reach(PassivePhase.CLOSED, s, new Input.Quiesced(Input.Resource.CQ));
        return new Entry<>(m, r.inPhaseOrder(),
                "Passive RC id: open(request) -> REQUEST_RECEIVED -> Accept -> ACCEPTING -> ESTABLISHED -> Close -> "
                        + "DISCONNECTING -> DISCONNECTED -> TIMEWAIT -> TIMEWAIT_EXIT -> DRAINING -> Quiesced(QP) -> "
                        + "RELEASING -> Quiesced(CQ) -> CLOSED");
    }

    public static Entry<ListenerPhase, ListenerState> listener() {
        ListenerMachine m = new ListenerMachine(ListenerPolicy.defaults());
        Representatives<ListenerPhase, ListenerState> r = new Representatives<>(m);
        ListenerState s = r.reach(ListenerPhase.LISTENING, ListenerState.listening(), cm(CmEventType.CONNECT_REQUEST, 0));
        r.reach(ListenerPhase.RELISTEN_BACKOFF, s, cm(CmEventType.ADDR_CHANGE, 0));
        r.reach(ListenerPhase.CLOSED, s, new Command.Close(2));
        return new Entry<>(m, r.inPhaseOrder(),
                "Listener: LISTENING with one offered request pending; ADDR_CHANGE -> RELISTEN_BACKOFF (request "
                        + "still pending); Close -> CLOSED");
    }

    public static Entry<UdPhase, UdState> ud() {
        UdMachine m = new UdMachine(connectionPolicy().withSidr(true));
        Representatives<UdPhase, UdState> r = new Representatives<>(m);
        UdState s = r.file(UdPhase.IDLE, UdState.initial());
        r.file(UdPhase.REQUEST_RECEIVED, m.openRequest(request(), deviceLimits()).next());
        s = r.reach(UdPhase.RESOLVING_ADDR, s,
                new Command.Connect(1, PrivateData.encode(MessageKind.SIDR_REQUEST, new byte[] {1})));
        r.reach(UdPhase.BACKOFF, s, cm(CmEventType.ADDR_ERROR, -110));
        s = r.reach(UdPhase.RESOLVING_ROUTE, s, cm(CmEventType.ADDR_RESOLVED, 0));
        s = r.reach(UdPhase.SIDR_QUERY, s, cm(CmEventType.ROUTE_RESOLVED, 0));
        s = m.step(s, cm(CmEventType.ESTABLISHED, 0)).next();
        s = r.reach(UdPhase.READY, s, new Command.JoinMulticast(3, GROUP));
        s = r.reach(UdPhase.DRAINING, s, new Command.Close(4));
        s = r.reach(UdPhase.RELEASING, s, new Input.Quiesced(Input.Resource.QP));
        r.reach(UdPhase.CLOSED, s, new Input.Quiesced(Input.Resource.CQ));
        return new Entry<>(m, r.inPhaseOrder(),
                "UD id with SIDR: IDLE -> Connect -> RESOLVING_ADDR (ADDR_ERROR for BACKOFF) -> RESOLVING_ROUTE -> "
                        + "SIDR_QUERY -> ESTABLISHED, Join(" + GROUP + ") -> READY (join pending) -> Close -> DRAINING -> "
                        + "Quiesced(QP) -> RELEASING -> Quiesced(CQ) -> CLOSED; openRequest(request) -> REQUEST_RECEIVED");
    }

    /**
     * One representative state per phase, each filed under the phase it must be in and checked to
     * be in it: if a machine's path ever changes, building the catalog fails instead of filing a
     * state of another phase as a representative (which regenerated docs would then show).
     */
    private static final class Representatives<P extends Enum<P> & Phase, S extends MachineState<P>> {
        private final CmIdMachine<P, S> machine;
        private final Map<P, S> byPhase = new LinkedHashMap<>();

        Representatives(CmIdMachine<P, S> machine) {
            this.machine = machine;
        }

        /** Steps the machine from {@code from} with {@code input}; the result must be in {@code expected}. */
        S reach(P expected, S from, Input input) {
            return file(expected, machine.step(from, input).next());
        }

        S file(P expected, S state) {
            if (state.phase() != expected) {
                throw new IllegalStateException(machine.name() + ": the path to " + expected + " reached "
                        + state.phase() + " instead");
            }
            if (byPhase.putIfAbsent(expected, state) != null) {
                throw new IllegalStateException(machine.name() + ": two representatives for " + expected);
            }
            return state;
        }

        Map<P, S> inPhaseOrder() {
            return ordered(machine.phaseType(), byPhase);
        }
    }

    private static <P extends Enum<P> & Phase, S> Map<P, S> ordered(Class<P> type, Map<P, S> byPhase) {
        Map<P, S> result = new LinkedHashMap<>();
        for (P p : type.getEnumConstants()) {
            S s = byPhase.get(p);
            if (s == null) {
                throw new IllegalStateException("no representative for " + type.getSimpleName() + "." + p);
            }
            result.put(p, s);
        }
        return result;
    }

    /** The CONNECT_REQUEST the request-side representatives are opened from: rping's 1/1 conn params. */
    public static CmEvent request() {
        return new CmEvent(99, CmEventType.CONNECT_REQUEST, 0, new EventParams.Conn(
                PrivateData.encode(MessageKind.CONNECT_REQUEST, new byte[] {5}).wire(), 1, 1, 0, 7, 7, false, 0x11));
    }

    /** Device limits of the catalogued requests: rxe's max_qp_rd_atom / max_qp_init_rd_atom. */
    public static CmTuning deviceLimits() {
        return new CmTuning(128, 128, 7, 7);
    }

    static CmEvent cm(CmEventType type, int status) {
        return new CmEvent(100 + type.code(), type, status, params(type));
    }

    private static EventParams params(CmEventType type) {
        return switch (type) {
            case MULTICAST_JOIN, MULTICAST_ERROR -> EventParams.Ud.forGroup(GROUP);
            case CONNECT_REQUEST, ESTABLISHED, REJECTED, CONNECT_RESPONSE ->
                    EventParams.Conn.withData(PrivateData.encode(MessageKind.REJECT, new byte[] {7}).wire());
            case ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, DISCONNECTED,
                 DEVICE_REMOVAL, ADDR_CHANGE, TIMEWAIT_EXIT -> new EventParams.None();
        };
    }

    private static int defaultStatus(CmEventType type) {
        return switch (type) {
            case ADDR_ERROR, ROUTE_ERROR, UNREACHABLE -> -110;
            case CONNECT_ERROR -> -22;
            case REJECTED -> RejectReason.IB_CONSUMER_DEFINED;
            case ADDR_RESOLVED, ROUTE_RESOLVED, CONNECT_REQUEST, CONNECT_RESPONSE, ESTABLISHED, DISCONNECTED,
                 DEVICE_REMOVAL, MULTICAST_JOIN, MULTICAST_ERROR, ADDR_CHANGE, TIMEWAIT_EXIT -> 0;
        };
    }

    /** One exemplar per kind of input; REJECTED appears once per typed reason the machines treat differently. */
    public static List<Exemplar> exemplars(String machine) {
        List<Exemplar> list = new ArrayList<>();
        for (CmEventType t : CmEventType.values()) {
            if (t == CmEventType.REJECTED) {
                list.add(constant("CM REJECTED(28 consumer)", cm(t, RejectReason.IB_CONSUMER_DEFINED)));
                list.add(constant("CM REJECTED(8 no listener)", cm(t, RejectReason.IB_INVALID_SERVICE_ID)));
                list.add(constant("CM REJECTED(10 stale)", cm(t, RejectReason.IB_STALE_CONN)));
            } else {
                list.add(constant("CM " + t, cm(t, defaultStatus(t))));
            }
        }
        for (AsyncEventType t : AsyncEventType.values()) {
            list.add(constant("ASYNC " + t, new Input.AsyncEvent(200 + t.code(), t, 1)));
        }
        MessageKind connectKind = "ud".equals(machine) ? MessageKind.SIDR_REQUEST : MessageKind.CONNECT_REQUEST;
        MessageKind acceptKind = "ud".equals(machine) ? MessageKind.SIDR_REPLY : MessageKind.ACCEPT;
        list.add(constant("CMD Connect", new Command.Connect(901, PrivateData.encode(connectKind, new byte[] {1, 2}))));
        list.add(constant("CMD Accept", new Command.Accept(902, PrivateData.encode(acceptKind, new byte[] {3}))));
        list.add(constant("CMD Reject", new Command.Reject(903, PrivateData.encode(MessageKind.REJECT, new byte[] {4}))));
        list.add(constant("CMD Disconnect", new Command.Disconnect(904)));
        list.add(constant("CMD Close", new Command.Close(905)));
        list.add(constant("CMD Abort", new Command.Abort(906)));
        list.add(constant("CMD Cancel", new Command.Cancel()));
        list.add(constant("CMD JoinMulticast", new Command.JoinMulticast(907, OTHER_GROUP)));
        list.add(constant("CMD LeaveMulticast", new Command.LeaveMulticast(908, GROUP)));
        for (TimerKind k : TimerKind.values()) {
            list.add(new Exemplar("TIMER " + k, s -> new Input.TimerExpired(k, timersOf(s).isArmed(k)
                    ? timersOf(s).generation(k) : timersOf(s).nextGeneration())));
        }
        list.add(constant("QUIESCED QP", new Input.Quiesced(Input.Resource.QP)));
        list.add(constant("QUIESCED CQ", new Input.Quiesced(Input.Resource.CQ)));
        list.add(constant("REQUEST SETTLED", new Input.RequestSettled()));
        list.add(constant("CALLS SUCCEEDED", new Input.CallsSucceeded()));
        for (Action.NativeCall call : List.<Action.NativeCall>of(new Action.CreateId(), new Action.ResolveAddr(2000),
                new Action.ResolveRoute(2000), new Action.CreateQp(),
                new Action.Connect(Bytes.empty(), CmTuning.defaults()), new Action.Accept(Bytes.empty(), CmTuning.defaults()),
                new Action.JoinMulticast(GROUP), new Action.Relisten())) {
            list.add(constant("FAILED " + call.getClass().getSimpleName(), new Input.CallFailed(call, 12)));
        }
        return List.copyOf(list);
    }

    /** The timers of any of the catalogued states. */
    public static Timers timersOf(MachineState<?> state) {
        return switch (state) {
            case ActiveState s -> s.context().timers();
            case PassiveState s -> s.context().timers();
            case UdState s -> s.context().timers();
            case ListenerState s -> s.timers();
        };
    }

    /** The connection context of a connection-machine state, or null for a listener. */
    public static ConnectionContext contextOf(MachineState<?> state) {
        return switch (state) {
            case ActiveState s -> s.context();
            case PassiveState s -> s.context();
            case UdState s -> s.context();
            case ListenerState s -> null;
        };
    }

    private static Exemplar constant(String label, Input input) {
        Function<MachineState<?>, Input> f = s -> input;
        return new Exemplar(label, f);
    }
}
