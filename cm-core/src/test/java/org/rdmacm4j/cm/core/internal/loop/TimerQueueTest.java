package org.rdmacm4j.cm.core.internal.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.statemachine.TimerKind;

/**
 * The timer heap against a plain model: random arms, cancels, cancel-alls and polls over a few
 * owners must fire exactly the live timers, earliest deadline first (ties in arming order), and
 * a cancelled timer must leave the heap at once (its size is the live count).
 */
class TimerQueueTest {
    static final class Owner extends TimerOwner {
        final int id;

        Owner(int id) {
            this.id = id;
        }
    }

    /** The model's armed timer. */
    record Armed(long deadline, long order, long generation) { }

    @Test
    void firesTheLiveTimersInDeadlineOrderAndForgetsCancelledOnesAtOnce() {
        TimerKind[] kinds = TimerKind.values();
        for (long seed = 1; seed <= 40; seed++) {
            Random rnd = new Random(seed);
            TimerQueue<Owner> q = new TimerQueue<>();
            List<Owner> owners = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                owners.add(new Owner(i));
            }
            Map<String, Armed> model = new HashMap<>();
            Map<String, Owner> ownerOf = new HashMap<>();
            long now = 1_000;
            long order = 0;
            for (int step = 0; step < 3_000; step++) {
                Owner o = owners.get(rnd.nextInt(owners.size()));
                TimerKind k = kinds[rnd.nextInt(kinds.length)];
                String key = o.id + "/" + k;
                int op = rnd.nextInt(10);
                if (op < 4) {
                    long deadline = now + rnd.nextInt(50);   // ties are frequent on purpose
                    long generation = rnd.nextLong();
                    q.arm(o, k, generation, deadline);
                    model.put(key, new Armed(deadline, order++, generation));
                    ownerOf.put(key, o);
                } else if (op < 6) {
                    q.cancel(o, k);
                    model.remove(key);
                } else if (op < 7) {
                    q.cancelAll(o);
                    model.keySet().removeIf(x -> x.startsWith(o.id + "/"));
                } else {
                    now += rnd.nextInt(20);
                    long t = now;
                    TimerQueue.Expiry<Owner> e;
                    while ((e = q.pollDue(now)) != null) {
                        String expected = model.entrySet().stream()
                                .filter(x -> x.getValue().deadline() <= t)
                                .min((a, b) -> a.getValue().deadline() != b.getValue().deadline()
                                        ? Long.compare(a.getValue().deadline(), b.getValue().deadline())
                                        : Long.compare(a.getValue().order(), b.getValue().order()))
                                .map(Map.Entry::getKey).orElse(null);
                        String got = e.owner().id + "/" + e.kind();
                        assertThat(got).as("seed %d step %d", seed, step).isEqualTo(expected);
                        assertThat(e.generation()).isEqualTo(model.get(got).generation());
                        model.remove(got);
                    }
                    assertThat(model.values()).as("nothing due is left (seed %d)", seed)
                            .allMatch(a -> a.deadline() > t);
                }
                assertThat(q.size()).as("seed %d step %d: live timers only", seed, step).isEqualTo(model.size());
                long at = now;
                long wait = q.nanosUntilNext(at, 1_000_000);
                long expectedWait = model.values().stream().mapToLong(a -> Math.max(0, a.deadline() - at))
                        .min().orElse(1_000_000);
                assertThat(wait).isEqualTo(Math.min(expectedWait, 1_000_000));
            }
        }
    }
}
