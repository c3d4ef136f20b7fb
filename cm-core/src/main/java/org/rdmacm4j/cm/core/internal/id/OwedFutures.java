package org.rdmacm4j.cm.core.internal.id;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The futures ({@code V}: an {@code IdDriver.Owed}) one id's machine owes, by request number, in
 * the order they were owed. An id owes a handful at most (its open, a close or two, a disconnect),
 * and every connection adds and removes several on the dispatcher thread: parallel arrays searched
 * linearly, with no boxed key, entry or table per future as a {@code HashMap<Long, Owed>} made.
 * Dispatcher thread only.
 */
public final class OwedFutures<V> {
    private long[] requests = new long[4];
    private Object[] owed = new Object[4];
    private int size;

    /** Records {@code o} under {@code request} (a fresh request number: never one already held). */
    public void put(long request, V o) {
        if (size == requests.length) {
            requests = Arrays.copyOf(requests, size * 2);
            owed = Arrays.copyOf(owed, size * 2);
        }
        requests[size] = request;
        owed[size] = o;
        size++;
    }

    /** The future owed under {@code request}, or null. */
    @SuppressWarnings("unchecked")
    public V get(long request) {
        int i = indexOf(request);
        return i < 0 ? null : (V) owed[i];
    }

    /** Removes and returns the future owed under {@code request}, or null; the others keep their order. */
    @SuppressWarnings("unchecked")
    public V remove(long request) {
        int i = indexOf(request);
        if (i < 0) {
            return null;
        }
        V o = (V) owed[i];
        System.arraycopy(requests, i + 1, requests, i, size - i - 1);
        System.arraycopy(owed, i + 1, owed, i, size - i - 1);
        owed[--size] = null;
        return o;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public int size() {
        return size;
    }

    /** The futures still owed, oldest first (a copy). */
    @SuppressWarnings("unchecked")
    public List<V> values() {
        List<V> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            out.add((V) owed[i]);
        }
        return out;
    }

    public void clear() {
        Arrays.fill(owed, 0, size, null);
        size = 0;
    }

    private int indexOf(long request) {
        for (int i = 0; i < size; i++) {
            if (requests[i] == request) {
                return i;
            }
        }
        return -1;
    }
}
