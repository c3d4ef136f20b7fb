package org.rdmacm4j.cm.core.internal.id;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.rdmacm4j.cm.core.internal.loop.LibraryThread;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;

/**
 * The futures rdmacm4j hands out. Three differences from a plain CompletableFuture: waiting on one
 * from the dispatcher or a poller thread is refused (it would deadlock); {@link #cancel} also tells
 * the dispatcher, which aborts the operation and frees what it created; and the dispatcher can
 * {@linkplain #post post} the outcome to the threads blocked in {@code get}/{@code join} before the
 * future itself completes. Dependent stages are plain CompletableFutures.
 *
 * <h2>Why posting, and why it cannot run application code on the dispatcher</h2>
 * A future completes on the id's serial executor (docs/api.md: callbacks and completions never run
 * on the dispatcher), so a thread blocked in {@code get()} used to wake after two hand-offs:
 * dispatcher to a callback carrier, carrier to the waiter (100-550 µs each in the guest,
 * docs/benchmarks.md). Completing the CompletableFuture on the dispatcher instead would run its
 * dependents there, and dependents can be attached without any method this class could override
 * ({@code CompletableFuture.allOf}, the other side of {@code thenCombine}). So the outcome has a
 * second home: {@link #post} (dispatcher) claims the future for an outcome and unparks the threads
 * waiting in this class's own {@code get}/{@code join}; those return the posted outcome at once, and
 * {@code isDone}/{@code getNow}/{@code resultNow}/{@code state} answer from it. The CompletableFuture
 * is completed with the same outcome by {@link #settle} on the serial executor, as before, and runs
 * the dependents there. The dispatcher posts only while the id's serial executor has no callback
 * queued or running ({@code SerialExecutor.callbacksDone}; settles of futures posted earlier may
 * be), so a waiter never sees an outcome before the callbacks that precede it have run (the order
 * contract), and outcomes are posted in the order the id's futures are owed their completions.
 *
 * <h2>Who settles</h2>
 * The settle is queued on the id's serial executor like any task. When nothing drains that
 * executor, nothing depends on the future yet and a thread is parked in its get/join, the dispatcher
 * asks that thread to run the settle on its way out instead ({@link #settleThrough}): it wakes for
 * the outcome anyway, and a callback thread started only to complete a CompletableFuture nobody
 * depends on was most of the callback threads a warm connect + close started (issue 21). A stage
 * attached after the outcome was posted is one attached to a completed future, which a
 * CompletableFuture runs on the attaching thread; the settling thread is no worse.
 *
 * <p>Longer than 400 lines because a CompletableFuture has that many ways to read, complete and wait
 * on it, and each must honour a posted outcome; the mirrors the close futures hand out are the rest.
 * The mirrors stay here because posting, asking and waking a mirror call back into this class, which
 * a class of their own could not name (LayersTest: no two files use each other). The parked threads,
 * and the settle one may be asked to run, are {@link ParkedWaiters}'.
 *
 * <h2>Who decides the outcome</h2>
 * {@code claim} is set once: either to a {@link Posted} outcome (then {@code complete},
 * {@code completeExceptionally} and {@code cancel} from anyone else return false, as on a completed
 * future, and only {@link #settle} completes the CompletableFuture, with the posted outcome), or to
 * {@link #DELEGATED} by any other completion (then everything is the CompletableFuture's as usual).
 */
public final class CmFuture<T> extends CompletableFuture<T> {
    /** An outcome the dispatcher posted: a value, or a failure (never a cancellation). */
    private record Posted(Object value, Throwable failure) { }

    /**
     * The posted outcome of a future completed with null (every close and closed future): one shared
     * record, as a {@code Posted} is only read, never compared. Two to four posts per connection.
     */
    private static final Posted POSTED_NULL = new Posted(null, null);
    /** The claim of a completion that did not come through {@link #post}: the CompletableFuture decides. */
    private static final Object DELEGATED = new Object();
    /** What a parked waiter reads, as one function made once: a wait allocates nothing for it. */
    private static final Function<CmFuture<?>, Object> CLAIM_OR_DONE = CmFuture::claimOrDone;

