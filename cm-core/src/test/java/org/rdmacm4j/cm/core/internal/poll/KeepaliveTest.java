package org.rdmacm4j.cm.core.internal.poll;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.verbs.ibv.WcStatus;

/**
 * The keepalive's counting and its schedule, with a recording probe and a hand-driven clock
 * (no native calls; the probe on a real QP is exercised by KeepaliveIT in the guest).
 */
class KeepaliveTest {
    static final long MS = 1_000_000L;

    /** Counts probes; refuses them when told (a QP already in ERR). */
    static final class FakeProbe implements Keepalive.Probe {
        int posted;
        boolean refuse;
        boolean closed;

        @Override
        public void post() {
            if (refuse) {
                throw new IllegalStateException("ibv_post_send: Invalid argument (the QP is in ERR)");
            }
            posted++;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    final FakeProbe probe = new FakeProbe();
    final List<String> verdicts = new ArrayList<>();

    Keepalive keepalive(long periodMs, int misses) {
        return new Keepalive(new KeepaliveOptions(Duration.ofMillis(periodMs), misses), probe,
                (reason, status) -> verdicts.add(reason + " / " + status));
    }

    @Test
    void anAnsweredProbeIsFollowedByTheNextOneAndNoVerdict() {
        Keepalive k = keepalive(100, 2);
        for (int i = 1; i <= 50; i++) {
            assertThat(k.tick()).isTrue();
            assertThat(probe.posted).isEqualTo(i);
            k.completed(WcStatus.SUCCESS);
        }
        assertThat(verdicts).isEmpty();
        assertThat(k.missed()).isZero();
    }

    @Test
    void aProbeUnansweredForMissesPeriodsGivesTheVerdictOnceAndStops() {
        Keepalive k = keepalive(100, 3);
        assertThat(k.tick()).isTrue();               // probe posted
        assertThat(k.tick()).isTrue();               // miss 1 (no second probe while one is out)
        assertThat(k.tick()).isTrue();               // miss 2
        assertThat(probe.posted).isEqualTo(1);
        assertThat(verdicts).isEmpty();
        assertThat(k.tick()).as("miss 3: unscheduled").isFalse();
        assertThat(verdicts).containsExactly("no answer to a keepalive probe for 3 period(s) of 100 ms / null");
        assertThat(k.tick()).isFalse();
        k.completed(WcStatus.RETRY_EXC_ERR);         // the QP's own give-up, later: not news
        assertThat(verdicts).hasSize(1);
    }

    @Test
    void aLateAnswerResetsTheMisses() {
        Keepalive k = keepalive(100, 2);
        k.tick();
        k.tick();                                    // miss 1
        assertThat(k.missed()).isEqualTo(1);
        k.completed(WcStatus.SUCCESS);
        assertThat(k.missed()).isZero();
        k.tick();                                    // the next probe
        k.tick();                                    // miss 1 again, not 2
        assertThat(verdicts).isEmpty();
        assertThat(probe.posted).isEqualTo(2);
    }

    @Test
    void retriesExhaustedOnTheProbeIsAVerdictButAFlushIsNot() {
        Keepalive k = keepalive(100, 5);
        k.tick();
        k.completed(WcStatus.RETRY_EXC_ERR);
        assertThat(verdicts).containsExactly("a keepalive probe failed with IBV_WC_RETRY_EXC_ERR / RETRY_EXC_ERR");
        assertThat(k.tick()).isFalse();

        verdicts.clear();
        Keepalive other = keepalive(100, 5);
        other.tick();
        other.completed(WcStatus.WR_FLUSH_ERR);      // the QP went to ERR for a teardown
        assertThat(verdicts).isEmpty();
    }

    @Test
    void closingStopsProbesAndSilencesFailures() {
        Keepalive k = keepalive(100, 1);
        k.tick();
        k.closing();
        k.completed(WcStatus.RETRY_EXC_ERR);
        assertThat(k.tick()).isFalse();
        assertThat(verdicts).isEmpty();
        assertThat(probe.posted).isEqualTo(1);
        k.release();
        assertThat(probe.closed).isTrue();
    }

    @Test
    void aRefusedPostCountsAsAMissAndAPostedProbeDoesNotResetThem() {
        Keepalive k = keepalive(100, 3);
        probe.refuse = true;
        assertThat(k.tick()).isTrue();               // miss 1: nothing could be posted
        probe.refuse = false;
        assertThat(k.tick()).isTrue();               // posted, still 1 miss
        assertThat(k.missed()).isEqualTo(1);
        assertThat(k.tick()).isTrue();               // miss 2
        assertThat(k.tick()).isFalse();              // miss 3: verdict
        assertThat(verdicts).containsExactly("no answer to a keepalive probe for 3 period(s) of 100 ms / null");

        verdicts.clear();
        Keepalive never = keepalive(100, 2);
        probe.refuse = true;
        never.tick();
        assertThat(never.tick()).isFalse();
        assertThat(verdicts).singleElement().asString()
                .startsWith("no keepalive probe could be posted for 2 period(s) (ibv_post_send");
    }

    @Test
    void theScheduleTicksEachKeepaliveOncePerPeriodAndBoundsTheWait() {
        KeepaliveSchedule s = new KeepaliveSchedule();
        Keepalive fast = keepalive(100, 1000);
        Keepalive slow = keepalive(250, 1000);
        long t = 1_000 * MS;
        assertThat(s.nanosUntilNext(t, 500 * MS)).as("nothing scheduled: the poller's own bound").isEqualTo(500 * MS);
        s.start(fast, t);
        s.start(slow, t);
        assertThat(s.nanosUntilNext(t, 500 * MS)).isEqualTo(100 * MS);
        int before = probe.posted;
        for (long now = t; now <= t + 1_000 * MS; now += 10 * MS) {
            s.runDue(now);
        }
        // fast ticks at +100..+1000 (10 ticks), slow at +250, +500, +750, +1000 (4 ticks); the
        // probes stay unanswered, so each posted once and counted misses after that.
        assertThat(probe.posted - before).isEqualTo(2);
        assertThat(fast.missed()).isEqualTo(9);
        assertThat(slow.missed()).isEqualTo(3);
        assertThat(s.nanosUntilNext(t + 1_000 * MS, 500 * MS)).isEqualTo(100 * MS);
    }

    @Test
    void aLatePollerDoesNotBurstAndCancelledKeepalivesAreDropped() {
        KeepaliveSchedule s = new KeepaliveSchedule();
        Keepalive k = keepalive(100, 1000);
        Keepalive gone = keepalive(100, 1000);
        s.start(k, 0);
        s.start(gone, 0);
        gone.cancelled = true;
        s.runDue(1_000 * MS);                        // ten periods late: one tick, not ten
        assertThat(probe.posted).isEqualTo(1);
        assertThat(k.missed()).isZero();
        assertThat(s.size()).as("the cancelled one is gone").isEqualTo(1);
        assertThat(s.nanosUntilNext(1_000 * MS, 500 * MS)).isEqualTo(100 * MS);
    }

    @Test
    void aFinishedKeepaliveLeavesTheSchedule() {
        KeepaliveSchedule s = new KeepaliveSchedule();
        Keepalive k = keepalive(100, 1);
        s.start(k, 0);
        s.runDue(100 * MS);                          // probe
        s.runDue(200 * MS);                          // miss 1 = misses: verdict, unscheduled
        assertThat(verdicts).hasSize(1);
        assertThat(s.size()).isZero();
    }
}
