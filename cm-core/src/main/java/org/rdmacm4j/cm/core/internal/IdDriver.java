package org.rdmacm4j.cm.core.internal;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.rdmacm4j.cm.core.HistoryEntry;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.statemachine.CmIdMachine;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Transition;

/**
 * One rdma_cm_id as the dispatcher drives it: its state machine and current state, its native
 * handle, the futures its machine owes (by request number), its history, and the public object
 * that stands for it. Mutable state is touched by the dispatcher thread only; {@link #history}
 * and {@link #phase} may be read by any thread.
 */
final class IdDriver {
    enum Kind {
        ACTIVE, PASSIVE, LISTENER,
        /** A datagram endpoint's UD id: owns the UD QP and the multicast memberships. */
        DATAGRAM,
        /** A datagram endpoint's UD listener: offers SIDR requests, which are answered at once. */
        DATAGRAM_LISTENER,
        /** A SIDR query of {@code DatagramEndpoint.resolve}: no QP of its own, closed once answered. */
        SIDR_QUERY,
        /** The id of one SIDR request: no QP of its own, the reply names the endpoint's QP; closed once sent. */
        SIDR_ANSWER;

        boolean ud() {
            return ordinal() >= DATAGRAM.ordinal();
        }
    }

    /** How a completed future's Outcome becomes the value the user sees. */
    record Owed(CmFuture<Object> future, java.util.function.Function<Object, Object> value) { }

    final Kind kind;
    final long serial;
    private final BiFunction<MachineState<?>, Input, Transition<? extends MachineState<?>>> stepper;
    private MachineState<?> state;
    private volatile String phase;
    final History history;
    final Map<Long, Owed> owed = new HashMap<>();
    final SerialExecutor callbacks;
    final long createdNanos;

    NativeId nativeId;
    /** rdma_destroy_id ran for the current native id: no native call may name it again. */
    boolean idDestroyed;
    /** The machine reached its terminal phase and the driver was retired. */
    boolean retired;
    /** Its armed timers by TimerKind ordinal; made and used by TimerQueue only. */
    TimerQueue.Entry[] armedTimers;
    /** Resources the port failed to free (a quiesce deadline passed): reported, never destroyed. */
    boolean leaked;

    // What the actions need that the machine does not carry.
    InetSocketAddress source;
    InetSocketAddress destination;
    QpCapabilities qp = QpCapabilities.defaults();
    /** The message channel to create with the QP, or null for a raw connection. */
    org.rdmacm4j.cm.core.MessagingOptions messaging;
    /** The keepalive to start once established, or null (off). */
    org.rdmacm4j.cm.core.KeepaliveOptions keepalive;
    /** RDMA_OPTION_ID_TOS to set before each rdma_resolve_route (active ids), or empty. */
    java.util.OptionalInt typeOfService = java.util.OptionalInt.empty();
    /** RDMA_OPTION_ID_ACK_TIMEOUT to set before each rdma_connect / rdma_accept, or empty. */
    java.util.OptionalInt ackTimeout = java.util.OptionalInt.empty();
    /** Active ids of a step barrier: its gate (null once this id left it) and the next step expected. */
    LockstepGate lockstep;
    int lockstepNext;
    /** When a party held at the first step stops waiting (no machine deadline runs before its Connect). */
    long lockstepDeadline;

    // The public objects.
    ConnectionImpl connection;
    RequestImpl request;
    ListenerImpl listener;
    /** UD kinds: the endpoint this id serves. */
    DatagramEndpointImpl endpoint;
    /** DATAGRAM: the options of joins in flight, by group. */
    final Map<String, org.rdmacm4j.cm.core.JoinOptions> joining = new HashMap<>();
    /** DATAGRAM: live memberships, by group. */
    final Map<String, MembershipImpl> memberships = new HashMap<>();
    /** Passive ids: the listener that offered the request (gets RequestSettled). */
    IdDriver offeredBy;
    boolean requestSettled;
    /** The request number of the connect/accept future (for counters), 0 if none. */
    long openRequest;

    @SuppressWarnings({"unchecked", "rawtypes"})
    <S extends MachineState<?>> IdDriver(Kind kind, long serial, CmIdMachine<?, ?> machine, MachineState<?> initial,
                                         int historySize, long nowNanos, SerialExecutor callbacks) {
        this.kind = kind;
        this.serial = serial;
        CmIdMachine raw = machine;
        this.stepper = (s, in) -> raw.step((MachineState) s, in);
        this.state = initial;
        this.phase = initial.phase().name();
        this.history = new History(historySize, nowNanos);
        this.createdNanos = nowNanos;
        this.callbacks = callbacks;
    }

    /** One machine step; the caller runs the actions. Dispatcher thread only. */
    Transition<? extends MachineState<?>> step(Input input, long nowNanos) {
        Transition<? extends MachineState<?>> t = stepper.apply(state, input);
        adopt(t.next(), input, nowNanos);
        return t;
    }

    /** Takes the state of a transition that did not come from {@link #step} (a machine's open()). */
    void adopt(MachineState<?> next, Input cause, long nowNanos) {
        state = next;
        phase = next.phase().name();
        if (cause == null) {
            history.add(nowNanos, phase, "open");
        } else {
            history.add(nowNanos, phase, cause);   // described when the history is read
        }
    }

    boolean terminal() {
        return ((org.rdmacm4j.cm.statemachine.Phase) state.phase()).terminal();
    }

    String phase() {
        return phase;
    }

    List<HistoryEntry> historySnapshot() {
        return history.snapshot();
    }

    String name() {
        return switch (kind) {
            case ACTIVE -> "connection#" + serial + " (active)";
            case PASSIVE -> "connection#" + serial + " (passive)";
            case LISTENER -> "listener#" + serial;
            case DATAGRAM -> "datagram#" + serial;
            case DATAGRAM_LISTENER -> "datagram-listener#" + serial;
            case SIDR_QUERY -> "sidr-query#" + serial;
            case SIDR_ANSWER -> "sidr-answer#" + serial;
        };
    }

    @Override
    public String toString() {
        return name() + " [" + phase + "]";
    }
}
