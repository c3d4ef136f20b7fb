package org.rdmacm4j.cm.core.internal.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.statistics.Statistics;
import org.rdmacm4j.cm.core.FuzzSupport;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.core.internal.poll.SlotPool;

/**
 * Fuzz test of what the message channel reads from a peer's message before it trusts it
 * (DataPath.received): the immediate data and the counters ({@link PeerConduct#violation}) and
 * the completion's byte_len ({@link PeerConduct#lengthViolation}). Both are pure and may not
 * throw: a violation is a string, and DataPath turns it into a DataPathException that tears the
 * connection down. Three properties:
 * <ul>
 *   <li>for any input, each check flags exactly what an independent reading of the rules flags;</li>
 *   <li>a session with an honest peer (random interleaving of both sides' messages and
 *       deliveries, random windows, grants as DataPath makes them) is never flagged: a false
 *       positive would kill good connections;</li>
 *   <li>the same session with one mutated message (undefined bits in the immediate data, no
 *       immediate data, a grant beyond the window, a message beyond the offered size, a flood
 *       beyond the credits) is flagged at that message (the flood: before it exceeds what we
 *       posted).</li>
 * </ul>
 *
 * <p>Tries: {@code jqwik.tries.default}; campaign {@code -Djqwik.tries.default=1000000}.
 */
class PeerConductFuzzTest {
    private static final AtomicLong IMM = new AtomicLong();
    private static final AtomicLong LENGTHS = new AtomicLong();
    private static final AtomicLong SESSIONS = new AtomicLong();
    private static final AtomicLong SESSION_MESSAGES = new AtomicLong();
    private static final int GRANT_ONLY = 1 << 16;

    // ------------------------------------------------------------------ single messages

