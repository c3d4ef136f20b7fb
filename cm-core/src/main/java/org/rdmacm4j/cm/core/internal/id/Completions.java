package org.rdmacm4j.cm.core.internal.id;

import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.Outcome;

/**
 * Settles the futures an id's machine owes: CompleteFuture (the outcome becomes the user's value
 * through the kind's {@link IdRole}), FailFuture (the typed exception, with the id's history), and
 * all at once when the id ends. Always completed through the id's serial executor, never on the
 * dispatcher; the outcome may be posted to waiting threads first ({@link CmFuture#post}).
 * Dispatcher thread.
 */
final class Completions {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private final Stats stats;

    Completions(Stats stats) {
        this.stats = stats;
    }

    /**
     * CompleteFuture: the value through the role and the future's mapping, completed on the id's
     * executor. {@code roleHearsSettled}: the role overrides {@link IdRole#futureSettled}, which is
     * called only then (IdEngine#serve says why).
     */
    void complete(IdDriver d, IdRole role, boolean roleHearsSettled, long request, Outcome outcome) {
        int i = d.owed.indexOf(request);
        if (i < 0) {
            LOG.log(Level.DEBUG, new UnknownRequest(d, "CompleteFuture", request));
            return;
        }
        CmFuture<Object> future = d.owed.futureAt(i);
        Function<Object, Object> mapping = d.owed.valueAt(i);
        d.owed.removeAt(i);
        Object value;
        try {
            value = mapping.apply(role.value(d, outcome));
        } catch (PortCallException e) {
            RuntimeException ex = new ConnectionFailedException(d.name() + ": " + e.getMessage(), d.historySnapshot(), e);
            d.callbacks.execute(new CmFuture.CompleteTask<>(future, null, ex));
            if (roleHearsSettled) {
                role.futureSettled(d);
            }
            return;
        }
        if (roleHearsSettled) {
            role.futureSettled(d);
        }
        // A step that ended the id (close, abort): isClosed() is true by the time its future completes.
        CompletableFuture<Void> closedFirst = d.terminal() ? role.closedFuture(d) : null;
        if (postEarly(d, closedFirst, future, value)) {
            CmFuture<Void> closed = closedFirst instanceof CmFuture<Void> c ? c : null;
            future.settleThrough(d.callbacks, new SettlePosted(closed, future), closed);
            return;
        }
        d.callbacks.execute(new Deliver(closedFirst, future, value));
    }

    // Named classes, not capturing lambdas: under C1 (the launchers' JIT) each capturing lambda made
    // is a native VM call (docs/benchmarks.md, "Capturing lambdas under C1").

    /** Settles what {@link #postEarly} posted: the closed future first (if any), then the future. */
    private record SettlePosted(CmFuture<Void> closed, CmFuture<Object> future) implements SerialExecutor.Settle {
        @Override
        public void run() {
            if (closed != null) {
                closed.settle();
            }
            future.settle();
        }
    }

    /** Completes a future that was not posted (and the closed future first, if the step ended the id). */
    private record Deliver(CompletableFuture<Void> closedFirst, CmFuture<Object> future, Object value)
            implements Runnable {
        @Override
        public void run() {
            if (closedFirst instanceof CmFuture<Void> c) {
                c.settle();   // posted before the future's post failed (a cancel in between): completes it
            }
            if (closedFirst != null) {
                closedFirst.complete(null);
            }
            if (!future.complete(value) && future.isCancelled() && value instanceof RdmaConnection c) {
                c.abort();   // cancelled after it was established but before it was delivered: nobody holds it
            }
        }
    }

    /** The debug line of a Complete/FailFuture for a request the id does not owe, built only if logged. */
    private record UnknownRequest(IdDriver d, String action, long request) implements Supplier<String> {
        @Override
        public String get() {
            return d.name() + ": " + action + " for unknown request " + request;
        }
    }

    /**
     * Posts the outcome to the threads waiting on {@code future} now, from the dispatcher, when that
     * keeps the order of the id's callbacks: only while its serial executor has no callback queued or
     * running (only settles of earlier posted futures, if anything) and, for a step that ended the id, only if the closed future can be posted
     * first (so isClosed() is already true for the woken waiter). The CompletableFutures are then
     * completed by {@link CmFuture#settle} in the executor's order, on it or on the woken waiter
     * ({@link CmFuture#settleThrough}). False: nothing was posted
     * (a cancelled future, a busy executor), complete as before. See {@link CmFuture}.
     */
    private static boolean postEarly(IdDriver d, CompletableFuture<Void> closedFirst, CmFuture<Object> future,
                                     Object value) {
        if (!d.callbacks.callbacksDone() || future.isDone()) {
            return false;
        }
        CmFuture<Void> closed = closedFirst instanceof CmFuture<Void> c ? c : null;
        if (closedFirst != null && !(closed != null && (closed.isDone() || closed.postWithoutWaking(null, null)))) {
            return false;
        }
        if (future.postWithoutWaking(value, null)) {
            return true;   // both futures' waiters wake in settleThrough, after one of them may be asked to settle
        }
        if (closed != null) {
            closed.wakeWaiters();   // posted above, or earlier (waking again is harmless): its waiters return now
        }
        return false;
    }

    /** FailFuture: the machine's failure as the typed exception, counted if it was the connect's. */
    void fail(IdDriver d, long request, org.rdmacm4j.cm.statemachine.Failure failure) {
        int i = d.owed.indexOf(request);
        if (i < 0) {
            LOG.log(Level.DEBUG, new UnknownRequest(d, "FailFuture", request));
            return;
        }
        CmFuture<Object> future = d.owed.futureAt(i);
        d.owed.removeAt(i);
        RuntimeException ex = Failures.toException(failure, d.name(), d.historySnapshot());
        if (request == d.openRequest && d.kind == IdDriver.Kind.ACTIVE) {
            stats.connectFailed(Failures.counterKey(ex));
            if (JfrEvents.on()) {
                JfrEvents.ConnectFailed jfr = new JfrEvents.ConnectFailed();
                if (jfr.shouldCommit()) {
                    jfr.connection = d.name();
                    jfr.reason = ex.getMessage();
                    jfr.commit();
                }
            }
        }
        future.failThrough(d.callbacks, ex);
    }

    /** Fails every future {@code d} still owes with {@code ex}. */
    void failAll(IdDriver d, RuntimeException ex) {
        for (CmFuture<Object> future : d.owed.futures()) {
            d.callbacks.execute(new CmFuture.CompleteTask<>(future, null, ex));
        }
        d.owed.clear();
    }
}
