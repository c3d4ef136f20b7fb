package org.rdmacm4j.cm.statemachine.machine;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Inputs;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.Phase;

/**
 * Collects the actions of one step, in order. Local to a step, so the machine stays pure.
 *
 * <p>It is itself the list {@link org.rdmacm4j.cm.statemachine.Timers} appends its timer actions
 * to, backed by an array made at the step's first action: every step of every id makes one on the
 * dispatcher thread, and an Emitter holding an ArrayList cost three objects per step (the list's
 * first add allocates ten slots; steps emit one to six actions), and an interface call per action
 * when the step's result list was built from it.
 */
final class Emitter extends AbstractList<Action> implements RandomAccess {
    /** Room for the longest common step (a teardown's last: six actions); longer ones grow it. */
    private static final int FIRST_CAPACITY = 6;

    private Action[] actions;   // null until the first action
    private int size;

    /**
     * The actions as the immutable list a Transition keeps (Transition's List.copyOf keeps a
     * List.of list as it is). Up to ten actions, List.of's fixed-arity forms build it from the
     * one array they are called with, where List.copyOf of a list copies the array twice (once in
     * toArray and once more to check it for nulls).
     */
    List<Action> list() {
        Action[] a = actions;
        switch (size) {   // a statement over the sizes, not an expression: longer steps fall through
            case 0: return List.of();
            case 1: return List.of(a[0]);
            case 2: return List.of(a[0], a[1]);
            case 3: return List.of(a[0], a[1], a[2]);
            case 4: return List.of(a[0], a[1], a[2], a[3]);
            case 5: return List.of(a[0], a[1], a[2], a[3], a[4]);
            case 6: return List.of(a[0], a[1], a[2], a[3], a[4], a[5]);
            case 7: return List.of(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
            case 8: return List.of(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
            case 9: return List.of(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
            case 10: return List.of(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
        }
        return List.of(Arrays.copyOf(a, size));
    }

    @Override
    public Action get(int index) {
        Objects.checkIndex(index, size);
        return actions[index];
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean add(Action action) {
        Objects.requireNonNull(action, "action");
        room();
        actions[size++] = action;
        modCount++;
        return true;
    }

    /** Inserts at {@code index} (Requests.settle places SettleRequest before the first native call). */
    @Override
    public void add(int index, Action action) {
        Objects.checkIndex(index, size + 1);
        Objects.requireNonNull(action, "action");
        room();
        System.arraycopy(actions, index, actions, index + 1, size - index);
        actions[index] = action;
        size++;
        modCount++;
    }

    /** Makes room for one more action. */
    private void room() {
        if (actions == null) {
            actions = new Action[FIRST_CAPACITY];
        } else if (size == actions.length) {
            actions = Arrays.copyOf(actions, size * 2);
        }
    }

    void complete(long request, Outcome outcome) {
        add(new Action.CompleteFuture(request, outcome));
    }

    void fail(long request, Failure failure) {
        add(new Action.FailFuture(request, failure));
    }

    void notice(Notice notice) {
        add(new Action.CallHandler(notice));
    }

    void unexpected(Phase phase, Input input, String why) {
        add(new Action.LogUnexpected(phase.name(), Inputs.label(input), why));
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
            add(ack);
        }
    }
}
