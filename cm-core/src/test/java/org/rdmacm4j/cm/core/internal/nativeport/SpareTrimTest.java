package org.rdmacm4j.cm.core.internal.nativeport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** When a burst's spare CQs go: the wait bound and the trim decision, over a clock the test sets. */
class SpareTrimTest {
    private static final long MS = 1_000_000L;
    private static final long FOREVER = Long.MAX_VALUE;
    private final SpareTrim trim = new SpareTrim(1_000 * MS);

    @Test
    void withoutASurplusTheWaitIsTheLoopsAndNothingIsEverDue() {
        trim.changed(false);
        trim.changed(false);
        assertThat(trim.hasSurplus()).isFalse();
        assertThat(trim.boundWait(5 * MS, FOREVER)).isEqualTo(FOREVER);
        assertThat(trim.boundWait(5 * MS, 7 * MS)).isEqualTo(7 * MS);
        assertThat(trim.due(10_000 * MS)).isFalse();
    }

    @Test
    void aSurplusIsDueOnceTheSparesWereLeftAloneForTheIdlePeriod() {
        trim.changed(true);
        assertThat(trim.hasSurplus()).isTrue();
        assertThat(trim.boundWait(100 * MS, FOREVER)).as("quiet from the first look: 100 ms").isEqualTo(1_000 * MS);
        assertThat(trim.boundWait(600 * MS, FOREVER)).isEqualTo(500 * MS);
        assertThat(trim.boundWait(600 * MS, 20 * MS)).as("a nearer timer keeps its wait").isEqualTo(20 * MS);
        assertThat(trim.due(1_099 * MS)).isFalse();
        assertThat(trim.due(1_100 * MS)).isTrue();
        assertThat(trim.boundWait(1_200 * MS, FOREVER)).as("overdue: no sleep").isZero();
    }

    @Test
    void aSpareKeptOrTakenRestartsTheQuietPeriod() {
        trim.changed(true);
        assertThat(trim.boundWait(0, FOREVER)).isEqualTo(1_000 * MS);
        trim.changed(false);   // the next connection took one
        assertThat(trim.due(1_500 * MS)).as("quiet since 1,500 ms, not 0").isFalse();
        assertThat(trim.boundWait(1_600 * MS, FOREVER)).isEqualTo(900 * MS);
        assertThat(trim.due(2_500 * MS)).isTrue();
    }

    @Test
    void trimmingKeepsItDueUntilNoSurplusIsLeftAndTrimsAreNoChange() {
        trim.changed(true);
        assertThat(trim.due(0)).isFalse();
        assertThat(trim.due(1_000 * MS)).isTrue();
        trim.trimmed(true);   // a batch went, more are left
        assertThat(trim.due(1_001 * MS)).as("the next turn trims again").isTrue();
        assertThat(trim.boundWait(1_001 * MS, FOREVER)).isZero();
        trim.trimmed(false);
        assertThat(trim.hasSurplus()).isFalse();
        assertThat(trim.due(5_000 * MS)).isFalse();
        assertThat(trim.boundWait(5_000 * MS, FOREVER)).isEqualTo(FOREVER);
    }

    @Test
    void aZeroIdlePeriodTrimsAtTheNextTurn() {
        var now = new SpareTrim(0);
        now.changed(true);
        assertThat(now.boundWait(3 * MS, FOREVER)).isZero();
        assertThat(now.due(3 * MS)).isTrue();
    }

    @Test
    void aNegativeIdlePeriodIsRefused() {
        assertThatThrownBy(() -> new SpareTrim(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
