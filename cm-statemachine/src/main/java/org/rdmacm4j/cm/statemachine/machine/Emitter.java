package org.rdmacm4j.cm.statemachine.machine;

import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.ActionList;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Inputs;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.Phase;

/**
 * Collects the actions of one step, in order. Local to a step, so the machine stays pure.
 *
 * <p>A connection machine's step uses its {@link ConnectionContext.Draft}, which is an Emitter
 * too, so each step makes one object for both (the listener's step makes a plain Emitter). The
 * methods are final: a call on an Emitter stays a direct call under C1.
 *
 * <p>An Emitter is the step's {@link ActionList} itself (not an object holding one): the actions
 * it collects, the timer actions {@link org.rdmacm4j.cm.statemachine.Timers} appends to it, and the
 * list the step's Transition keeps as it is (it freezes it). One object per step for the draft,
 * the emitter and the list, where there were two (every step of every id on the dispatcher thread).
 * Why that list and not an array or a {@code List.of} copy is said there (C1's type checks).
 *
 * <p>Public only because the sealed ActionList, in another package, must name it; its constructor
 * and methods are package-private, so nothing outside the machines makes or fills one.
 */
public sealed class Emitter extends ActionList permits ConnectionContext.Draft {
    Emitter() {
    }

    /** The actions, for the step's Transition (which freezes them: nothing may be added after). */
    final ActionList list() {
        return this;
    }

    final void complete(long request, Outcome outcome) {
        add(new Action.CompleteFuture(request, outcome));
    }

    final void fail(long request, Failure failure) {
        add(new Action.FailFuture(request, failure));
    }

    final void notice(Notice notice) {
        add(new Action.CallHandler(notice));
    }

    final void unexpected(Phase phase, Input input, String why) {
        add(new Action.LogUnexpected(phase.name(), Inputs.label(input), why));
    }

    /**
     * Acks an event input first thing, before any action that could destroy its object;
     * {@code variant} is the input's, which every machine's step asks for once and hands on.
     */
    final void ackIfEvent(Input input, Input.Variant variant) {
        // Two compares, not an exhaustive switch on the enum (under C1: its switch-map array read
        // and a compare chain over sixteen constants, per step).
        if (variant == Input.Variant.CM_EVENT) {
            add(new Action.AckCmEvent(((Input.CmEvent) input).seq()));
        } else if (variant == Input.Variant.ASYNC_EVENT) {
            add(new Action.AckAsyncEvent(((Input.AsyncEvent) input).seq()));
        }
    }
}
