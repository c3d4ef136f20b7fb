package org.rdmacm4j.cm.statemachine;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The timers an id has armed, by kind, each with a generation. A generation makes a late expiry of
 * a cancelled or re-armed timer harmless: the machine ignores a TimerExpired whose generation is
 * not the armed one. Immutable; the mutators return a new value and append the actions to emit.
 */
public record Timers(Map<TimerKind, Long> armed, long nextGeneration) {
    public Timers {
        Objects.requireNonNull(armed, "armed");
        EnumMap<TimerKind, Long> copy = new EnumMap<>(TimerKind.class);
        copy.putAll(armed);
        armed = java.util.Collections.unmodifiableMap(copy);
    }

    public static Timers none() {
        return new Timers(Map.of(), 1);
    }

    public boolean isArmed(TimerKind kind) {
        return armed.containsKey(kind);
    }

    public boolean isCurrent(Input.TimerExpired expiry) {
        Long generation = armed.get(expiry.kind());
        return generation != null && generation == expiry.generation();
    }

    /** The generation of the armed timer of {@code kind}, or 0 if none is armed. */
    public long generation(TimerKind kind) {
        return armed.getOrDefault(kind, 0L);
    }

    public Timers arm(TimerKind kind, long delayNanos, List<Action> out) {
        Timers base = cancel(kind, out);
        EnumMap<TimerKind, Long> next = new EnumMap<>(TimerKind.class);
        next.putAll(base.armed);
        next.put(kind, base.nextGeneration);
        out.add(new Action.ArmTimer(kind, base.nextGeneration, Math.max(0, delayNanos)));
        return new Timers(next, base.nextGeneration + 1);
    }

    public Timers cancel(TimerKind kind, List<Action> out) {
        Long generation = armed.get(kind);
        if (generation == null) {
            return this;
        }
        out.add(new Action.CancelTimer(kind, generation));
        EnumMap<TimerKind, Long> next = new EnumMap<>(TimerKind.class);
        next.putAll(armed);
        next.remove(kind);
        return new Timers(next, nextGeneration);
    }

    /** The timer fired: forget it (no CancelTimer needed). */
    public Timers fired(TimerKind kind) {
        EnumMap<TimerKind, Long> next = new EnumMap<>(TimerKind.class);
        next.putAll(armed);
        next.remove(kind);
        return new Timers(next, nextGeneration);
    }

    public Timers cancelAll(List<Action> out) {
        Timers t = this;
        for (TimerKind kind : TimerKind.values()) {
            t = t.cancel(kind, out);
        }
        return t;
    }
}
