package org.rdmacm4j.cm.core.internal.loop;

/**
 * The threads rdmacm4j owns that must never block on one of its own futures: the CM dispatcher and
 * the completion pollers. A {@code join()} there would wait for work only that thread can do.
 */
public final class LibraryThread extends Thread {
    public LibraryThread(Runnable task, String name) {
        super(task, name);
        setDaemon(true);
    }

    /** IllegalStateException if the caller is the dispatcher or a poller (as Netty's BlockingOperationException). */
    public static void refuseBlocking(String what) {
        if (Thread.currentThread() instanceof LibraryThread t) {
            throw new IllegalStateException(what + " on " + t.getName() + " would deadlock: the dispatcher and "
                    + "the completion pollers must never wait for rdmacm4j futures; use thenAccept/whenComplete");
        }
    }
}
