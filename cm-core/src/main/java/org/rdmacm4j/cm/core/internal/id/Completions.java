package org.rdmacm4j.cm.core.internal.id;

import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.Outcome;

/**
 * Settles the futures an id's machine owes: CompleteFuture (the outcome becomes the user's value
 * through the kind's {@link IdRole}), FailFuture (the typed exception, with the id's history), and
 * all at once when the id ends. Always through the id's serial executor, never on the dispatcher.
 * Dispatcher thread.
 */
final class Completions {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private final Stats stats;

    Completions(Stats stats) {
        this.stats = stats;
    }

    /** CompleteFuture: the value through the role and the future's mapping, completed on the id's executor. */
    void complete(IdDriver d, IdRole role, long request, Outcome outcome) {
        IdDriver.Owed owed = d.owed.remove(request);
        if (owed == null) {
            LOG.log(Level.DEBUG, () -> d.name() + ": CompleteFuture for unknown request " + request);
            return;
        }
        Object value;
        try {
            value = owed.value().apply(role.value(d, outcome));
        } catch (PortCallException e) {
            RuntimeException ex = new ConnectionFailedException(d.name() + ": " + e.getMessage(), d.historySnapshot(), e);
            d.callbacks.execute(() -> owed.future().completeExceptionally(ex));
            role.futureSettled(d);
            return;
        }
        role.futureSettled(d);
        // A step that ended the id (close, abort): isClosed() is true by the time its future completes.
        CompletableFuture<Void> closedFirst = d.terminal() ? role.closedFuture(d) : null;
        d.callbacks.execute(() -> {
            if (closedFirst != null) {
                closedFirst.complete(null);
            }
            if (!owed.future().complete(value) && owed.future().isCancelled() && value instanceof RdmaConnection c) {
                c.abort();   // cancelled after it was established but before it was delivered: nobody holds it
            }
        });
    }

    /** FailFuture: the machine's failure as the typed exception, counted if it was the connect's. */
    void fail(IdDriver d, long request, org.rdmacm4j.cm.statemachine.Failure failure) {
        IdDriver.Owed owed = d.owed.remove(request);
        if (owed == null) {
            LOG.log(Level.DEBUG, () -> d.name() + ": FailFuture for unknown request " + request);
            return;
        }
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
        d.callbacks.execute(() -> owed.future().completeExceptionally(ex));
    }

    /** Fails every future {@code d} still owes with {@code ex}. */
    void failAll(IdDriver d, RuntimeException ex) {
        for (IdDriver.Owed owed : d.owed.values()) {
            d.callbacks.execute(() -> owed.future().completeExceptionally(ex));
        }
        d.owed.clear();
    }
}
