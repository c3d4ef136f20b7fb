package org.rdmacm4j.cm.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/** A ConnectionHandler that records its callbacks (name and thread), plus small test helpers. */
public class Recorder implements ConnectionHandler {
    private final List<String> events = new ArrayList<>();
    private final List<String> threads = new ArrayList<>();
    public volatile RdmaCmException lastError;

    private synchronized void add(String e) {
        events.add(e);
        threads.add(Thread.currentThread().getName());
        notifyAll();
    }

    public synchronized List<String> events() {
        return List.copyOf(events);
    }

    public synchronized List<String> threads() {
        return List.copyOf(threads);
    }

    /** Waits (bounded) until {@code event} was recorded. */
    public synchronized void await(String event) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!events.contains(event)) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + event + " within 5 s; got " + events);
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Override
    public void onEstablished(RdmaConnection c) {
        add("established");
    }

    @Override
    public void onDisconnected(RdmaConnection c) {
        add("disconnected");
    }

    @Override
    public void onError(RdmaConnection c, RdmaCmException error) {
        lastError = error;
        add("error");
    }

    @Override
    public void onAddressChanged(RdmaConnection c) {
        add("addressChanged");
    }

    @Override
    public void onAsyncEvent(RdmaConnection c, AsyncEventType event) {
        add("async:" + event);
    }

    @Override
    public void onClosed(RdmaConnection c) {
        add("closed");
    }

    // ------------------------------------------------------------------ helpers

    /** What an rdmacm4j peer puts on the wire for {@code payload}, zero padded to the transport size. */
    public static Bytes framedPadded(MessageKind kind, byte[] payload) {
        byte[] wire = PrivateData.encode(kind, payload).wire().toArray();
        byte[] padded = new byte[kind.wireLimit()];
        System.arraycopy(wire, 0, padded, 0, wire.length);
        return Bytes.of(padded);
    }

    public static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + 31 * i);
        }
        return b;
    }

    /** Polls {@code condition} for up to 5 s. */
    public static void eventually(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within 5 s: " + what);
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** Sleeps a little real time, for "nothing happens" checks. */
    public static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