    private static final VarHandle CLAIM;
    private static final VarHandle PARKED;
    private static final VarHandle MIRRORS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            CLAIM = l.findVarHandle(CmFuture.class, "claim", Object.class);
            PARKED = l.findVarHandle(CmFuture.class, "parked", ParkedWaiters.class);
            MIRRORS = l.findVarHandle(CmFuture.class, "mirrors", Mirror.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Runnable onCancel;
    /** null while undecided; a {@link Posted}; or {@link #DELEGATED}. Set once (CAS). */
    @SuppressWarnings("unused")   // through CLAIM
    private volatile Object claim;
    /** The threads parked in {@link #awaitClaim}; null until the first one ({@link #parkedWaiters}). Set once (CAS). */
    private volatile ParkedWaiters parked;
    /** The futures {@link #mirror} made, newest first (nodes never removed). */
    @SuppressWarnings("unused")   // through MIRRORS
    private volatile Mirror mirrors;

    /** One {@link #mirror}, in a Treiber stack. */
    private record Mirror(CmFuture<?> future, Mirror next) { }

    // The tasks below are named classes, not capturing lambdas: under C1 (the launchers' JIT) each
    // capturing lambda made is a native VM call (docs/benchmarks.md, "Capturing lambdas under C1").

    /**
     * A task that completes {@code future} with {@code value}, or exceptionally with {@code failure} if
     * that is not null, through the future's own {@code complete}/{@code completeExceptionally}: what
     * a serial executor runs to deliver an outcome. Any package may hand one to an executor.
     */
    public record CompleteTask<T>(CompletableFuture<T> future, T value, Throwable failure) implements Runnable {
        @Override
        public void run() {
            if (failure == null) {
                future.complete(value);
            } else {
                future.completeExceptionally(failure);
            }
        }
    }

    /** {@link #settle} of one future, as a settle task of its serial executor. */
    private record SettleTask(CmFuture<?> future) implements SerialExecutor.Settle {
        @Override
        public void run() {
            future.settle();
        }
    }

    /** A {@link #mirror}'s relay from its original: {@link #settleOrRelay}. */
    private record Relay<T>(CmFuture<T> mirror) implements BiConsumer<T, Throwable> {
        @Override
        public void accept(T value, Throwable failure) {
            mirror.settleOrRelay(value, failure);
        }
    }

    public CmFuture() {
    }

    public void onCancel(Runnable action) {
        this.onCancel = action;
    }

    // ---- the dispatcher's side ----

    /**
     * Claims this future for {@code value} (or {@code failure} if not null) and wakes the threads
     * waiting in get/join, which return it at once. Returns false if the future was already decided
     * (completed, cancelled or posted): then nothing happened. After a true return the caller must
     * have {@link #settle} run on the id's serial executor. Dispatcher thread, only while that
     * executor has no callback queued or running.
     */
    public boolean post(Object value, Throwable failure) {
        if (!postWithoutWaking(value, failure)) {
            return false;
        }
        wakeWaiters();
        return true;
    }

    /**
     * {@link #post}, except that the waiters are woken by {@link #settleThrough}, which the caller
     * must call after a true return (or {@link #wakeWaiters} if it settles another way): so a thread
     * parked in get/join can be asked to settle before anything wakes it. Dispatcher thread.
     */
    public boolean postWithoutWaking(Object value, Throwable failure) {
        Posted outcome = value == null && failure == null ? POSTED_NULL : new Posted(value, failure);
        if (!CLAIM.compareAndSet(this, null, outcome)) {
            return false;
        }
        for (Mirror m = mirrors; m != null; m = m.next) {
            m.future.postWithoutWaking(value, failure);   // a mirror registering now posts itself (mirror())
        }
        return true;
    }

    /**
     * What {@link #copy()} gives (a future the application may complete or cancel without touching
     * this one, completed with this one's outcome) that is also posted with this one: a thread
     * waiting on it wakes from the dispatcher's post and may settle both ({@link #settleThrough}),
     * where a copy, a dependent of this future, left this future's settle to a callback thread and
     * its waiter to a second wake-up (issue 21: the accepted end's {@code closeFuture()} in every
     * benchmark cycle). The relay that completes it from this one is registered before the mirror,
     * so counting dependents never mistakes a relay for none. Any thread.
     */
    public CmFuture<T> mirror() {
        CmFuture<T> m = new CmFuture<>();
        super.whenComplete(new Relay<>(m));
        Mirror head;
        do {
            head = mirrors;
        } while (!MIRRORS.compareAndSet(this, head, new Mirror(m, head)));
        if (claim instanceof Posted p) {
            m.postWithoutWaking(p.value, p.failure);   // posted before it registered: not in the post's walk
        }
        return m;
    }

    /** A mirror's relay: settle a posted outcome, else complete as {@link #copy()}'s would. */
    private void settleOrRelay(T value, Throwable failure) {
        if (claim instanceof Posted) {
            settle();
        } else if (failure == null) {
            complete(value);
        } else {
            completeExceptionally(failure instanceof CompletionException ? failure : new CompletionException(failure));
        }
    }

    /** No dependent but the relays of mirrors, and none on any mirror: what a helping waiter may settle. */
    private boolean nothingDependsOn() {
        int relays = 0;
        for (Mirror m = mirrors; m != null; m = m.next) {
            if (m.future.getNumberOfDependents() != 0) {
                return false;
            }
            relays++;
        }
        return getNumberOfDependents() == relays;
    }

    /**
     * Completes the CompletableFuture with the outcome {@link #post} claimed, running its dependents
     * here. The id's serial executor.
     */
    @SuppressWarnings("unchecked")
    public void settle() {
        if (claim instanceof Posted p) {
            if (p.failure == null) {
                super.complete((T) p.value);
            } else {
                super.completeExceptionally(p.failure);
            }
        }
    }

    /**
     * After a true {@link #postWithoutWaking} (or {@link #post}): has {@code settle} (this future's, perhaps with another's posted
     * just before it) run in its turn on {@code callbacks}, the id's serial executor. If nothing
     * drains that executor now, nothing depends on the futures yet, and a thread is parked in the
     * get/join of either, that thread runs it on its way out ({@link SerialExecutor#helpSettles}):
     * it wakes for the outcome anyway, and the settle then costs no callback thread, no hand-off
     * and no wake-up (issue 21: a warm connect + close started two callback threads for this alone).
     * Nothing runs there that would have run on the executor: the futures have no dependents, and a
     * stage attached from now on meets an outcome already visible ({@link #isDone}), which a
     * CompletableFuture runs on the attaching thread. Otherwise the executor runs it as any task.
     * Then wakes the waiters of both futures. Dispatcher thread.
     */
    public void settleThrough(SerialExecutor callbacks, SerialExecutor.Settle settle, CmFuture<?> postedWith) {
        if (callbacks.queueSettle(settle)
                && !(nothingDependsOn() && (postedWith == null || postedWith.nothingDependsOn())
                     && (askAWaiterToHelp(callbacks) || postedWith != null && postedWith.askAWaiterToHelp(callbacks)))) {
            callbacks.startDrain();
        }
        wakeWaiters();
        if (postedWith != null) {
            postedWith.wakeWaiters();
        }
    }

    /** Asks one thread still parked in get/join to settle on its way out; false if none is (or all left). */
    private boolean askAWaiterToHelp(SerialExecutor callbacks) {
        ParkedWaiters p = parked;
        if (p != null && p.askOneToHelp(callbacks)) {
            return true;
        }
        for (Mirror m = mirrors; m != null; m = m.next) {
            if (m.future.askAWaiterToHelp(callbacks)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Completes this future with {@code value} through {@code callbacks} (the id's serial executor),
     * posting it first when that executor has no callback to run, so its waiters wake now rather than after the
     * executor's turn. Dispatcher thread.
     */
    public void completeThrough(SerialExecutor callbacks, T value) {
        finishThrough(callbacks, value, null);
    }

    /** As {@link #completeThrough}, with a failure. Dispatcher thread. */
    public void failThrough(SerialExecutor callbacks, Throwable failure) {
        finishThrough(callbacks, null, failure);
    }

    private void finishThrough(SerialExecutor callbacks, T value, Throwable failure) {
        if (claim instanceof Posted) {
            // An outcome was posted already: a CompleteTask would find the claim taken and do nothing
            // (delegate() refuses), yet cost a drain on the callback executor and count as a callback
            // until it ran. It happened twice per warm connection: a connection's closed future is
            // posted when its close() completes, and completed again when the id retires.
            return;
        }
        if (callbacks.callbacksDone() && postWithoutWaking(value, failure)) {
            settleThrough(callbacks, new SettleTask(this), null);
        } else {
            callbacks.execute(new CompleteTask<>(this, value, failure));
        }
    }

    // ---- completions by anyone else: delegated to the CompletableFuture unless posted ----

    /** Claims for the CompletableFuture; false if a posted outcome holds the claim. */
    private boolean delegate() {
        Object c = claim;
        if (c == null && CLAIM.compareAndSet(this, null, DELEGATED)) {
            wakeWaiters();   // they go on waiting in the CompletableFuture, which completes next
            return true;
        }
        return !(claim instanceof Posted);
    }

    @Override
    public boolean complete(T value) {
        return delegate() && super.complete(value);
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        return delegate() && super.completeExceptionally(ex);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (!delegate()) {
            return false;
        }
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        Runnable action = onCancel;
        if (cancelled && action != null) {
            action.run();
        }
        return cancelled;
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier, Executor executor) {
        return delegate() ? super.completeAsync(supplier, executor) : this;
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier) {
        return delegate() ? super.completeAsync(supplier) : this;
    }

    @Override
    public void obtrudeValue(T value) {
        CLAIM.setVolatile(this, DELEGATED);   // forcibly, as obtrude means
        super.obtrudeValue(value);
        wakeWaiters();
    }

    @Override
    public void obtrudeException(Throwable ex) {
        CLAIM.setVolatile(this, DELEGATED);
        super.obtrudeException(ex);
        wakeWaiters();
    }

    // ---- reading: a posted outcome counts as done ----

    @Override
    public boolean isDone() {
        return claim instanceof Posted || super.isDone();
    }

    @Override
    public boolean isCompletedExceptionally() {
        return claim instanceof Posted p ? p.failure != null : super.isCompletedExceptionally();
    }

    @Override
    public State state() {
        if (claim instanceof Posted p) {
            return p.failure == null ? State.SUCCESS : State.FAILED;
        }
        return super.state();
    }

    @Override
    @SuppressWarnings("unchecked")
    public T getNow(T valueIfAbsent) {
        if (claim instanceof Posted p) {
            if (p.failure != null) {
                throw new CompletionException(p.failure);
            }
            return (T) p.value;
        }
        return super.getNow(valueIfAbsent);
    }

    @Override
    @SuppressWarnings("unchecked")
    public T resultNow() {
        if (claim instanceof Posted p) {
            if (p.failure != null) {
                throw new IllegalStateException("Task completed with exception");
            }
            return (T) p.value;
        }
        return super.resultNow();
    }

    @Override
    public Throwable exceptionNow() {
        if (claim instanceof Posted p) {
            if (p.failure == null) {
                throw new IllegalStateException("Task completed with a result");
            }
            return p.failure;
        }
        return super.exceptionNow();
    }

    /** As CompletableFuture's, with a posted outcome read as the completion it will be. */
    @Override
    public String toString() {
        if (claim instanceof Posted p && !super.isDone()) {
            return getClass().getName() + '@' + Integer.toHexString(hashCode())
                    + (p.failure == null ? "[Completed normally]" : "[Completed exceptionally: " + p.failure.getClass().getName() + "]");
        }
        return super.toString();
    }

    // ---- waiting ----

    @Override
    @SuppressWarnings("unchecked")
    public T join() {
        LibraryThread.refuseBlocking("join()");
        if (awaitClaim(false, 0L) instanceof Posted p) {
            if (p.failure != null) {
                throw new CompletionException(p.failure);
            }
            return (T) p.value;
        }
        return super.join();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        LibraryThread.refuseBlocking("get()");
        Object c = awaitClaim(true, 0L);
        if (c == ParkedWaiters.INTERRUPTED) {
            throw new InterruptedException();
        }
        if (c instanceof Posted p) {
            return reportGet(p);
        }
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        LibraryThread.refuseBlocking("get(timeout)");
        long nanos = unit.toNanos(timeout);
        long deadline = System.nanoTime() + nanos;
        Object c = awaitClaim(true, nanos <= 0 ? -1L : deadline);
        if (c == ParkedWaiters.INTERRUPTED) {
            throw new InterruptedException();
        }
        if (c instanceof Posted p) {
            return reportGet(p);
        }
        if (c == null) {
            throw new TimeoutException();
        }
        return super.get(Math.max(0L, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    @SuppressWarnings("unchecked")
    private T reportGet(Posted p) throws ExecutionException {
        if (p.failure != null) {
            throw new ExecutionException(p.failure);
        }
        return (T) p.value;
    }

    /**
     * Parks until the future is claimed (by a post or any other completion) and returns the claim;
     * null when {@code deadline} passed first ({@code deadline}: 0 = none, -1 = already passed,
     * else a {@code System.nanoTime()} instant), {@link ParkedWaiters#INTERRUPTED} when an
     * interruptible wait was interrupted ({@link ParkedWaiters#await}). A future already completed
     * outside this class's claim counts as delegated.
     */
    private Object awaitClaim(boolean interruptible, long deadline) {
        Object c = claimOrDone();
        if (c != null || deadline == -1L) {
            return c;
        }
        return parkedWaiters().await(this, CLAIM_OR_DONE, interruptible, deadline);
    }

    /** The claim; else {@link #DELEGATED} if the CompletableFuture completed outside it; else null. */
    private Object claimOrDone() {
        Object c = claim;
        return c != null ? c : super.isDone() ? DELEGATED : null;
    }

    /**
     * This future's parked waiters, made by the first thread that has to wait (why not with the
     * future: {@link ParkedWaiters}); one that loses the race to make them takes the winner's. A
     * thread in get/join.
     */
    private ParkedWaiters parkedWaiters() {
        ParkedWaiters p = parked;
        if (p == null) {
            ParkedWaiters made = new ParkedWaiters();
            p = PARKED.compareAndSet(this, null, made) ? made : parked;
        }
        return p;
    }

    /**
     * Unparks the threads waiting on this future and on its mirrors: after a {@link #postWithoutWaking}
     * that no {@link #settleThrough} follows (Completions). Any thread.
     */
    void wakeWaiters() {
        ParkedWaiters p = parked;
        if (p != null) {
            p.unparkAll();
        }
        for (Mirror m = mirrors; m != null; m = m.next) {
            m.future.wakeWaiters();
        }
    }
}
