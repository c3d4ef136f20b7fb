package org.rdmacm4j.cm.core.internal.loop;

import org.rdmacm4j.cm.statemachine.TimerKind;

/**
 * One armed machine timer: in its {@link TimerQueue}'s heap, and in its owner's
 * {@link TimerOwner#armedTimers} slot until it fires or is cancelled. Its owner is kept as an
 * Object (the queue casts it back) so that this file stays below {@link TimerOwner}.
 */
final class TimerEntry {
    final long deadline;
    final long order;
    final Object owner;
    final TimerKind kind;
    final long generation;
    /** Where it sits in its queue's heap array; -1 once out of the heap (fired or cancelled). */
    int index = -1;

    TimerEntry(long deadline, long order, Object owner, TimerKind kind, long generation) {
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
