package org.rdmacm4j.cm.core.internal.loop;

/**
 * Something the {@link TimerQueue} arms machine timers for (one rdma_cm_id's driver): it carries
 * the slots of its armed timers, one per timer kind, so that arming and cancelling allocate
 * nothing but the entry. Dispatcher thread only.
 */
public abstract class TimerOwner {
    /** Its armed timers by TimerKind ordinal; made and used by TimerQueue only. */
    TimerEntry[] armedTimers;
}
