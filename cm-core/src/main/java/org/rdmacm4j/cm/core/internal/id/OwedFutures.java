package org.rdmacm4j.cm.core.internal.id;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The futures one id's machine owes, by request number, in the order they were owed, each with the
 * function that turns the machine's outcome into the value the user sees. An id owes a handful at
 * most (its open, a close or two, a disconnect; rarely more than two at once), and every connection
 * adds and removes several on the dispatcher thread: parallel arrays searched linearly, with no
 * boxed key, no entry or table per future as a {@code HashMap<Long, ...>} made, and no record per
 * future either (the future and its function sit side by side in one array). Dispatcher thread only.
 */
public final class OwedFutures {
    /** First capacity: the open's future and a close's. Grows by doubling. */
    private static final int INITIAL = 2;

    private long[] requests = new long[INITIAL];
    /** For entry {@code i}: the future at {@code 2i}, its value function at {@code 2i + 1}. */
    private Object[] owed = new Object[2 * INITIAL];
    private int size;

    /** Records {@code future} and its {@code value} function under {@code request} (a fresh request number). */
    public void put(long request, CmFuture<Object> future, Function<Object, Object> value) {
        if (size == requests.length) {
            requests = Arrays.copyOf(requests, size * 2);
            owed = Arrays.copyOf(owed, size * 4);
        }
        requests[size] = request;
        owed[2 * size] = future;
        owed[2 * size + 1] = value;
        size++;
    }

    /** The index of the future owed under {@code request}, or -1; valid until the next change. */
    public int indexOf(long request) {
        for (int i = 0; i < size; i++) {
            if (requests[i] == request) {
                return i;
            }
        }
        return -1;
    }

    /** The future at {@code index} ({@link #indexOf}). */
    @SuppressWarnings("unchecked")
    public CmFuture<Object> futureAt(int index) {
        return (CmFuture<Object>) owed[2 * index];
    }

    /** The value function of the future at {@code index} ({@link #indexOf}). */
    @SuppressWarnings("unchecked")
    public Function<Object, Object> valueAt(int index) {
        return (Function<Object, Object>) owed[2 * index + 1];
    }

    /** The future owed under {@code request}, or null. */
    public CmFuture<Object> future(long request) {
        int i = indexOf(request);
        return i < 0 ? null : futureAt(i);
    }

    /** Removes the entry at {@code index} ({@link #indexOf}); the others keep their order. */
    public void removeAt(int index) {
        System.arraycopy(requests, index + 1, requests, index, size - index - 1);
        System.arraycopy(owed, 2 * index + 2, owed, 2 * index, 2 * (size - index - 1));
        size--;
        owed[2 * size] = null;
        owed[2 * size + 1] = null;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public int size() {
        return size;
    }

    /** The futures still owed, oldest first (a copy). */
    public List<CmFuture<Object>> futures() {
        List<CmFuture<Object>> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            out.add(futureAt(i));
        }
        return out;
    }

    public void clear() {
        Arrays.fill(owed, 0, 2 * size, null);
        size = 0;
    }
}
