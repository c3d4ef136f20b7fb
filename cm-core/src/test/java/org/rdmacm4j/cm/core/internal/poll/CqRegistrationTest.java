package org.rdmacm4j.cm.core.internal.poll;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.verbs.ibv.CompletionChannel;
import org.rdmacm4j.verbs.ibv.CompletionQueue;

/**
 * The lazy registration of a CQ with its poller, against a poller that records its commands (no
 * thread, no device: a real CQ's completions after a raw post are exercised by the raw-connection
 * ITs in the guest). A CQ never started is drained and quiesced without a poller command; one
 * started gets its commands in order, the register first; a start racing the quiesce either wins
 * (register, then quiesce) or is refused (no command at all).
 */
class CqRegistrationTest {
    /** Records the commands in the order they are queued, as the poller would run them; answers a quiesce at once. */
    static final class RecordingPoller implements PollerCommands {
        final List<String> commands = new ArrayList<>();
        CompletionSink sink;
        private long nextToken = 7;

        @Override
        public synchronized long register(CompletionChannel channel, CompletionQueue cq, CompletionSink s) {
            sink = s;
            commands.add("register " + nextToken);
            return nextToken++;
        }

        @Override
        public synchronized void drain(long token, Runnable drained) {
            commands.add("drain " + token);
            drained.run();
        }

        @Override
        public synchronized void startKeepalive(long token, Keepalive keepalive) {
            commands.add("keepalive " + token);
        }

        @Override
        public synchronized void quiesce(long token, Runnable quiesced) {
            commands.add("quiesce " + token);
            quiesced.run();
        }

        synchronized List<String> commands() {
            return List.copyOf(commands);
        }
    }

    final RecordingPoller poller = new RecordingPoller();
    final CompletionSink sink = (wc, i) -> { };
    final CqRegistration cq = new CqRegistration(poller, null, null, sink);
    final List<String> answers = new ArrayList<>();

    @Test
    void aCqNeverStartedIsDrainedAndQuiescedWithoutAPollerCommand() {
        cq.drain(() -> answers.add("drained"));
        cq.quiesce(() -> answers.add("quiesced"));

        assertThat(answers).containsExactly("drained", "quiesced");   // at once, on this thread
        assertThat(poller.commands()).isEmpty();
        assertThat(cq.start()).as("a quiesced CQ is closed to registration").isFalse();
        assertThat(cq.registered()).isFalse();
        assertThat(cq.mayDestroy()).isTrue();
        assertThat(poller.commands()).isEmpty();
        assertThat(cq.closedUnused()).as("no poller ever saw it: the port may keep it as a spare").isTrue();
    }

    @Test
    void aStartedCqGetsItsCommandsInOrderTheRegisterFirst() {
        assertThat(cq.start()).isTrue();
        assertThat(cq.start()).as("a second start is a no-op").isTrue();
        assertThat(cq.registered()).isTrue();
        assertThat(poller.sink).as("completions go to the CQ's sink").isSameAs(sink);
        assertThat(cq.mayDestroy()).as("a poller may still touch it").isFalse();

        cq.drain(() -> answers.add("drained"));
        cq.quiesce(() -> answers.add("quiesced"));
        cq.quiesce(() -> answers.add("quiesced again"));

        assertThat(poller.commands()).containsExactly("register 7", "drain 7", "quiesce 7");
        assertThat(answers).containsExactly("drained", "quiesced", "quiesced again");
        assertThat(cq.start()).isFalse();
        assertThat(cq.mayDestroy()).isTrue();
        assertThat(cq.closedUnused()).as("a poller armed it: never kept as a spare").isFalse();
    }

    @Test
    void aKeepaliveRegistersTheCqFirstAndIsRefusedAfterTheQuiesce() {
        Keepalive k = new Keepalive(new KeepaliveOptions(Duration.ofSeconds(1), 3), null, (why, status) -> { });

        assertThat(cq.startKeepalive(k)).isTrue();
        cq.quiesce(() -> answers.add("quiesced"));
        assertThat(cq.startKeepalive(k)).isFalse();

        assertThat(poller.commands()).containsExactly("register 7", "keepalive 7", "quiesce 7");
    }

    @Test
    void mayDestroyClosesANeverStartedCqToRegistration() {
        assertThat(cq.closedUnused()).as("still open to registration").isFalse();
        assertThat(cq.mayDestroy()).isTrue();
        assertThat(cq.start()).isFalse();
        assertThat(poller.commands()).isEmpty();
        assertThat(cq.closedUnused()).isTrue();
        cq.quiesce(() -> answers.add("quiesced"));
        assertThat(answers).containsExactly("quiesced");
        assertThat(cq.closedUnused()).as("a later quiesce keeps it unused").isTrue();
    }

    @Test
    void closeIfUnusedClosesANeverStartedCqAndLeavesAStartedOneRegistered() {
        assertThat(cq.closeIfUnused()).isTrue();
        assertThat(cq.closeIfUnused()).as("again").isTrue();
        assertThat(cq.start()).as("closed to registration").isFalse();
        assertThat(cq.closedUnused()).isTrue();

        CqRegistration started = new CqRegistration(poller, null, null, sink);
        assertThat(started.start()).isTrue();
        assertThat(started.closeIfUnused()).isFalse();
        assertThat(started.registered()).as("still registered: its drain goes through the poller").isTrue();
        started.drain(() -> answers.add("drained"));
        assertThat(poller.commands()).containsExactly("register 7", "drain 7");
    }

    @Test
    void aCqStartedThenClosedByMayDestroyAfterItsQuiesceIsNotUnused() {
        assertThat(cq.start()).isTrue();
        cq.quiesce(() -> answers.add("quiesced"));
        assertThat(cq.mayDestroy()).isTrue();
        assertThat(cq.closedUnused()).isFalse();
    }

    /**
     * The application's first raw() (start, any thread) against the dispatcher's close (quiesce):
     * both orders happen over the rounds, and every round ends in one of the two legal histories.
     */
    @Test
    void aStartRacingTheQuiesceEitherRegistersBeforeItOrIsRefused() throws Exception {
        int rounds = 2_000;
        int won = 0;
        int refused = 0;
        ExecutorService app = Executors.newSingleThreadExecutor();
        try {
            for (int r = 0; r < rounds; r++) {
                RecordingPoller p = new RecordingPoller();
                CqRegistration c = new CqRegistration(p, null, null, sink);
                CyclicBarrier go = new CyclicBarrier(2);
                AtomicInteger quiesced = new AtomicInteger();
                Future<Boolean> started = app.submit(() -> {
                    go.await(5, TimeUnit.SECONDS);
                    return c.start();
                });
                go.await(5, TimeUnit.SECONDS);
                c.quiesce(quiesced::incrementAndGet);
                boolean ok = started.get(5, TimeUnit.SECONDS);

                assertThat(quiesced.get()).as("round %s: quiesced answered once", r).isEqualTo(1);
                if (ok) {
                    won++;
                    assertThat(p.commands()).as("round %s", r).containsExactly("register 7", "quiesce 7");
                } else {
                    refused++;
                    assertThat(p.commands()).as("round %s", r).isEmpty();
                }
                assertThat(c.closedUnused()).as("round %s: unused exactly when the start lost", r).isEqualTo(!ok);
                assertThat(c.start()).as("round %s: after the quiesce", r).isFalse();
                assertThat(c.mayDestroy()).isTrue();
            }
        } finally {
            app.shutdownNow();
        }
        assertThat(won + refused).isEqualTo(rounds);
    }
}
