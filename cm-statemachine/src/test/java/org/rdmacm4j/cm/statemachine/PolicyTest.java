package org.rdmacm4j.cm.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyTest {
    @Test
    void backoffDoublesUpToTheCap() {
        RetryPolicy p = new RetryPolicy(10, Duration.ofMillis(10), Duration.ofMillis(50), 2, true, true, true, true);
        assertThat(p.backoffNanos(1)).isEqualTo(10_000_000);
        assertThat(p.backoffNanos(2)).isEqualTo(20_000_000);
        assertThat(p.backoffNanos(3)).isEqualTo(40_000_000);
        assertThat(p.backoffNanos(4)).isEqualTo(50_000_000);
        assertThat(p.backoffNanos(60)).isEqualTo(50_000_000);
    }

    @Test
    void invalidPoliciesAreRejected() {
        assertThatThrownBy(() -> new RetryPolicy(-1, Duration.ZERO, Duration.ZERO, 1, true, true, true, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> new RetryPolicy(1, Duration.ofSeconds(2), Duration.ofSeconds(1), 1, true, true, true, true))
                .isInstanceOf(IllegalArgumentException.class);
        Deadlines d = Deadlines.defaults();
        assertThatThrownBy(() -> new Deadlines(Duration.ZERO, d.resolveAddr(), d.resolveRoute(), d.decision(), d.accept(),
                d.disconnect(), d.timewait(), d.drain(), d.quiesce()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connect");
        assertThatThrownBy(() -> new CmTuning(0, 0, 8, 7)).hasMessageContaining("retryCount");
    }

    @Test
    void timewaitIsOnlyAwaitedWhereItExists() {
        assertThat(ConnectionPolicy.defaults(Transport.ROCE).withAwaitTimewaitExit(true).waitsForTimewait()).isTrue();
        assertThat(ConnectionPolicy.defaults(Transport.IWARP).withAwaitTimewaitExit(true).waitsForTimewait()).isFalse();
        assertThat(ConnectionPolicy.defaults(Transport.ROCE).waitsForTimewait()).isFalse();
    }

    @Test
    void timersTrackGenerationsSoLateExpiriesAreStale() {
        ActionList out = new ActionList();
        Timers t = Timers.none().arm(TimerKind.DRAIN_DEADLINE, 5, out);
        long first = t.generation(TimerKind.DRAIN_DEADLINE);
        t = t.arm(TimerKind.DRAIN_DEADLINE, 5, out);
        assertThat(out).containsExactly(new Action.ArmTimer(TimerKind.DRAIN_DEADLINE, first, 5),
                new Action.CancelTimer(TimerKind.DRAIN_DEADLINE, first),
                new Action.ArmTimer(TimerKind.DRAIN_DEADLINE, first + 1, 5));
        assertThat(t.isCurrent(new Input.TimerExpired(TimerKind.DRAIN_DEADLINE, first))).isFalse();
        assertThat(t.isCurrent(new Input.TimerExpired(TimerKind.DRAIN_DEADLINE, first + 1))).isTrue();
    }

    @Test
    void nativeCodesMatchTheHeaders() {
        assertThat(CmEventType.TIMEWAIT_EXIT.code()).isEqualTo(15);
        assertThat(CmEventType.ofCode(8)).isEqualTo(CmEventType.REJECTED);
        assertThat(AsyncEventType.QP_FATAL.code()).isEqualTo(1);
        assertThat(AsyncEventType.GID_CHANGE.code()).isEqualTo(18);
        assertThatThrownBy(() -> CmEventType.ofCode(16)).isInstanceOf(IllegalArgumentException.class);
        // The dispatcher's lookup: null where find is empty, the same constant where it is not.
        for (int code = -1; code <= 16; code++) {
            assertThat(CmEventType.ofCodeOrNull(code)).as("code %d", code).isEqualTo(CmEventType.find(code).orElse(null));
        }
        assertThat(CmEventType.ofCodeOrNull(16)).isNull();
        assertThat(CmEventType.ofCodeOrNull(-1)).isNull();
        assertThat(CmEventType.ofCodeOrNull(10)).isEqualTo(CmEventType.DISCONNECTED);
    }
}
