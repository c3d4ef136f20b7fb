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
     * The actions as the immutable list a Transition keeps. Most steps emit one to three actions:
     * List.of holds those without an array, and Transition's List.copyOf then keeps it as it is
     * (copying the ArrayList would cost two array copies and a list per step).
     */
    List<Action> list() {
        int n = actions.size();
        if (n == 0) {
            return List.of();
        }
        if (n == 1) {
            return List.of(actions.get(0));
        }
        return n == 2 ? List.of(actions.get(0), actions.get(1)) : List.copyOf(actions);
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

    /** Whether this step already contains a fallible native call. */
    boolean hasNativeCall() {
        for (int i = 0; i < actions.size(); i++) {   // indexed: no stream or iterator per step
            if (actions.get(i) instanceof Action.NativeCall) {
                return true;
            }
        }
        return false;
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
