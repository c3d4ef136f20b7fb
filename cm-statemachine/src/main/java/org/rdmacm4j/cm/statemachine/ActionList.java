package org.rdmacm4j.cm.statemachine;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * The actions of one step, in order: appended while the step runs, then frozen by the
 * {@link Transition} that keeps it, which makes it immutable (as {@code List.of}'s lists: no nulls,
 * every mutator throws {@link UnsupportedOperationException}). {@link #add} after {@link #freeze}
 * throws too.
 *
 * <p>Why not an {@code Action[]} and a {@code List.of} copy, as before: every step of every id
 * builds one on the dispatcher thread, and under C1 (the launchers run {@code TieredStopAtLevel=1})
 * a store into an array whose element type is an interface, a cast to an interface (a
 * {@code List}'s bridge method casting to {@code Action}, {@code List.copyOf}'s cast to
 * {@code List}) are secondary-supertype checks, which mostly end in C1's {@code slow_subtype_check}
 * stub. The first {@value #FIELDS} actions (every common step) live in fields typed
 * {@code Action}, which a store does not check; the callers append through this final class, not
 * through {@code List}; and the Transition keeps this object instead of copying it. One object per
 * step instead of three (an emitter, its array, the copy).
 *
 * <p>Sealed, not final, for one subclass: the machines' step {@code Emitter} (and so a connection
 * step's {@code ConnectionContext.Draft}) is the step's ActionList itself, one object per step where
 * the draft and its list were two. Every method a driver or a machine calls per action ({@link #get},
 * {@link #size}, {@link #add(Action)}, {@link #freeze}) is final, so a call on an ActionList stays a
 * direct call under C1 whichever class the object is; the casts to ActionList (Transition's) are
 * to a class, which C1 checks inline, not in its slow subtype-check stub.
 */
public sealed class ActionList extends AbstractList<Action> implements RandomAccess
        permits org.rdmacm4j.cm.statemachine.machine.Emitter {
    /** Fields for the first actions; a teardown's last step, the longest common one, has six. */
    private static final int FIELDS = 6;
    private static final ActionList NONE = new ActionList().freeze();

    private Action a0;
    private Action a1;
    private Action a2;
    private Action a3;
    private Action a4;
    private Action a5;
    /** Actions from index {@value #FIELDS} on, null until a step has that many. */
    private Action[] more;
    /**
     * The number of actions, and the sign bit ({@link #FROZEN}) once frozen: one int, not an int
     * and a boolean, because a connection step's Draft is an ActionList, and the boolean was what
     * took it past a multiple of eight bytes (an 8-byte larger object every step). While open it is
     * the size itself, so the append fast path compares it as before.
     */
    private int sizeAndFrozen;
    private static final int FROZEN = Integer.MIN_VALUE;

    /** An empty list to append to. */
    public ActionList() {
    }

    /** The frozen empty list. */
    public static ActionList none() {
        return NONE;
    }

    /** A frozen copy of {@code actions} (null elements rejected, as List.copyOf does). */
    public static ActionList copyOf(List<? extends Action> actions) {
        if (actions instanceof ActionList l) {
            return l.freeze();
        }
        if (actions.isEmpty()) {
            return NONE;
        }
        ActionList copy = new ActionList();
        for (Action a : actions) {
            copy.add(a);
        }
        return copy.freeze();
    }

    /** Makes this list immutable (idempotent); returns it. */
    public final ActionList freeze() {
        sizeAndFrozen |= FROZEN;
        return this;
    }

    public final boolean frozen() {
        return sizeAndFrozen < 0;
    }

    /**
     * Appends {@code action}; the argument is {@code Action}, not {@code Object}, so no bridge cast runs.
     * The common case (an open list with a free field, a non-null action) is one test and a store
     * here, without a call: under C1 this method is too big to inline into its callers, and the
     * {@code put} and {@code checkOpen} it called were calls of their own per action.
     */
    @Override
    public final boolean add(Action action) {
        int n = sizeAndFrozen;
        if (n < 0 || action == null || n >= FIELDS) {   // n < 0: frozen
            return addSlow(action);
        }
        switch (n) {
            case 0 -> a0 = action;
            case 1 -> a1 = action;
            case 2 -> a2 = action;
            case 3 -> a3 = action;
            case 4 -> a4 = action;
            default -> a5 = action;
        }
        sizeAndFrozen = n + 1;
        return true;
    }

    /** {@link #add(Action)}'s other cases, with its checks in their old order (null first, then frozen). */
    private boolean addSlow(Action action) {
        Objects.requireNonNull(action, "action");
        checkOpen();
        put(sizeAndFrozen, action);
        sizeAndFrozen++;
        return true;
    }

    /** Inserts at {@code index}, moving the later actions up (a step placing an action before its first native call). */
    @Override
    public final void add(int index, Action action) {
        Objects.checkIndex(index, size() + 1);
        Objects.requireNonNull(action, "action");
        checkOpen();
        for (int i = size(); i > index; i--) {
            put(i, get(i - 1));
        }
        put(index, action);
        sizeAndFrozen++;
    }

    private void checkOpen() {
        if (frozen()) {
            throw new UnsupportedOperationException("the actions of a transition are immutable");
        }
    }

    @Override
    public final Action get(int index) {
        Objects.checkIndex(index, sizeAndFrozen & ~FROZEN);
        return switch (index) {
            case 0 -> a0;
            case 1 -> a1;
            case 2 -> a2;
            case 3 -> a3;
            case 4 -> a4;
            case 5 -> a5;
            default -> more[index - FIELDS];
        };
    }

    private void put(int index, Action action) {
        switch (index) {
            case 0 -> a0 = action;
            case 1 -> a1 = action;
            case 2 -> a2 = action;
            case 3 -> a3 = action;
            case 4 -> a4 = action;
            case 5 -> a5 = action;
            default -> {
                int i = index - FIELDS;
                if (more == null) {
                    more = new Action[FIELDS];
                } else if (i == more.length) {
                    more = Arrays.copyOf(more, i * 2);
                }
                more[i] = action;
            }
        }
    }

    @Override
    public final int size() {
        return sizeAndFrozen & ~FROZEN;
    }

    // As List.of's lists: a null query is an error, not "absent".

    @Override
    public boolean contains(Object o) {
        return indexOf(o) >= 0;
    }

    @Override
    public int indexOf(Object o) {
        Objects.requireNonNull(o);
        return super.indexOf(o);
    }

    @Override
    public int lastIndexOf(Object o) {
        Objects.requireNonNull(o);
        return super.lastIndexOf(o);
    }
}
