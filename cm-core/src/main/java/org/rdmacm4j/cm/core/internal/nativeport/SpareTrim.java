package org.rdmacm4j.cm.core.internal.nativeport;

/**
 * When the spare CQs a burst left behind go ({@link CqSpares}): a device keeps up to
 * {@link CqSpares#KEPT} after a storm of raw connections closes, so that the storm's teardown
 * destroys no CQ and the next storm creates none; once no spare has been kept or taken, on any
 * device, for the idle period (the application's {@code RdmaCm.Builder.spareCqIdle}), those beyond
 * {@link CqSpares#STEADY} per device go, {@link #BATCH} per dispatcher turn, so that the events
 * arriving meanwhile wait for sixteen destroys at most.
 *
 * <p>Pure bookkeeping: it is given the clock and told of every change, and says how long the
 * dispatcher may sleep and when to trim; {@link VerbsCmPort} reads the clock only while some device
 * holds a surplus. Threads: the dispatcher's.
 */
final class SpareTrim {
    /** Spare CQs destroyed per dispatcher turn once the surplus is due to go. */
    static final int BATCH = 16;

    private final long idleNanos;
    /** Spares kept or taken so far, every device. */
    private long changes;
    /** {@link #changes} when the clock was last read, and that reading: the quiet period starts there. */
    private long changesSeen = -1;
    private long quietSince;
    /** Some device may hold more than {@link CqSpares#STEADY} spares. */
    private boolean surplus;

    SpareTrim(long idleNanos) {
        if (idleNanos < 0) {
            throw new IllegalArgumentException("idleNanos must be >= 0, was " + idleNanos);
        }
        this.idleNanos = idleNanos;
    }

    /** A spare was kept or taken; {@code surplusNow}: its device now holds more than the steady number. */
    void changed(boolean surplusNow) {
        changes++;
        surplus |= surplusNow;
    }

    /** Whether some device may hold a surplus (then, and only then, the port reads the clock for this). */
    boolean hasSurplus() {
        return surplus;
    }

    /**
     * The dispatcher's wait, shortened so that it wakes when the surplus is due to go: {@code
     * timeoutNanos} if there is no surplus, 0 if it is due now.
     */
    long boundWait(long nowNanos, long timeoutNanos) {
        if (!surplus) {
            return timeoutNanos;
        }
        return Math.max(0, Math.min(timeoutNanos, quietSince(nowNanos) + idleNanos - nowNanos));
    }

    /** Whether the surplus is due to go at {@code nowNanos}: the spares have been left alone for the idle period. */
    boolean due(long nowNanos) {
        return surplus && nowNanos - quietSince(nowNanos) >= idleNanos;
    }

    /** A batch was trimmed; {@code surplusLeft}: some device still holds more than the steady number. */
    void trimmed(boolean surplusLeft) {
        surplus = surplusLeft;
    }

    /** When the spares were last seen to change: the first clock reading after the last change. */
    private long quietSince(long nowNanos) {
        if (changes != changesSeen) {
            changesSeen = changes;
            quietSince = nowNanos;
        }
        return quietSince;
    }
}