    @Provide
    Arbitrary<Integer> imm() {
        Arbitrary<Integer> grant = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.integers().between(0, 64)),
                Tuple.of(1, Arbitraries.of(0, 1, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF)),
                Tuple.of(1, Arbitraries.integers().between(0, 0xFFFF)));
        Arbitrary<Integer> junk = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.just(0)),
                Tuple.of(1, Arbitraries.integers().between(17, 31).map(bit -> 1 << bit)),
                Tuple.of(1, Arbitraries.integers().map(i -> i & ~PeerConduct.KNOWN_IMM_BITS)));
        return Combinators.combine(grant, Arbitraries.of(0, GRANT_ONLY), junk).as((g, f, j) -> g | f | j);
    }

    /**
     * Counters: DataPath's are longs that grow by at most one message or one 16-bit grant at a
     * time, so they stay far below 2^62 (the check's sum cannot overflow); 2^40 stands for "huge".
     */
    @Provide
    Arbitrary<Long> count() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(0, 1 << 20)),
                Tuple.of(1, Arbitraries.of(0L, 1L, 2L, 0xFFFEL, 0xFFFFL, 0x10000L, 1L << 40)));
    }

    @Provide
    Arbitrary<Integer> window() {
        return Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just(0)),   // the peer's offer not read yet: grants unchecked
                Tuple.of(3, Arbitraries.integers().between(2, 256)),
                Tuple.of(1, Arbitraries.of(2, 3, 0xFFFE, 0xFFFF)));
    }

    @Property
    void violationFlagsExactlyTheBrokenRules(@ForAll boolean withImm, @ForAll("imm") int imm,
                                             @ForAll("count") long granted, @ForAll @IntRange(min = -3, max = 3) int over,
                                             @ForAll("count") long credits, @ForAll("window") int window) {
        IMM.incrementAndGet();
        long received = Math.max(0, granted + over);
        String v = PeerConduct.violation(withImm, imm, received, granted, credits, window);
        String expected = received > granted ? "flow control" : !withImm ? "without immediate data"
                : (imm & ~0x1FFFF) != 0 ? "bits" : window > 0 && credits + (imm & 0xFFFF) > window ? "window" : null;
        Statistics.label("verdict").collect(expected == null ? "kept" : expected);
        if (expected == null) {
            assertThat(v).isNull();
        } else {
            assertThat(v).isNotNull().contains(expected);
        }
    }

    @Provide
    Arbitrary<Integer> maxMessage() {
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.integers().between(1, MessagingOptions.MAX_MESSAGE_SIZE)),
                Tuple.of(1, Arbitraries.of(1, 63, 64, 65, 1000, 1024, 4095, 4096, MessagingOptions.MAX_MESSAGE_SIZE)));
    }

    @Property
    void lengthViolationFlagsExactlyWhatExceedsTheOffer(@ForAll("maxMessage") int max,
                                                       @ForAll @IntRange(min = -2, max = 2) int near,
                                                       @ForAll int any, @ForAll boolean relative) {
        LENGTHS.incrementAndGet();
        // Near the offer, near the size class's slot (what the buffer really holds), or any u32.
        int slot = SlotPool.sizeClass(max);
        int byteLength = !relative ? any : (any & 1) == 0 ? max + near : slot + near;
        String v = PeerConduct.lengthViolation(byteLength, max);
        boolean over = Integer.toUnsignedLong(byteLength) > max;
        Statistics.label("verdict").collect(over ? byteLength < 0 ? "over (beyond 2^31)" : "over" : "within");
        if (over) {
            assertThat(v).isNotNull().contains(Long.toString(Integer.toUnsignedLong(byteLength)));
        } else {
            assertThat(v).isNull();
        }
    }

    // ------------------------------------------------------------------ sessions

    enum Mutation { NONE, UNDEFINED_BIT, NO_IMMEDIATE, GRANT_BEYOND_WINDOW, OVERSIZE, FLOOD }

    /** One step of the schedule: which side acts (sends or delivers), 0..3. */
    @Provide
    Arbitrary<List<Integer>> schedule() {
        return Arbitraries.integers().between(0, 3).list().ofMinSize(1).ofMaxSize(400);
    }

    @Property
    void anHonestPeerIsNeverFlaggedAndOneBadMessageIs(@ForAll @IntRange(min = 2, max = 64) int ourWindow,
                                                      @ForAll @IntRange(min = 2, max = 64) int peerWindow,
                                                      @ForAll("maxMessage") int ourMax,
                                                      @ForAll("schedule") List<Integer> schedule,
                                                      @ForAll Mutation mutation,
                                                      @ForAll @IntRange(min = 0, max = 399) int mutateAt,
                                                      @ForAll @IntRange(min = 17, max = 31) int bit) {
        SESSIONS.incrementAndGet();
        Session s = new Session(ourWindow, peerWindow, ourMax);
        int peerMessages = 0;
        boolean mutated = false;
        for (int step : schedule) {
            switch (step) {
                case 0 -> {   // the peer sends, honestly unless this is the message to mutate
                    boolean now = mutation != Mutation.NONE && !mutated && peerMessages >= mutateAt % (schedule.size() / 4 + 1);
                    if (now && mutation == Mutation.FLOOD) {
                        mutated = true;
                        // Ignore the credits: send until we have used more than we posted.
                        long limit = s.granted - s.received + 1;
                        String v = null;
                        for (long k = 0; k < limit && v == null; k++) {
                            v = s.receive(true, 0, 0);
                        }
                        assertThat(v).as("a flood beyond the credits is flagged").isNotNull().contains("flow control");
                        Statistics.label("session").collect(mutation);
                        return;
                    }
                    if (s.peerCredits == 0) {
                        continue;   // an honest peer waits for a grant
                    }
                    int grant = s.peerTakeGrant();
                    int imm = grant;
                    boolean withImm = true;
                    int length = grant % (ourMax + 1);
                    if (now) {
                        mutated = true;
                        switch (mutation) {
                            case UNDEFINED_BIT -> imm |= 1 << bit;
                            case NO_IMMEDIATE -> withImm = false;
                            case OVERSIZE -> length = ourMax + 1 + (bit - 17);
                            case GRANT_BEYOND_WINDOW -> {
                                long g = peerWindow - s.credits + 1 + (bit - 17);
                                if (g > 0xFFFF) {
                                    mutated = false;   // not expressible in 16 bits: stay honest
                                } else {
                                    imm = (int) g;
                                }
                            }
                            default -> throw new AssertionError(mutation);
                        }
                    }
                    s.peerCredits--;
                    peerMessages++;
                    SESSION_MESSAGES.incrementAndGet();
                    String v = s.receive(withImm, imm, length);
                    if (mutated) {
                        assertThat(v).as("%s flagged", mutation).isNotNull();
                        Statistics.label("session").collect(mutation);
                        return;
                    }
                    assertThat(v).as("honest message %d flagged", peerMessages).isNull();
                }
                case 1 -> s.weSend();
                case 2 -> s.deliverToPeer();
                default -> s.deliverToPeer();
            }
        }
        Statistics.label("session").collect(mutation == Mutation.NONE ? "honest"
                : mutated ? "mutated, stayed honest (grant not expressible)" : "honest (mutation not reached)");
    }

    /**
     * Both sides' counters, ours kept exactly as DataPath keeps them. RC delivers in order, so our
     * messages to the peer wait in a queue; the peer's reach us at once (the order in which we see
     * them is all that matters to our checks).
     */
    private static final class Session {
        final int ourWindow;
        final int peerWindow;
        final int ourMax;
        // Ours (DataPath's names).
        long credits;
        int ungranted;
        long granted;
        long received;
        // The peer's.
        long peerCredits;
        int peerUngranted;
        final ArrayDeque<Integer> toPeer = new ArrayDeque<>();

        Session(int ourWindow, int peerWindow, int ourMax) {
            this.ourWindow = ourWindow;
            this.peerWindow = peerWindow;
            this.ourMax = ourMax;
            this.credits = peerWindow;
            this.granted = ourWindow;
            this.peerCredits = ourWindow;
        }

        int peerTakeGrant() {
            int g = Math.min(peerUngranted, 0xFFFF);
            peerUngranted -= g;
            return g;
        }

        /** DataPath.received: check, then take the grant and re-post the receive. */
        String receive(boolean withImm, int imm, int length) {
            received++;
            String v = PeerConduct.violation(withImm, imm, received, granted, credits, peerWindow);
            if (v == null) {
                v = PeerConduct.lengthViolation(length, ourMax);
            }
            if (v == null) {
                credits += imm & 0xFFFF;
                ungranted++;
            }
            return v;
        }

        /** A message of ours (data or grant-only): spends a credit, carries what we re-posted. */
        void weSend() {
            if (credits == 0) {
                return;
            }
            int g = Math.min(ungranted, 0xFFFF);
            ungranted -= g;
            granted += g;
            credits--;
            toPeer.add(g);
        }

        void deliverToPeer() {
            Integer g = toPeer.poll();
            if (g != null) {
                peerCredits += g;
                peerUngranted++;   // the peer re-posts the receive our message used
            }
        }
    }

    @AfterContainer
    static void report() {
        System.out.println(FuzzSupport.report("PeerConduct.violation (immediate data)", IMM));
        System.out.println(FuzzSupport.report("PeerConduct.lengthViolation (byte_len)", LENGTHS));
        System.out.println(FuzzSupport.report("PeerConduct sessions", SESSIONS));
        System.out.println(FuzzSupport.report("PeerConduct session messages checked", SESSION_MESSAGES));
    }
}
