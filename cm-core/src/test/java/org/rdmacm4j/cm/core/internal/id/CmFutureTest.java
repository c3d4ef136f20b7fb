package org.rdmacm4j.cm.core.internal.id;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.loop.HoldingExecutor;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;

/**
 * CmFuture's posted outcome: waiters wake from the post, dependents (however attached) run only
 * when {@code settle} completes the CompletableFuture, on the settling thread, and a posted future
 * answers every reader as completed while no other completion can change its outcome.
 */
class CmFutureTest {
    private static final long WAIT_S = 10;

    /** Starts a thread blocked in {@code f.get()}; its result (or throwable) lands in the reference. */
    private static Thread blockedIn(CmFuture<String> f, AtomicReference<Object> result) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().name("waiter").start(() -> {
            started.countDown();
            try {
                result.set(f.get());
            } catch (Throwable e) {
                result.set(e);
            }
        });
        started.await();
        awaitParked(t);
        return t;
    }

    private static void awaitParked(Thread t) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("thread parked in time").isLessThan(end);
            Thread.sleep(1);
        }
    }

    @Test
    void aPostWakesTheWaiterBeforeTheFutureCompletesAndDependentsWaitForSettle() throws Exception {
        CmFuture<String> f = new CmFuture<>();
        AtomicReference<String> dependentRanOn = new AtomicReference<>();
        CompletableFuture<String> dependent = f.thenApply(v -> {
            dependentRanOn.set(Thread.currentThread().getName());
            return v + "!";
        });
        CompletableFuture<Void> all = CompletableFuture.allOf(f);   // attaches to f without any CmFuture method
        AtomicReference<Object> result = new AtomicReference<>();
        Thread waiter = blockedIn(f, result);

        assertThat(f.post("value", null)).isTrue();
        waiter.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(waiter.isAlive()).isFalse();
        assertThat(result.get()).isEqualTo("value");
        assertThat(f.isDone()).isTrue();
        assertThat(f.getNow("absent")).isEqualTo("value");
        assertThat(f.resultNow()).isEqualTo("value");
        assertThat(f.state()).isEqualTo(Future.State.SUCCESS);
        assertThat(f.join()).isEqualTo("value");
        // Nothing attached to the CompletableFuture has run: that is settle's job, on its thread.
        assertThat(dependent.isDone()).isFalse();
        assertThat(all.isDone()).isFalse();
        assertThat(dependentRanOn.get()).isNull();

        Thread settler = Thread.ofPlatform().name("serial-executor").start(f::settle);
        settler.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(dependent.get(WAIT_S, TimeUnit.SECONDS)).isEqualTo("value!");
        assertThat(dependentRanOn.get()).isEqualTo("serial-executor");
        assertThat(all.isDone()).isTrue();
        assertThat(f.copy().join()).isEqualTo("value");
    }

    @Test
    void onceAnOutcomeIsPostedNoOtherCompletionCanChangeIt() throws Exception {
        CmFuture<String> f = new CmFuture<>();
        AtomicBoolean cancelAction = new AtomicBoolean();
        f.onCancel(() -> cancelAction.set(true));
        assertThat(f.post("posted", null)).isTrue();

        assertThat(f.post("again", null)).isFalse();
        assertThat(f.complete("other")).isFalse();
        assertThat(f.completeExceptionally(new IllegalStateException("other"))).isFalse();
        assertThat(f.cancel(true)).isFalse();
        f.completeAsync(() -> "async");
        assertThat(f.isCancelled()).isFalse();
        assertThat(cancelAction).isFalse();
        assertThat(f.getNow(null)).isEqualTo("posted");
        assertThat(f.toString()).as("a posted future reads as done").endsWith("[Completed normally]");

        f.settle();
        assertThat(f.get(WAIT_S, TimeUnit.SECONDS)).isEqualTo("posted");
        assertThat(f.thenApply(v -> v + "!").join()).isEqualTo("posted!");
    }

    @Test
    void aFutureDecidedElsewhereRefusesThePostAndWaitsAsACompletableFuture() throws Exception {
        CmFuture<String> cancelled = new CmFuture<>();
        AtomicBoolean cancelAction = new AtomicBoolean();
        cancelled.onCancel(() -> cancelAction.set(true));
        assertThat(cancelled.cancel(false)).isTrue();
        assertThat(cancelAction).isTrue();
        assertThat(cancelled.post("late", null)).isFalse();
        cancelled.settle();   // nothing posted: nothing to do
        assertThat(cancelled.isCancelled()).isTrue();
        assertThatThrownBy(cancelled::join).isInstanceOf(CancellationException.class);

        CmFuture<String> completed = new CmFuture<>();
        AtomicReference<Object> result = new AtomicReference<>();
        Thread waiter = blockedIn(completed, result);
        assertThat(completed.complete("plain")).isTrue();
        waiter.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(result.get()).isEqualTo("plain");
        assertThat(completed.post("late", null)).isFalse();
        assertThat(completed.join()).isEqualTo("plain");
    }

    @Test
    void aPostedFailureIsThrownAsTheCompletableFutureWouldThrowIt() throws Exception {
        CmFuture<String> f = new CmFuture<>();
        IllegalStateException failure = new IllegalStateException("rejected");
        AtomicReference<Object> result = new AtomicReference<>();
        Thread waiter = blockedIn(f, result);
        assertThat(f.post(null, failure)).isTrue();
        waiter.join(TimeUnit.SECONDS.toMillis(WAIT_S));

        assertThat(result.get()).isInstanceOf(ExecutionException.class);
        assertThat(((Throwable) result.get()).getCause()).isSameAs(failure);
        assertThat(f.isDone()).isTrue();
        assertThat(f.isCompletedExceptionally()).isTrue();
        assertThat(f.state()).isEqualTo(Future.State.FAILED);
        assertThat(f.exceptionNow()).isSameAs(failure);
        assertThatThrownBy(f::join).isInstanceOf(CompletionException.class).hasCause(failure);
        assertThatThrownBy(() -> f.getNow("x")).isInstanceOf(CompletionException.class).hasCause(failure);
        assertThatThrownBy(f::resultNow).isInstanceOf(IllegalStateException.class);
        assertThat(f.toString()).endsWith("[Completed exceptionally: java.lang.IllegalStateException]");

        f.settle();
        assertThat(f.toString()).endsWith("[Completed exceptionally: java.lang.IllegalStateException]");
        assertThat(f.handle((v, e) -> e).join()).isSameAs(failure);
    }

    @Test
    void timedWaitsTimeOutAndInterruptsEndGetButNotJoin() throws Exception {
        CmFuture<String> f = new CmFuture<>();
        assertThatThrownBy(() -> f.get(20, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThatThrownBy(() -> f.get(0, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);

        AtomicReference<Object> result = new AtomicReference<>();
        Thread waiter = blockedIn(f, result);
        waiter.interrupt();
        waiter.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(result.get()).isInstanceOf(InterruptedException.class);

        AtomicReference<Object> joined = new AtomicReference<>();
        AtomicBoolean interruptKept = new AtomicBoolean();
        Thread joiner = Thread.ofPlatform().start(() -> {
            joined.set(f.join());
            interruptKept.set(Thread.currentThread().isInterrupted());
        });
        awaitParked(joiner);
        joiner.interrupt();
        Thread.sleep(20);
        assertThat(joiner.isAlive()).as("join() is not interruptible").isTrue();
        assertThat(f.post("late", null)).isTrue();
        joiner.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(joined.get()).isEqualTo("late");
        assertThat(interruptKept).isTrue();
        // A timed get after the post answers at once, before settle.
        assertThat(f.get(0, TimeUnit.MILLISECONDS)).isEqualTo("late");
    }

    @Test
    void postAgainstWaitersArrivingAtTheSameTimeNeverLosesAWakeUp() throws Exception {
        for (int round = 0; round < 2_000; round++) {
            CmFuture<Integer> f = new CmFuture<>();
            int expected = round;
            CountDownLatch go = new CountDownLatch(1);
            AtomicReference<Object> a = new AtomicReference<>();
            AtomicReference<Object> b = new AtomicReference<>();
            Thread w1 = Thread.ofPlatform().start(() -> {
                await(go);
                a.set(f.join());
            });
            Thread w2 = timedGetOnGo(go, f, TimeUnit.SECONDS.toNanos(WAIT_S), b);
            go.countDown();
            if (round % 2 == 0) {
                Thread.onSpinWait();
            }
            assertThat(f.post(expected, null)).isTrue();
            w1.join(TimeUnit.SECONDS.toMillis(WAIT_S));
            w2.join(TimeUnit.SECONDS.toMillis(WAIT_S));
            assertThat(a.get()).as("round %d, join", round).isEqualTo(expected);
            assertThat(b.get()).as("round %d, get(timeout)", round).isEqualTo(expected);
        }
    }

    /** What a thread parked in {@code f.get()} returns when the dispatcher posts "value" and settles through {@code callbacks}. */
    private static Object parkedGetWhenPosted(CmFuture<String> f, SerialExecutor callbacks) throws InterruptedException {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread waiter = blockedIn(f, result);
        postAndSettleThrough(f, "value", callbacks);
        waiter.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        return result.get();
    }

    /** The dispatcher's side of an early post: {@code f} posted without waking, then settled through {@code callbacks}. */
    private static <T> void postAndSettleThrough(CmFuture<T> f, T value, SerialExecutor callbacks) {
        assertThat(f.postWithoutWaking(value, null)).isTrue();
        f.settleThrough(callbacks, f::settle, null);
    }

    /**
     * A second completion through the executor of a future already posted (a connection's closed
     * future: posted when its close() completes, completed again when the id retires) gives the
     * executor nothing: the task would have found the claim taken and done nothing.
     */
    @Test
    void completingAPostedFutureThroughTheExecutorQueuesNothing() throws Exception {
        HoldingExecutor base = new HoldingExecutor();
        var callbacks = new SerialExecutor(base);
        CmFuture<String> f = new CmFuture<>();
        f.completeThrough(callbacks, "first");
        base.runAll();
        assertThat(f.get(WAIT_S, TimeUnit.SECONDS)).isEqualTo("first");
        f.completeThrough(callbacks, "second");
        f.failThrough(callbacks, new IllegalStateException("late"));
        assertThat(base.held).as("no task for an outcome that cannot change").isEmpty();
        assertThat(callbacks.callbacksDone()).isTrue();
        assertThat(f.get(WAIT_S, TimeUnit.SECONDS)).isEqualTo("first");
    }

    @Test
    void aThreadParkedInGetSettlesAFutureNothingDependsOnAndTheExecutorIsNotUsed() throws Exception {
        HoldingExecutor base = new HoldingExecutor();
        var callbacks = new SerialExecutor(base);
        CmFuture<String> f = new CmFuture<>();
        assertThat(parkedGetWhenPosted(f, callbacks)).isEqualTo("value");
        assertThat(base.held).as("no task for the executor: the woken waiter settled").isEmpty();
        // Settled: a stage attached without any CmFuture method sees the completed future.
        assertThat(CompletableFuture.allOf(f).isDone()).isTrue();
        assertThat(callbacks.callbacksDone()).isTrue();
        // The executor's next task still runs (the waiter gave the executor back).
        AtomicBoolean ran = new AtomicBoolean();
        callbacks.execute(() -> ran.set(true));
        base.runAll();
        assertThat(ran).isTrue();
    }

    @Test
    void aFutureWithADependentIsSettledByTheExecutorEvenWithAThreadParkedInGet() throws Exception {
        HoldingExecutor base = new HoldingExecutor();
        var callbacks = new SerialExecutor(base);
        CmFuture<String> f = new CmFuture<>();
        AtomicReference<String> dependentRanOn = new AtomicReference<>();
        CompletableFuture<String> dependent = f.thenApply(v -> {
            dependentRanOn.set(Thread.currentThread().getName());
            return v + "!";
        });
        assertThat(parkedGetWhenPosted(f, callbacks)).isEqualTo("value");
        assertThat(dependent.isDone()).as("the dependent waits for the executor, as before").isFalse();
        assertThat(base.held).hasSize(1);

        Thread executor = Thread.ofPlatform().name("serial-executor").start(base::runAll);
        executor.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(dependent.get(WAIT_S, TimeUnit.SECONDS)).isEqualTo("value!");
        assertThat(dependentRanOn.get()).isEqualTo("serial-executor");
    }

    @Test
    void withNobodyParkedOrAWaiterThatTimedOutTheExecutorSettles() throws Exception {
        HoldingExecutor base = new HoldingExecutor();
        var callbacks = new SerialExecutor(base);
        CmFuture<String> f = new CmFuture<>();
        assertThatThrownBy(() -> f.get(10, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);   // left
        postAndSettleThrough(f, "value", callbacks);
        assertThat(f.getNow(null)).isEqualTo("value");
        assertThat(CompletableFuture.allOf(f).isDone()).as("not settled yet: the executor's task is held").isFalse();
        assertThat(base.held).hasSize(1);
        base.runAll();
        assertThat(CompletableFuture.allOf(f).isDone()).isTrue();
    }

    @Test
    void aSettleQueuedBehindARunningDrainIsLeftToThatDrain() throws Exception {
        HoldingExecutor base = new HoldingExecutor();
        var callbacks = new SerialExecutor(base);
        callbacks.execute(() -> { });   // a callback: a drain is now due on the executor
        CmFuture<String> f = new CmFuture<>();
        assertThat(parkedGetWhenPosted(f, callbacks)).isEqualTo("value");
        assertThat(CompletableFuture.allOf(f).isDone()).as("the waiter did not jump the callback").isFalse();
        base.runAll();
        assertThat(CompletableFuture.allOf(f).isDone()).isTrue();
    }

    @Test
    void askingWaitersWhileTheyTimeOutNeverLosesTheSettle() throws Exception {
        for (int round = 0; round < 1_000; round++) {
            HoldingExecutor base = new HoldingExecutor();
            var callbacks = new SerialExecutor(base);
            CmFuture<Integer> f = new CmFuture<>();
            CountDownLatch go = new CountDownLatch(1);
            AtomicReference<Object> got = new AtomicReference<>();
            Thread w = timedGetOnGo(go, f, round % 50 * 2_000L, got);
            go.countDown();
            if (round % 3 == 0) {
                Thread.onSpinWait();
            }
            postAndSettleThrough(f, round, callbacks);
            w.join(TimeUnit.SECONDS.toMillis(WAIT_S));
            base.runAll();   // whatever the waiter left to the executor
            assertThat(CompletableFuture.allOf(f).isDone()).as("round %d: settled by the waiter or the executor", round).isTrue();
            Object g = got.get();
            assertThat(g instanceof TimeoutException || Integer.valueOf(round).equals(g))
                    .as("round %d: the value or a timeout, got %s", round, g).isTrue();
        }
    }

    @Test
    void aMirrorIsPostedWithItsFutureAndItsWaiterSettlesBoth() throws Exception {
        HoldingExecutor base = new HoldingExecutor();
        var callbacks = new SerialExecutor(base);
        CmFuture<String> f = new CmFuture<>();
        CmFuture<String> m = f.mirror();
        AtomicReference<Object> result = new AtomicReference<>();
        Thread waiter = blockedIn(m, result);

        assertThat(f.postWithoutWaking("value", null)).isTrue();
        assertThat(m.isDone()).as("posted with f").isTrue();
        f.settleThrough(callbacks, f::settle, null);
        waiter.join(TimeUnit.SECONDS.toMillis(WAIT_S));

        assertThat(result.get()).isEqualTo("value");
        assertThat(base.held).as("the mirror's waiter settled both").isEmpty();
        assertThat(CompletableFuture.allOf(f).isDone()).isTrue();
        assertThat(CompletableFuture.allOf(m).isDone()).isTrue();
    }

    @Test
    void aWaiterOnTheClosedFuturesMirrorSettlesAStepThatEndedTheId() throws Exception {
        // Completions' shape for a close: the closed future and the close() future posted without
        // waking, one settle for both; the only thread waiting is on closeFuture()'s mirror.
        HoldingExecutor base = new HoldingExecutor();
        var callbacks = new SerialExecutor(base);
        CmFuture<String> closed = new CmFuture<>();
        CmFuture<String> closing = new CmFuture<>();
        AtomicReference<Object> result = new AtomicReference<>();
        Thread waiter = blockedIn(closed.mirror(), result);

        assertThat(closed.postWithoutWaking("closed", null)).isTrue();
        assertThat(closing.postWithoutWaking("value", null)).isTrue();
        closing.settleThrough(callbacks, () -> {
            closed.settle();
            closing.settle();
        }, closed);
        waiter.join(TimeUnit.SECONDS.toMillis(WAIT_S));

        assertThat(result.get()).isEqualTo("closed");
        assertThat(base.held).as("the mirror's waiter was asked, before anything woke it").isEmpty();
        assertThat(CompletableFuture.allOf(closed, closing).isDone()).isTrue();
    }

    @Test
    void aMirrorMadeAfterThePostIsPostedAtOnceAndSettledWithItsFuture() throws Exception {
        CmFuture<String> f = new CmFuture<>();
        assertThat(f.post("value", null)).isTrue();
        CmFuture<String> m = f.mirror();
        assertThat(m.getNow(null)).isEqualTo("value");
        assertThat(m.get(0, TimeUnit.SECONDS)).isEqualTo("value");
        CompletableFuture<String> dependent = m.thenApply(v -> v + "!");
        assertThat(dependent.isDone()).as("waits for the settle").isFalse();
        f.settle();
        assertThat(dependent.get(WAIT_S, TimeUnit.SECONDS)).isEqualTo("value!");
        assertThat(f.mirror().join()).as("a mirror of a settled future").isEqualTo("value");
    }

    @Test
    void aMirrorFollowsACompletionThatWasNotPostedAsACopyWould() {
        CmFuture<String> completed = new CmFuture<>();
        CmFuture<String> m1 = completed.mirror();
        assertThat(m1.complete("the application's")).as("the application may complete its mirror").isTrue();
        assertThat(completed.isDone()).as("without touching the future").isFalse();
        CmFuture<String> m2 = completed.mirror();
        assertThat(completed.complete("plain")).isTrue();
        assertThat(m2.join()).isEqualTo("plain");
        assertThat(m1.join()).isEqualTo("the application's");

        IllegalStateException failure = new IllegalStateException("failed");
        CmFuture<String> failed = new CmFuture<>();
        CmFuture<String> m3 = failed.mirror();
        failed.completeExceptionally(failure);
        assertThatThrownBy(m3::join).isInstanceOf(CompletionException.class).hasCause(failure);

        CmFuture<String> cancelled = new CmFuture<>();
        CmFuture<String> m4 = cancelled.mirror();
        assertThat(cancelled.cancel(false)).isTrue();
        assertThatThrownBy(m4::join).isInstanceOf(CompletionException.class).hasCauseInstanceOf(CancellationException.class);
    }

    @Test
    void aDependentOnAMirrorKeepsTheSettleOnTheExecutor() throws Exception {
        HoldingExecutor base = new HoldingExecutor();
        var callbacks = new SerialExecutor(base);
        CmFuture<String> f = new CmFuture<>();
        AtomicReference<String> ranOn = new AtomicReference<>();
        CompletableFuture<Void> dependent = f.mirror().thenAccept(v -> ranOn.set(Thread.currentThread().getName()));
        assertThat(parkedGetWhenPosted(f, callbacks)).isEqualTo("value");
        assertThat(base.held).hasSize(1);
        assertThat(dependent.isDone()).isFalse();
        Thread executor = Thread.ofPlatform().name("serial-executor").start(base::runAll);
        executor.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertThat(dependent.isDone()).isTrue();
        assertThat(ranOn.get()).isEqualTo("serial-executor");
    }

    /** A thread that, once {@code go} opens, puts {@code f.get(nanos)}'s value or exception in {@code into}. */
    private static Thread timedGetOnGo(CountDownLatch go, CmFuture<Integer> f, long nanos, AtomicReference<Object> into) {
        return Thread.ofPlatform().start(() -> {
            await(go);
            try {
                into.set(f.get(nanos, TimeUnit.NANOSECONDS));
            } catch (Exception e) {
                into.set(e);
            }
        });
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
