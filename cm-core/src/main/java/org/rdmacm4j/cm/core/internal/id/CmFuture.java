package org.rdmacm4j.cm.core.internal.id;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rdmacm4j.cm.core.internal.loop.LibraryThread;

/**
 * The futures rdmacm4j hands out. Two differences from a plain CompletableFuture: waiting on one
 * from the dispatcher or a poller thread is refused (it would deadlock), and {@link #cancel}
 * also tells the dispatcher, which aborts the operation and frees what it created. Dependent
 * stages are plain CompletableFutures.
 */
public final class CmFuture<T> extends CompletableFuture<T> {
    private volatile Runnable onCancel;

    public CmFuture() {
    }

    public void onCancel(Runnable action) {
        this.onCancel = action;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        Runnable action = onCancel;
        if (cancelled && action != null) {
            action.run();
        }
        return cancelled;
    }

    @Override
    public T join() {
        LibraryThread.refuseBlocking("join()");
        return super.join();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        LibraryThread.refuseBlocking("get()");
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        LibraryThread.refuseBlocking("get(timeout)");
        return super.get(timeout, unit);
    }
}
