package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Makes N connects go through the connection steps in lockstep, as rdma-core's cmtime does: no
 * connect starts a step before every connect of the barrier has finished the one before. Give the
 * same barrier to N connects ({@link ConnectOptions.Builder#stepBarrier}) on one {@link RdmaCm}.
 *
 * <p>The steps, each opened for all when the last party reaches it:
 * <ol>
 *   <li>resolve addr ({@code rdma_resolve_addr}): once all N ids are created;</li>
 *   <li>create QP and resolve route ({@code rdma_create_qp}, {@code rdma_resolve_route}): once all N got ADDR_RESOLVED;</li>
 *   <li>connect ({@code rdma_connect}): once all N got ROUTE_RESOLVED.</li>
 * </ol>
 * A party leaves the barrier (it counts as arrived at every later step, so the others never wait
 * for it) when its connect fails, is cancelled, closed or times out, or when anything else happens
 * to it while it waits (an async event, the RdmaCm closing); it then goes on by itself. Its connect
 * deadline runs while it waits; if fewer than N connects are started, those waiting for the first
 * step fail with {@link ConnectTimeoutException} at their connect deadline. Teardown is not
 * synchronised: close the connections together if you want their disconnects to overlap.
 *
 * <p>Threads: the waiting happens on the {@link RdmaCm}'s dispatcher thread (nothing blocks; inputs
 * are held and fed later); this object only counts the connects that joined, from any thread.
 */
public final class StepBarrier {
    private final int parties;
    private final AtomicInteger joined = new AtomicInteger();
    /** The RdmaCm that claimed it (by identity only: this type sits below RdmaCm). */
    private final AtomicReference<Object> owner = new AtomicReference<>();

    /**
     * A barrier for {@code parties} connects: each step opens for them all once every one has reached it.
     *
     * @param parties how many connects go through the steps together
     * @throws IllegalArgumentException if {@code parties} is below 1
     */
    public StepBarrier(int parties) {
        checkArgument(parties >= 1, "a step barrier needs at least 1 party, was %s", parties);
        this.parties = parties;
    }

    /** How many connects move in lockstep. */
    public int parties() {
        return parties;
    }

    /** How many connects have joined so far. */
    public int joined() {
        return joined.get();
    }

    /** Claims a place for one connect on {@code cm}, in the caller's thread, before anything is queued. */
    void claim(Object cm) {
        Object first = owner.compareAndExchange(null, cm);
        checkArgument(!(first != null && first != cm),
                "this step barrier belongs to another RdmaCm: its connects all run on one dispatcher");
        checkArgument(joined.getAndUpdate(n -> n < parties ? n + 1 : n) < parties,
                "the step barrier's %s places are all taken", parties);
    }

    @Override
    public String toString() {
        return "StepBarrier[" + joined.get() + " of " + parties + " joined]";
    }
}
