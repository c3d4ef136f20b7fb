package org.rdmacm4j.cm.statemachine.machine;

import java.util.ArrayList;
import java.util.List;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Inputs;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.Phase;

/** Collects the actions of one step, in order. Local to a step, so the machine stays pure. */
final class Emitter {
    final List<Action> actions = new ArrayList<>();

    /**
     * The actions as the immutable list a Transition keeps (Transition's List.copyOf keeps a
     * List.of list as it is). Up to ten actions, List.of's fixed-arity forms build it from the
     * one array they are called with; List.copyOf of the ArrayList (what a longer step, e.g. a
     * teardown's last, would cost) copies the array twice, once in toArray and once more to check
     * it for nulls. The teardown's and an accept's steps emit three to seven.
     */
    List<Action> list() {
        List<Action> a = actions;
        switch (a.size()) {   // a statement over the sizes, not an expression: longer steps fall through
            case 0: return List.of();
            case 1: return List.of(a.get(0));
            case 2: return List.of(a.get(0), a.get(1));
            case 3: return List.of(a.get(0), a.get(1), a.get(2));
            case 4: return List.of(a.get(0), a.get(1), a.get(2), a.get(3));
            case 5: return List.of(a.get(0), a.get(1), a.get(2), a.get(3), a.get(4));
            case 6: return List.of(a.get(0), a.get(1), a.get(2), a.get(3), a.get(4), a.get(5));
            case 7: return List.of(a.get(0), a.get(1), a.get(2), a.get(3), a.get(4), a.get(5), a.get(6));
            case 8: return List.of(a.get(0), a.get(1), a.get(2), a.get(3), a.get(4), a.get(5), a.get(6), a.get(7));
            case 9: return List.of(a.get(0), a.get(1), a.get(2), a.get(3), a.get(4), a.get(5), a.get(6), a.get(7),
                    a.get(8));
            case 10: return List.of(a.get(0), a.get(1), a.get(2), a.get(3), a.get(4), a.get(5), a.get(6), a.get(7),
                    a.get(8), a.get(9));
        }
        return List.copyOf(a);
    }

    void add(Action action) {
        actions.add(action);
    }

    void complete(long request, Outcome outcome) {
        actions.add(new Action.CompleteFuture(request, outcome));
    }

    void fail(long request, Failure failure) {
        actions.add(new Action.FailFuture(request, failure));
    }

    void notice(Notice notice) {
        actions.add(new Action.CallHandler(notice));
    }

    void unexpected(Phase phase, Input input, String why) {
        actions.add(new Action.LogUnexpected(phase.name(), Inputs.label(input), why));
    }

    /** Acks an event input first thing, before any action that could destroy its object. */
    void ackIfEvent(Input input) {
        Action ack = switch (input.variant()) {
            case CM_EVENT -> new Action.AckCmEvent(((Input.CmEvent) input).seq());
            case ASYNC_EVENT -> new Action.AckAsyncEvent(((Input.AsyncEvent) input).seq());
            case TIMER_EXPIRED, QUIESCED, CALL_FAILED, REQUEST_SETTLED, CALLS_SUCCEEDED, CONNECT, ACCEPT, REJECT,
                 DISCONNECT, CLOSE, ABORT, CANCEL, JOIN_MULTICAST, LEAVE_MULTICAST -> null;
        };
        if (ack != null) {
            actions.add(ack);
        }
    }
}
