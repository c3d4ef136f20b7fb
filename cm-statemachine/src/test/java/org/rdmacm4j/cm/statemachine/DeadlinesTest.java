package org.rdmacm4j.cm.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Deadlines' converted values are its Durations' own conversions; it equals and prints as the record it was. */
class DeadlinesTest {
    private static Deadlines of(long... millis) {
        Duration[] d = new Duration[9];
        for (int i = 0; i < 9; i++) {
            d[i] = Duration.ofMillis(millis[i]).plusNanos(i + 1);
        }
        return new Deadlines(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8]);
    }

    @Test
    void theConvertedValuesAreTheDurationsConversions() {
        for (Deadlines d : new Deadlines[] {Deadlines.defaults(), of(1, 2, 3, 4, 5, 6, 7, 8, 9),
                of(60_000, 1, Integer.MAX_VALUE, 86_400_000L * 365 * 200, 1, 1, 1, 1, 1)}) {
            assertThat(d.connectNanos()).isEqualTo(d.connect().toNanos());
            assertThat(d.decisionNanos()).isEqualTo(d.decision().toNanos());
            assertThat(d.acceptNanos()).isEqualTo(d.accept().toNanos());
            assertThat(d.disconnectNanos()).isEqualTo(d.disconnect().toNanos());
            assertThat(d.timewaitNanos()).isEqualTo(d.timewait().toNanos());
            assertThat(d.drainNanos()).isEqualTo(d.drain().toNanos());
            assertThat(d.quiesceNanos()).isEqualTo(d.quiesce().toNanos());
            assertThat(d.resolveAddrMillis()).isEqualTo((int) d.resolveAddr().toMillis());
            assertThat(d.resolveRouteMillis()).isEqualTo((int) d.resolveRoute().toMillis());
        }
    }

    /** Too long for a long of nanos: made as before, and arming it throws as toNanos did. */
    @Test
    void aDeadlineTooLongForNanosThrowsWhenConverted() {
        Duration forever = Duration.ofDays(365L * 1000);
        Duration s = Duration.ofSeconds(1);
        Deadlines d = new Deadlines(forever, s, s, forever, forever, forever, forever, forever, forever);
        assertThat(d.connect()).isEqualTo(forever);
        assertThatThrownBy(d::connectNanos).isInstanceOf(ArithmeticException.class);
        assertThatThrownBy(d::decisionNanos).isInstanceOf(ArithmeticException.class);
        assertThatThrownBy(d::acceptNanos).isInstanceOf(ArithmeticException.class);
        assertThatThrownBy(d::disconnectNanos).isInstanceOf(ArithmeticException.class);
        assertThatThrownBy(d::timewaitNanos).isInstanceOf(ArithmeticException.class);
        assertThatThrownBy(d::drainNanos).isInstanceOf(ArithmeticException.class);
        assertThatThrownBy(d::quiesceNanos).isInstanceOf(ArithmeticException.class);
    }

    @Test
    void equalsHashesAndPrintsAsTheRecordItWas() {
        Deadlines a = of(1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(a).isEqualTo(of(1, 2, 3, 4, 5, 6, 7, 8, 9)).hasSameHashCodeAs(of(1, 2, 3, 4, 5, 6, 7, 8, 9));
        for (int i = 0; i < 9; i++) {
            long[] m = {1, 2, 3, 4, 5, 6, 7, 8, 9};
            m[i] = 100;
            assertThat(a).as("component %d", i).isNotEqualTo(of(m));
        }
        assertThat(a).isNotEqualTo(null).isNotEqualTo("Deadlines");
        assertThat(Deadlines.defaults().toString()).isEqualTo("Deadlines[connect=PT10S, resolveAddr=PT2S, "
                + "resolveRoute=PT2S, decision=PT10S, accept=PT5S, disconnect=PT1S, timewait=PT1S, drain=PT1S, "
                + "quiesce=PT1S]");
    }
}
