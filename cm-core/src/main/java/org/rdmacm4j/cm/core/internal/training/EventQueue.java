package org.rdmacm4j.cm.core.internal.training;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The event queue of an in-memory port, and the bounded wait the dispatcher makes on it: what the
 * real port gets from its epoll set (an event channel that becomes readable, an eventfd the loop is
 * woken through). {@link LoopbackPort} is built on it, and so is the host tests' fake port.
 *
 * <p>Threads: any thread may {@link #add} and {@link #wakeup}; {@link #await} and {@link #poll} are
 * the dispatcher's. Everything is guarded by this queue's own monitor.
 *
 * @param <E> what the port queues for its next drain
 */
public final class EventQueue<E> {
    private final ArrayDeque<E> items = new ArrayDeque<>();   // guarded by this
    private boolean woken;                                   // guarded by this

    /** Queues {@code item} for the next drain and ends a wait in progress. */
    public synchronized void add(E item) {
        items.add(item);
        notifyAll();
    }

    /** The oldest queued item, or null. */
    public synchronized E poll() {
        return items.poll();
    }

    /** Ends the current (or the next) {@link #await} early, as the real port's eventfd does. */
    public synchronized void wakeup() {
        woken = true;
        notifyAll();
    }

    /**
     * Waits up to {@code timeoutNanos} (0: not at all) for an item or a wake-up, and consumes the
     * wake-up. {@code aboutToBlock} runs (under this queue's monitor) when the wait would really
     * block: a timeout above 0 with nothing queued and no wake-up pending. An interrupt ends the
     * wait and stays set.
     */
    public synchronized void await(long timeoutNanos, Runnable aboutToBlock) {
        long wait = Math.max(0, timeoutNanos);
        long end = System.nanoTime() + wait;
        if (wait > 0 && !woken && items.isEmpty()) {
            aboutToBlock.run();
        }
        while (!woken && items.isEmpty()) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        woken = false;
    }
}
