package org.rdmacm4j.cm.core.internal.id;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.HistoryEntry;
import org.rdmacm4j.cm.statemachine.Input;

/** {@link History}: a ring written by one thread, read by any without a lock. */
class HistoryTest {

    private static void addSteps(History h, int from, int to) {
        for (int k = from; k < to; k++) {
            h.add(1_000 + k, "P" + k, "in" + k);
        }
    }

    private static void assertSteps(List<HistoryEntry> s, int from, int to) {
        assertThat(s).hasSize(to - from);
        for (int i = 0; i < s.size(); i++) {
            int k = from + i;
            assertThat(s.get(i)).isEqualTo(new HistoryEntry(k, "P" + k, "in" + k));
        }
    }

    @Test
    void keepsTheStepsInOrderWithTheirTimeSinceTheStart() {
        History h = new History(32, 1_000);
        addSteps(h, 0, 5);
        assertSteps(h.snapshot(), 0, 5);
    }

    @Test
    void growsPastItsFirstArraysBeforeItWraps() {
        History h = new History(100, 1_000);
        addSteps(h, 0, 12);
        assertSteps(h.snapshot(), 0, 12);
        addSteps(h, 12, 60);
        assertSteps(h.snapshot(), 0, 60);
        addSteps(h, 60, 100);
        assertSteps(h.snapshot(), 0, 100);
    }

    @Test
    void keepsOnlyTheLastCapacityStepsOnceFull() {
        for (int capacity : new int[] {1, 3, 11, 12, 13, 32}) {
            History h = new History(capacity, 1_000);
            for (int n = 1; n <= 3 * capacity + 5; n++) {
                addSteps(h, n - 1, n);
                assertSteps(h.snapshot(), Math.max(0, n - capacity), n);
            }
        }
    }

    @Test
    void aCapacityOfZeroKeepsNothing() {
        History h = new History(0, 1_000);
        addSteps(h, 0, 3);
        assertThat(h.snapshot()).isEmpty();
    }

    @Test
    void describesAnInputOnlyWhenRead() {
        History h = new History(4, 0);
        h.add(5, "RESOLVING_ADDR", "open");
        h.add(7, "CLOSED", new Input.RequestSettled());
        assertThat(h.snapshot()).containsExactly(new HistoryEntry(5, "RESOLVING_ADDR", "open"),
                new HistoryEntry(7, "CLOSED", "request settled"));
    }

    /**
     * Readers on other threads while the one writer adds steps: every snapshot is a run of
     * consecutive steps, each entry whole (its time, phase and cause from the same step), as many
     * as the capacity once full, and never older than what the reader saw before.
     */
    @Test
    void readersOnOtherThreadsSeeWholeConsecutiveStepsWhileTheWriterAdds() throws Exception {
        for (int capacity : new int[] {2, 13, 32}) {
            int steps = 300_000;
            String[] phases = new String[steps];
            String[] causes = new String[steps];
            for (int k = 0; k < steps; k++) {
                phases[k] = "P" + k;
                causes[k] = "in" + k;
            }
            History h = new History(capacity, 0);
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<String> broken = new AtomicReference<>();
            AtomicLong snapshots = new AtomicLong();
            CountDownLatch started = new CountDownLatch(2);
            List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                Thread t = new Thread(() -> {
                    started.countDown();
                    long newest = -1;
                    while (!done.get() && broken.get() == null) {
                        List<HistoryEntry> s = h.snapshot();
                        snapshots.incrementAndGet();
                        if (s.isEmpty()) {
                            continue;
                        }
                        long first = s.getFirst().elapsedNanos();
                        long last = s.getLast().elapsedNanos();
                        if (last < newest) {
                            broken.set("went back from step " + newest + " to " + last);
                        }
                        newest = last;
                        if (s.size() != Math.min(capacity, last + 1)) {
                            broken.set(s.size() + " entries ending at step " + last + ", capacity " + capacity);
                        }
                        for (int i = 0; i < s.size(); i++) {
                            HistoryEntry e = s.get(i);
                            int k = (int) e.elapsedNanos();
                            if (k != first + i || !e.phase().equals(phases[k]) || !e.input().equals(causes[k])) {
                                broken.set("torn or out of order at " + i + ": " + s);
                                break;
                            }
                        }
                    }
                });
                t.start();
                readers.add(t);
            }
            started.await();
            for (int k = 0; k < steps; k++) {
                h.add(k, phases[k], causes[k]);
            }
            done.set(true);
            for (Thread t : readers) {
                t.join();
            }
            assertThat(broken.get()).as("capacity " + capacity).isNull();
            assertThat(snapshots.get()).isPositive();
            assertSteps(h.snapshot(), steps - capacity, steps);
        }
    }
}
