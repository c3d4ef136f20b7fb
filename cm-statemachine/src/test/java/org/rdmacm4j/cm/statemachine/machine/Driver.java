package org.rdmacm4j.cm.statemachine.machine;

import java.util.List;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.CmIdMachine;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Phase;
import org.rdmacm4j.cm.statemachine.Timers;
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.doc.Catalog;

/** Holds one machine and its current state, feeds inputs and checks every step against a {@link CoreModel}. */
final class Driver<P extends Enum<P> & Phase, S extends MachineState<P>> {
    final CmIdMachine<P, S> machine;
    final CoreModel model;
    S state;
    List<Action> lastActions = List.of();

    Driver(CmIdMachine<P, S> machine, Transition<S> start) {
        this.machine = machine;
        this.model = new CoreModel(machine.name());
        // Opened from a listener's request (passive, UD server): one SettleRequest is owed.
        this.model.requestOwed = Catalog.contextOf(start.next()) != null && Catalog.contextOf(start.next()).settleOwed();
        this.state = start.next();
        model.start(start.actions());
        lastActions = start.actions();
    }

    List<Action> feed(Input input) {
        Transition<S> t = machine.step(state, input);
        model.apply(input, t.actions(), t.next().phase().terminal(), phase() + " -> " + t.next().phase());
        state = t.next();
        lastActions = t.actions();
        return t.actions();
    }

    P phase() {
        return state.phase();
    }

    boolean terminal() {
        return state.phase().terminal();
    }

    Timers timers() {
        return Catalog.timersOf(state);
    }

    /** Every native call of the last step (the core may fail any one of them). */
    List<Action.NativeCall> lastCalls() {
        return lastActions.stream().filter(a -> a instanceof Action.NativeCall).map(a -> (Action.NativeCall) a).toList();
    }

    static Driver<ActivePhase, ActiveState> active(ActiveConnectionMachine m) {
        return new Driver<>(m, new Transition<>(ActiveState.initial(), List.of()));
    }

    static Driver<PassivePhase, PassiveState> passive(PassiveConnectionMachine m) {
        return new Driver<>(m, m.open(Catalog.request(), Catalog.deviceLimits()));
    }

    static Driver<ListenerPhase, ListenerState> listener(ListenerMachine m) {
        return new Driver<>(m, new Transition<>(ListenerState.listening(), List.of()));
    }

    static Driver<UdPhase, UdState> ud(UdMachine m, boolean serverSide) {
        return new Driver<>(m, serverSide ? m.openRequest(Catalog.request(), Catalog.deviceLimits()) : new Transition<>(UdState.initial(), List.of()));
    }
}
