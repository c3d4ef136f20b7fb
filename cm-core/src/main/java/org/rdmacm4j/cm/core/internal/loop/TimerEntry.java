package org.rdmacm4j.cm.core.internal.loop;

import org.rdmacm4j.cm.statemachine.TimerKind;

/**
 * One armed machine timer: in its {@link TimerQueue}'s heap, and in its owner's
 * {@link TimerOwner#armed} list until it fires or is cancelled. Its owner is kept as an
 * Object (the queue casts it back) so that this file stays below {@link TimerOwner}.
 *
 * <p>Mutable because the queue recycles entries: once out of the heap and out of its owner's list
 * nothing else refers to one, so the queue keeps it on its free list ({@link #nextFree}) and arms
 * the next timer with it instead of making a new one (several arms per connection). Dispatcher
 * thread only, like the queue.
 */
final class TimerEntry {
    long deadline;
    long order;
    /** The owner while armed; null on the free list, so a spare keeps no dead driver reachable. */
    Object owner;
    TimerKind kind;
    long generation;
    /** Where it sits in its queue's heap array; -1 once out of the heap (fired or cancelled). */
    int index = -1;
    /** The next spare on the queue's free list, while this one is on it. */
    TimerEntry nextFree;
    /** The next of its owner's armed timers ({@link TimerOwner#armed}), while armed. */
    TimerEntry nextArmed;

    /** (Re)arms this entry; it is out of the heap (and in its owner's list for this kind, or about to be). */
    void set(long deadline, long order, Object owner, TimerKind kind, long generation) {
        this.deadline = deadline;
        this.order = order;
        this.owner = owner;
        this.kind = kind;
        this.generation = generation;
    }

    /** Heap order: the earlier deadline first, ties in arming order. */
    boolean before(TimerEntry o) {
        return deadline != o.deadline ? deadline - o.deadline < 0 : order < o.order;
    }
}
