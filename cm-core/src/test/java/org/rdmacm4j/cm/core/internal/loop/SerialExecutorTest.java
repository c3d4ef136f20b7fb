package org.rdmacm4j.cm.core.internal.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A helping thread ({@link SerialExecutor#helpSettles}) runs only the settles at the head of an
 * idle executor's queue, in order, and hands everything else to a drain on the base executor, so it
 * never runs a callback and never runs beside a drain.
 */
class SerialExecutorTest {
    @Test
    void aHelperRunsQueuedSettlesInOrderOnItsOwnThread() {
        HoldingExecutor base = new HoldingExecutor();
        SerialExecutor serial = new SerialExecutor(base);
        List<String> ran = new ArrayList<>();
        assertThat(serial.queueSettle(() -> ran.add("first " + Thread.currentThread().getName()))).as("nothing drains").isTrue();
        assertThat(serial.queueSettle(() -> ran.add("second"))).isTrue();
        assertThat(base.held).as("queueSettle starts no drain").isEmpty();

        serial.helpSettles();
        assertThat(ran).containsExactly("first " + Thread.currentThread().getName(), "second");
        assertThat(base.held).isEmpty();
        // Idle again: a callback starts a drain on the base executor as usual.
        serial.execute(() -> ran.add("callback"));
        assertThat(base.held).hasSize(1);
        base.runAll();
        assertThat(ran).endsWith("callback");
        assertThat(serial.callbacksDone()).isTrue();
    }

    @Test
    void aHelperStopsAtACallbackAndHandsTheRestToTheBaseExecutor() throws InterruptedException {
        HoldingExecutor base = new HoldingExecutor();
        SerialExecutor serial = new SerialExecutor(base);
        List<String> ran = new ArrayList<>();
        Thread helper = Thread.currentThread();
        serial.queueSettle(() -> {
            ran.add("settle");
            // the dispatcher, meanwhile: a callback, then a later future's settle behind it
            serial.execute(() -> ran.add(Thread.currentThread() == helper ? "callback on the helper" : "callback"));
            serial.queueSettle(() -> ran.add("late settle"));
        });

        serial.helpSettles();
        assertThat(ran).containsExactly("settle");
        assertThat(serial.callbacksDone()).isFalse();
        assertThat(base.held).as("the rest goes to one drain").hasSize(1);
        serial.helpSettles();   // a drain is due: a second helper does nothing
        assertThat(ran).containsExactly("settle");

        Thread drain = Thread.ofPlatform().start(base::runAll);
        drain.join(10_000);
        assertThat(drain.isAlive()).isFalse();
        assertThat(ran).containsExactly("settle", "callback", "late settle");
        assertThat(serial.callbacksDone()).isTrue();
    }

    @Test
    void aSettleQueuedWhileADrainIsDueIsTheDrainsAndStartDrainIsTheFallback() {
        HoldingExecutor base = new HoldingExecutor();
        SerialExecutor serial = new SerialExecutor(base);
        List<String> ran = new ArrayList<>();
        serial.execute(() -> ran.add("callback"));
        assertThat(serial.queueSettle(() -> ran.add("settle"))).as("a drain is due: it takes the settle").isFalse();
        serial.startDrain();
        assertThat(base.held).as("no second drain").hasSize(1);
        base.runAll();
        assertThat(ran).containsExactly("callback", "settle");

        assertThat(serial.queueSettle(() -> ran.add("orphan"))).isTrue();
        serial.startDrain();   // nobody helps: the fallback
        assertThat(base.held).hasSize(1);
        base.runAll();
        assertThat(ran).endsWith("orphan");
        serial.startDrain();   // nothing queued: nothing started
        assertThat(base.held).isEmpty();
    }

    @Test
    void aSettleThatThrowsReachesTheHelperAndTheRestStillRuns() {
        HoldingExecutor base = new HoldingExecutor();
        SerialExecutor serial = new SerialExecutor(base);
        List<String> ran = new ArrayList<>();
        serial.queueSettle(() -> {
            throw new IllegalStateException("settle failed");
        });
        serial.queueSettle(() -> ran.add("next"));
        assertThatThrownBy(serial::helpSettles).hasMessage("settle failed");
        assertThat(base.held).hasSize(1);
        base.runAll();
        assertThat(ran).containsExactly("next");
        serial.execute(() -> ran.add("callback"));
        base.runAll();
        assertThat(ran).containsExactly("next", "callback");
    }
}
