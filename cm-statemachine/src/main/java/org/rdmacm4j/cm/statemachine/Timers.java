package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.Maps;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The timers an id has armed, by kind, each with a generation. A generation makes a late expiry of
 * a cancelled or re-armed timer harmless: the machine ignores a TimerExpired whose generation is
 * not the armed one. Immutable; the mutators return a new value and append the actions to emit.
 *
 * <p>Held as one {@code long} per {@link TimerKind} (0: not armed; generations start at 1), because
 * every arm or cancel of every machine step makes a new value on the dispatcher thread: one small
 * array copy each, where an EnumMap of boxed generations cost two map copies and a wrapper.
 */
public final class Timers {
    private static final TimerKind[] KINDS = TimerKind.values();
    private static final Timers NONE = new Timers(new long[KINDS.length], 1);

    /** Generation by {@link TimerKind#ordinal()}, 0 if not armed. Never written after construction. */
    private final long[] generations;
    private final long nextGeneration;

    private Timers(long[] generations, long nextGeneration) {
        this.generations = generations;
        this.nextGeneration = nextGeneration;
    }

    /** The timers {@code armed} (generation by kind, each at least 1) with the next generation to hand out. */
    public Timers(Map<TimerKind, Long> armed, long nextGeneration) {
        this(fromMap(armed), nextGeneration);
    }

    private static long[] fromMap(Map<TimerKind, Long> armed) {
        Objects.requireNonNull(armed, "armed");
        long[] g = new long[KINDS.length];
        armed.forEach((kind, generation) -> {
            checkArgument(generation >= 1, "generation of %s must be at least 1: %s", kind, generation);
            g[kind.ordinal()] = generation;
        });
        return g;
    }

    public static Timers none() {
        return NONE;
    }

    /** The armed timers, generation by kind, in kind order (a new unmodifiable map: for tests and documents). */
    public Map<TimerKind, Long> armed() {
        EnumMap<TimerKind, Long> m = new EnumMap<>(TimerKind.class);
        for (TimerKind k : KINDS) {
            if (generations[k.ordinal()] != 0) {
                m.put(k, generations[k.ordinal()]);
            }
        }
        return Maps.immutableEnumMap(m);
    }

    public long nextGeneration() {
        return nextGeneration;
    }

    public boolean isArmed(TimerKind kind) {
        return generations[kind.ordinal()] != 0;
    }

    public boolean isCurrent(Input.TimerExpired expiry) {
        long generation = generations[expiry.kind().ordinal()];
        return generation != 0 && generation == expiry.generation();
    }

    /** The generation of the armed timer of {@code kind}, or 0 if none is armed. */
    public long generation(TimerKind kind) {
        return generations[kind.ordinal()];
    }

    public Timers arm(TimerKind kind, long delayNanos, List<Action> out) {
        int i = kind.ordinal();
        if (generations[i] != 0) {
            out.add(new Action.CancelTimer(kind, generations[i]));
        }
        long[] next = generations.clone();
        next[i] = nextGeneration;
        out.add(new Action.ArmTimer(kind, nextGeneration, Math.max(0, delayNanos)));
        return new Timers(next, nextGeneration + 1);
    }

    public Timers cancel(TimerKind kind, List<Action> out) {
        long generation = generations[kind.ordinal()];
        if (generation == 0) {
            return this;
        }
        out.add(new Action.CancelTimer(kind, generation));
        return without(kind);
    }

    /** The timer fired: forget it (no CancelTimer needed). */
    public Timers fired(TimerKind kind) {
        return generations[kind.ordinal()] == 0 ? this : without(kind);
    }

    public Timers cancelAll(List<Action> out) {
        boolean any = false;
        for (TimerKind kind : KINDS) {
            long generation = generations[kind.ordinal()];
            if (generation != 0) {
                out.add(new Action.CancelTimer(kind, generation));
                any = true;
            }
        }
        return any ? new Timers(new long[KINDS.length], nextGeneration) : this;
    }

    private Timers without(TimerKind kind) {
        long[] next = generations.clone();
        next[kind.ordinal()] = 0;
        return new Timers(next, nextGeneration);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Timers t && nextGeneration == t.nextGeneration && Arrays.equals(generations, t.generations);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(generations) + Long.hashCode(nextGeneration);
    }

    @Override
    public String toString() {
        return "Timers[armed=" + armed() + ", nextGeneration=" + nextGeneration + "]";
    }
}
