package org.rdmacm4j.cm.core.internal.id;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.OptionalInt;
import org.rdmacm4j.cm.core.HistoryEntry;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;
import org.rdmacm4j.cm.core.internal.loop.TimerOwner;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.statemachine.CmIdMachine;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Transition;

/**
 * One rdma_cm_id as the dispatcher drives it, whatever its kind: its state machine and current
 * state, its native handle, the futures its machine owes (by request number), its history, and
 * the id options every kind's actions read. What only one kind needs (a connection's QP options,
 * a listener's public face, an endpoint's memberships) lives in that kind's subclass, in its own
 * package; what only one kind does is its {@link IdRole}'s. Mutable state is touched by the
 * dispatcher thread only; {@link #history} and {@link #phase} may be read by any thread.
 */
public abstract class IdDriver extends TimerOwner implements NativeId.Owner {
    public enum Kind {
        ACTIVE, PASSIVE, LISTENER,
        /** A datagram endpoint's UD id: owns the UD QP and the multicast memberships. */
        DATAGRAM,
        /** A datagram endpoint's UD listener: offers SIDR requests, which are answered at once. */
        DATAGRAM_LISTENER,
        /** A SIDR query of {@code DatagramEndpoint.resolve}: no QP of its own, closed once answered. */
        SIDR_QUERY,
        /** The id of one SIDR request: no QP of its own, the reply names the endpoint's QP; closed once sent. */
        SIDR_ANSWER;

        public boolean ud() {
            return ordinal() >= DATAGRAM.ordinal();
        }
    }

    /** Per phase enum (one per machine), which of its constants are terminal, by ordinal. */
    private static final ClassValue<boolean[]> TERMINAL_PHASES = new ClassValue<>() {
        @Override
        protected boolean[] computeValue(Class<?> phaseType) {
            Object[] phases = phaseType.getEnumConstants();
            boolean[] terminal = new boolean[phases.length];
            for (int i = 0; i < phases.length; i++) {
                terminal[i] = ((org.rdmacm4j.cm.statemachine.Phase) phases[i]).terminal();
            }
            return terminal;
        }
    };

    public final Kind kind;
    public final long serial;
    /**
     * The machine, raw: {@link #step} hands it the state it gave. A field, not a capturing lambda
     * made per id (under C1 a native VM call: docs/benchmarks.md, "Capturing lambdas under C1").
     */
    @SuppressWarnings("rawtypes")
    private final CmIdMachine machine;
    private MachineState<?> state;
    private volatile String phase;
    /** Whether {@link #state}'s phase is terminal: read once per adopted state, not per question. */
    private boolean terminal;
    /** Which phases of this id's machine are terminal, by ordinal (see {@link #adopt}). */
    private final boolean[] terminalPhases;
    public final History history;
    public final OwedFutures owed = new OwedFutures();
    /** The engine's list of live ids (IdEngine#liveIds): whether this one is in it, and its neighbours. */
    boolean isLive;
    IdDriver livePrev;
    IdDriver liveNext;
    public final SerialExecutor callbacks;
    public final long createdNanos;

    public NativeId nativeId;
    /** rdma_destroy_id ran for the current native id: no native call may name it again. */
    public boolean idDestroyed;
    /** The machine reached its terminal phase and the driver was retired. */
    public boolean retired;
    /** Resources the port failed to free (a quiesce deadline passed): reported, never destroyed. */
    public boolean leaked;

    // What the generic actions need that the machine does not carry.
    public InetSocketAddress source;
    public InetSocketAddress destination;
    /** RDMA_OPTION_ID_TOS to set before each rdma_resolve_route (active ids), or empty. */
    public OptionalInt typeOfService = OptionalInt.empty();
    /** RDMA_OPTION_ID_ACK_TIMEOUT to set before each rdma_connect / rdma_accept, or empty. */
    public OptionalInt ackTimeout = OptionalInt.empty();
    /** Passive ids: the listener that offered the request (gets RequestSettled). */
    public IdDriver offeredBy;
    public boolean requestSettled;
    /** The request number of the connect/accept future (for counters), 0 if none. */
    public long openRequest;
    /**
     * Whether the id's role may hold its inputs back ({@link IdRole#holds}, a connect at a step
     * barrier): the engine asks the role only then, not on every step (an interface call to one of
     * three roles, through C1's itable stub). Set by the role before the id's first input.
     */
    public boolean roleMayHold;

    @SuppressWarnings({"unchecked", "rawtypes"})
    protected IdDriver(Kind kind, long serial, CmIdMachine<?, ?> machine, MachineState<?> initial,
                       int historySize, long nowNanos, SerialExecutor callbacks) {
        this.kind = kind;
        this.serial = serial;
        this.machine = machine;
        this.state = initial;
        this.terminalPhases = TERMINAL_PHASES.get(machine.phaseType());
        this.phase = initial.phase().name();
        this.terminal = terminalPhases[initial.phase().ordinal()];
        this.history = new History(historySize, nowNanos);
        this.createdNanos = nowNanos;
        this.callbacks = callbacks;
    }

    /** One machine step; the caller runs the actions. Dispatcher thread only. */
    @SuppressWarnings("unchecked")
    public Transition<? extends MachineState<?>> step(Input input, long nowNanos) {
        Transition<? extends MachineState<?>> t = machine.step(state, input);
        adopt(t.next(), input, nowNanos);
        return t;
    }

    /** Takes the state of a transition that did not come from {@link #step} (a machine's open()). */
    public void adopt(MachineState<?> next, Input cause, long nowNanos) {
        state = next;
        // The phase as the Enum its type variable erases to, not as a Phase: a cast to that
        // interface is a call to C1's slow subtype-check stub, on every step of every id.
        Enum<?> p = next.phase();
        String name = p.name();
        if (name != phase) {   // a volatile write (a fence) only when the phase changes, not every step
            phase = name;
        }
        terminal = terminalPhases[p.ordinal()];
        if (cause == null) {
            history.add(nowNanos, name, "open");
        } else {
            history.add(nowNanos, name, cause);   // described when the history is read
        }
    }

    public boolean terminal() {
        return terminal;
    }

    public String phase() {
        return phase;
    }

    public List<HistoryEntry> historySnapshot() {
        return history.snapshot();
    }

    public String name() {
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
