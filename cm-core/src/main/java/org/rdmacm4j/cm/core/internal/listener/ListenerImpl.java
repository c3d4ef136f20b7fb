package org.rdmacm4j.cm.core.internal.listener;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RequestHandler;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;

/**
 * The public face of a listening id. Requests go to the handler, or (pull form) wait in a queue
 * for {@link #next()}. The queue is bounded by the listener machine's pending-request limit: a
 * request in it has not been decided, so the machine counts it. Any thread.
 */
final class ListenerImpl implements RdmaListener {
    /** What a listener asks of the dispatcher; {@link Listeners} is it. Any thread. */
    interface Control {
        /** A pull-form request nobody will take (the listener is closing): refuse it. */
        void refuseQueued(RequestImpl r);

        /** Queues Close for the listener's machine. */
        CompletableFuture<Void> close(IdDriver driver);
    }

    private final Control dispatcher;
    final IdDriver driver;
    final RequestHandler handler;
    final ListenOptions options;
    volatile InetSocketAddress local;
    final CmFuture<Void> closed = new CmFuture<>();   // a CmFuture: the dispatcher may post it (Completions)
    private final ArrayDeque<RequestImpl> ready = new ArrayDeque<>();
    private final ArrayDeque<CmFuture<ConnectionRequest>> waiters = new ArrayDeque<>();
    private boolean closing;

    ListenerImpl(Control dispatcher, IdDriver driver, RequestHandler handler, ListenOptions options) {
        this.dispatcher = dispatcher;
        this.driver = driver;
        this.handler = handler;
        this.options = options;
    }

    @Override
    public java.util.List<org.rdmacm4j.cm.core.HistoryEntry> history() {
        return driver.historySnapshot();
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public CompletableFuture<ConnectionRequest> next() {
        if (handler != null) {
            throw new IllegalStateException(this + " hands requests to its RequestHandler; next() is for "
                    + "listeners created without one");
        }
        CmFuture<ConnectionRequest> f = new CmFuture<>();
        RequestImpl r;
        synchronized (ready) {
            if (closing) {
                f.completeExceptionally(new ConnectionClosedException(this + " is closed", driver.historySnapshot()));
                return f;
            }
            r = ready.poll();
            if (r == null) {
                waiters.add(f);
                return f;
            }
        }
        f.complete(r);
        return f;
    }

    /** Pull form: queue a request for next(), or hand it to a waiting next(). Dispatcher thread. */
    void enqueue(RequestImpl r, SerialExecutor callbacks) {
        CmFuture<ConnectionRequest> waiter;
        synchronized (ready) {
            if (closing) {
                waiter = null;
            } else {
                waiter = waiters.poll();
                if (waiter == null) {
                    ready.add(r);
                    return;
                }
            }
        }
        if (waiter == null) {
            dispatcher.refuseQueued(r);
            return;
        }
        callbacks.execute(new CmFuture.CompleteTask<>(waiter, r, null));
    }

    /** On close: the requests nobody took, and the next() calls nobody will answer. */
    List<RequestImpl> closeQueue() {
        List<CmFuture<ConnectionRequest>> orphans;
        List<RequestImpl> untaken;
        synchronized (ready) {
            closing = true;
            untaken = new ArrayList<>(ready);
            ready.clear();
            orphans = new ArrayList<>(waiters);
            waiters.clear();
        }
        orphans.forEach(w -> w.completeExceptionally(
                new ConnectionClosedException(this + " closed", driver.historySnapshot())));
        return untaken;
    }

    @Override
    public CompletableFuture<Void> close() {
        // Stop handing out requests now, not when the dispatcher gets to the close: a next() after
        // close() must fail, and what is queued goes back to the peers as rejects.
        for (RequestImpl untaken : closeQueue()) {
            dispatcher.refuseQueued(untaken);
        }
        return dispatcher.close(driver);
    }

    @Override
    public boolean isClosed() {
        return closed.isDone();
    }

    @Override
    public CompletableFuture<Void> closeFuture() {
        return closed.mirror();   // posted with it: a waiter wakes from the dispatcher (CmFuture.mirror)
    }

    @Override
    public String toString() {
        return driver.name() + " on " + local + " [" + driver.phase() + "]";
    }
}
