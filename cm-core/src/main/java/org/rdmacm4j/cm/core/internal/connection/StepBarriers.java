package org.rdmacm4j.cm.core.internal.connection;

import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.rdmacm4j.cm.core.ConnectTimeoutException;
import org.rdmacm4j.cm.core.StepBarrier;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.IdEngine;
import org.rdmacm4j.cm.statemachine.Input;

/**
 * The step barriers of active connects ({@link StepBarrier}, "lockstep"): holds an input that
 * enters a step until every party reached it, releases the parties whose step opened, and fails
 * those held at the first step past their connect deadline. Dispatcher thread only.
 */
final class StepBarriers {
    /** The gates of the barriers in use (weak: a barrier nobody holds any more goes away). */
    private final Map<StepBarrier, LockstepGate> gates = new WeakHashMap<>();
    private final IdEngine engine;

    StepBarriers(IdEngine engine) {
        this.engine = engine;
    }

    /** The gate of {@code barrier} (made on first use), or null for a connect without one. */
    LockstepGate gateOf(StepBarrier barrier) {
        return barrier == null ? null : gates.computeIfAbsent(barrier, b -> new LockstepGate(b.parties()));
    }

    /**
     * Whether {@code in} is held at {@code d}'s step barrier: it enters the next step and not every
     * party is there yet. Anything else reaching a held party makes it leave the barrier: the input
     * it held is stepped first (it happened first), then {@code in} by the caller.
     */
    boolean held(ConnectionDriver d, Input in) {
        LockstepGate g = d.lockstep;
        LockstepGate.Held mine = g.heldOf(d);
        if (mine != null) {
            leave(d);
            engine.step(d, mine.input());
            return false;
        }
        LockstepGate.Step s = LockstepGate.stepOf(in);
        boolean held = false;
        if (s != null && s.ordinal() == d.lockstepNext) {
            d.lockstepNext = s.ordinal() + 1;
            held = !g.arrive(d, s, in, d.lockstepDeadline);
        }
        if (!held) {
            release(g);
            if (d.lockstepNext >= LockstepGate.Step.values().length) {
                d.lockstep = null;   // past the last step: on its own from here
            }
        }
        return held;
    }

    /** {@code d} leaves its barrier (retired, or something else reached it): the others no longer wait for it. */
    void leave(ConnectionDriver d) {
        LockstepGate g = d.lockstep;
        g.leave(d, d.lockstepNext);
        d.lockstepNext = LockstepGate.Step.values().length;
        d.lockstep = null;
        release(g);
    }

    /** Feeds the parties whose step opened (queued behind the current step if one is running). */
    private void release(LockstepGate g) {
        for (LockstepGate.Held h : g.released()) {
            engine.feed(h.driver(), h.input());
        }
    }

    /** A connect of the barrier that will never step (cancelled or failed before its machine started). */
    void absent(LockstepGate g) {
        if (g != null) {
            g.absent();
            release(g);
        }
    }

    /**
     * Parties held at the first step have no machine deadline yet: past their connect deadline they
     * fail with ConnectTimeoutException (fewer connects than the barrier's parties were started).
     */
    void expireWaits(long now) {
        if (gates.isEmpty()) {
            return;
        }
        for (LockstepGate g : List.copyOf(gates.values())) {
            for (LockstepGate.Held h : g.overdue(now)) {
                ConnectionDriver d = (ConnectionDriver) h.driver();
                if (d.lockstep != g || g.heldOf(d) != h) {
                    continue;   // released meanwhile by another party's leaving: no longer waiting
                }
                CmFuture<Object> open = d.owed.future(d.openRequest);
                if (open != null) {
                    open.completeExceptionally(new ConnectTimeoutException(d.name()
                            + ": the other connects of its step barrier did not start within the connect timeout",
                            d.historySnapshot()));
                }
                engine.feed(d, IdEngine.CANCEL);   // leaves the barrier, starts and at once cancels: id destroyed
            }
        }
    }
}
