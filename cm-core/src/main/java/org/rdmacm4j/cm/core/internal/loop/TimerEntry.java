package org.rdmacm4j.cm.core.internal.loop;

import org.rdmacm4j.cm.statemachine.TimerKind;

/**
X
 * {@link TimerOwner#armedTimers} slot until it fires or is cancelled. Its owner is kept as an
 * Object (the queue casts it back) so that this file stays below {@link TimerOwner}.
 */
final class TimerEntry implements Comparable<TimerEntry> {
    final long deadline;
    final long order;
    final Object owner;
    final TimerKind kind;
    final long generation;
    boolean cancelled;

    TimerEntry(long deadline, long order, Object owner, TimerKind kind, long generation) {
        this.deadline = deadline;
        this.order = order;
        this.owner = owner;
        this.kind = kind;
        this.generation = generation;
    }

    @Override
    public int compareTo(TimerEntry o) {
        int c = Long.compare(deadline, o.deadline);
        return c != 0 ? c : Long.compare(order, o.order);
    }
}
