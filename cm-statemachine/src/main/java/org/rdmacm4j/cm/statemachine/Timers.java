package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.Maps;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * The timers an id has armed, by kind, each with a generation. A generation makes a late expiry of
 * a cancelled or re-armed timer harmless: the machine ignores a TimerExpired whose generation is
 * not the armed one. Immutable; the mutators return a new value and append the actions to emit.
 *
 * <p>Held as a bit set of the armed kinds (bit {@link TimerKind#ordinal()}) and the generations of
 * just those kinds, in kind order, because every arm or cancel of every machine step makes a new
 * value on the dispatcher thread, and an id rarely has more than one timer armed: an arm or cancel
 * copies an array of one or two generations (none when the last is cancelled), where one
 * {@code long} per kind copied ten every time. The values with nothing or one just-armed timer and
 * a small generation are made once and shared (see {@code IDLE}, {@code JUST_ARMED}): those are the
 * values nearly every step arrives at. The mutators append to an {@link ActionList}, a
 * final class, not a {@code List}: an interface call and its bridge's cast to {@code Action} per
 * timer action cost C1's slow type check (see ActionList).
 */
public final class Timers {
    private static final TimerKind[] KINDS = TimerKind.values();
    private static final long[] NO_GENERATIONS = {};

    /**
     * How many generations have shared values (below). An RC connection that opens and closes
     * without a retry hands out five; a few retries stay below this.
     */
    private static final int SHARED_GENERATIONS = 16;
    /** {@code IDLE[n]}: nothing armed, next generation {@code n} (index 0 unused). */
    private static final Timers[] IDLE = new Timers[SHARED_GENERATIONS + 1];
    /** {@code JUST_ARMED[kind][g]}: only {@code kind} armed, generation {@code g}, next {@code g + 1} (g 0 unused). */
    private static final Timers[][] JUST_ARMED = new Timers[KINDS.length][SHARED_GENERATIONS];
    /** {@code CANCELS[kind][g]}: the CancelTimer of {@code kind}'s generation {@code g} (g 0 unused). */
    private static final Action.CancelTimer[][] CANCELS = new Action.CancelTimer[KINDS.length][SHARED_GENERATIONS];

    static {
        checkArgument(KINDS.length <= Integer.SIZE, "the armed kinds are bits of an int");
        // Shared as Integer.valueOf shares small Integers: the values are immutable and compared by
        // equals, and nearly every arm and cancel of every step lands on one of them, so the common
        // steps make no Timers (and no array) at all. Arm from nothing always lands on JUST_ARMED
        // (the next generation is the armed one plus one); cancel or fire of the last timer on IDLE.
        // The CancelTimer actions are values of kind and generation too, shared the same way.
        for (int n = 1; n <= SHARED_GENERATIONS; n++) {
            IDLE[n] = new Timers(0, NO_GENERATIONS, n);
        }
        for (TimerKind kind : KINDS) {
            for (int g = 1; g < SHARED_GENERATIONS; g++) {
                JUST_ARMED[kind.ordinal()][g] = new Timers(bit(kind), new long[] {g}, g + 1);
                CANCELS[kind.ordinal()][g] = new Action.CancelTimer(kind, g);
            }
        }
    }

    private static final Timers NONE = idle(1);

    /** Bit {@code ordinal} set: that kind is armed. */
    private final int armedKinds;
    /** The generation (at least 1) of each armed kind, in kind order. Never written after construction. */
    private final long[] generations;
    private final long nextGeneration;

    private Timers(int armedKinds, long[] generations, long nextGeneration) {
        this.armedKinds = armedKinds;
        this.generations = generations;
        this.nextGeneration = nextGeneration;
    }

    /** The timers {@code armed} (generation by kind, each at least 1) with the next generation to hand out. */
    public Timers(Map<TimerKind, Long> armed, long nextGeneration) {
        this(byKind(armed), nextGeneration);
    }

    /** From one generation per kind (0: not armed). */
    private Timers(long[] byKind, long nextGeneration) {
        this(kindsOf(byKind), compact(byKind), nextGeneration);
    }

    private static long[] byKind(Map<TimerKind, Long> armed) {
        Objects.requireNonNull(armed, "armed");
        long[] g = new long[KINDS.length];
        armed.forEach((kind, generation) -> {
            checkArgument(generation >= 1, "generation of %s must be at least 1: %s", kind, generation);
            g[kind.ordinal()] = generation;
        });
        return g;
    }

    private static int kindsOf(long[] byKind) {
        int kinds = 0;
        for (int i = 0; i < byKind.length; i++) {
            if (byKind[i] != 0) {
                kinds |= 1 << i;
            }
        }
        return kinds;
    }

    private static long[] compact(long[] byKind) {
        return Arrays.stream(byKind).filter(g -> g != 0).toArray();
    }

    private static int bit(TimerKind kind) {
        return 1 << kind.ordinal();
    }

    /** Where {@code kind}'s generation is (or would be) in {@link #generations}: the armed kinds before it. */
    private int index(TimerKind kind) {
        return index(armedKinds, bit(kind));
    }

    /** {@link #index(TimerKind)} from the armed kinds and the kind's bit, for callers that have both already. */
    private static int index(int kinds, int bit) {
        int below = kinds & (bit - 1);
        // Usually none is (one timer armed at a time), and C1 has no intrinsic for bitCount.
        return below == 0 ? 0 : Integer.bitCount(below);
    }

    public static Timers none() {
        return NONE;
    }

    /** The CancelTimer of {@code kind}'s {@code generation}: a shared value if there is one. */
    private static Action.CancelTimer cancelAction(TimerKind kind, long generation) {
        return generation >= 1 && generation < SHARED_GENERATIONS ? CANCELS[kind.ordinal()][(int) generation]
                : new Action.CancelTimer(kind, generation);
    }

    /** Nothing armed, {@code nextGeneration} next: a shared value if there is one. */
    private static Timers idle(long nextGeneration) {
        return nextGeneration >= 1 && nextGeneration <= SHARED_GENERATIONS ? IDLE[(int) nextGeneration]
                : new Timers(0, NO_GENERATIONS, nextGeneration);
    }

    /** The armed timers, generation by kind, in kind order (a new unmodifiable map: for tests and documents). */
    public Map<TimerKind, Long> armed() {
        EnumMap<TimerKind, Long> m = new EnumMap<>(TimerKind.class);
        for (TimerKind k : KINDS) {
            if (isArmed(k)) {
                m.put(k, generation(k));
            }
        }
        return Maps.immutableEnumMap(m);
    }

    public long nextGeneration() {
        return nextGeneration;
    }

    public boolean isArmed(TimerKind kind) {
        return (armedKinds & bit(kind)) != 0;
    }

    public boolean isCurrent(Input.TimerExpired expiry) {
        long generation = generation(expiry.kind());
        return generation != 0 && generation == expiry.generation();
    }

    /** The generation of the armed timer of {@code kind}, or 0 if none is armed. */
    public long generation(TimerKind kind) {
        return isArmed(kind) ? generations[index(kind)] : 0;
    }

    public Timers arm(TimerKind kind, long delayNanos, ActionList out) {
        // The kind's bit and whether it is armed computed once (they were four calls of bit and
        // isArmed, and index's): every connection arms several timers.
        int ordinal = kind.ordinal();
        int bit = 1 << ordinal;
        int kinds = armedKinds;
        boolean armed = (kinds & bit) != 0;
        int i = index(kinds, bit);
        long[] next;
        if (armed) {
            out.add(cancelAction(kind, generations[i]));
        }
        out.add(new Action.ArmTimer(kind, nextGeneration, Math.max(0, delayNanos)));
        if ((kinds & ~bit) == 0 && nextGeneration >= 1 && nextGeneration < SHARED_GENERATIONS) {
            return JUST_ARMED[ordinal][(int) nextGeneration];   // the common case: nothing else armed
        }
        if (armed) {
            next = generations.clone();
        } else if (kinds == 0) {
            next = new long[1];
        } else {
            next = new long[generations.length + 1];
            System.arraycopy(generations, 0, next, 0, i);
            System.arraycopy(generations, i, next, i + 1, generations.length - i);
        }
        next[i] = nextGeneration;
        return new Timers(kinds | bit, next, nextGeneration + 1);
    }

    public Timers cancel(TimerKind kind, ActionList out) {
        // The kind's bit computed once for the armed test and the index (isArmed and index(kind)
        // each computed it): every teardown step cancels a timer.
        int bit = bit(kind);
        int kinds = armedKinds;
        if ((kinds & bit) == 0) {
            return this;
        }
        out.add(cancelAction(kind, generations[index(kinds, bit)]));
        return without(kind);
    }

    /** The timer fired: forget it (no CancelTimer needed). */
    public Timers fired(TimerKind kind) {
        return isArmed(kind) ? without(kind) : this;
    }

    public Timers cancelAll(ActionList out) {
        if (armedKinds == 0) {
            return this;
        }
        int i = 0;
        for (TimerKind kind : KINDS) {
            if (isArmed(kind)) {
                out.add(cancelAction(kind, generations[i++]));
            }
        }
        return idle(nextGeneration);
    }

    /**
     * Without {@code kind}'s timer (armed). Small enough for C1 to inline: the common case (the only
     * timer armed) is the shared idle value, and only the rest calls {@link #withoutOneOfSeveral}.
     */
    private Timers without(TimerKind kind) {
        return generations.length == 1 ? idle(nextGeneration) : withoutOneOfSeveral(kind);
    }

    private Timers withoutOneOfSeveral(TimerKind kind) {
        int i = index(kind);
        long[] next = new long[generations.length - 1];
        System.arraycopy(generations, 0, next, 0, i);
        System.arraycopy(generations, i + 1, next, i, generations.length - i - 1);
        return new Timers(armedKinds & ~bit(kind), next, nextGeneration);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Timers t && nextGeneration == t.nextGeneration && armedKinds == t.armedKinds
                && Arrays.equals(generations, t.generations);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * armedKinds + Arrays.hashCode(generations)) + Long.hashCode(nextGeneration);
    }

    @Override
    public String toString() {
        return "Timers[armed=" + armed() + ", nextGeneration=" + nextGeneration + "]";
    }
}
