package org.rdmacm4j.verbs.internal;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;

/**
 * Wrappers by native address for one thread: an open-addressing table (linear probing, backward
 * shift on removal) with {@code long} keys, so a lookup boxes nothing and takes no lock. Keys are
 * addresses and never 0 (0 marks a free slot).
 *
 * <p>Why not a {@code ConcurrentHashMap<Long, V>}: a channel's ids are looked up on every CM
 * event and added and removed once per connection, always by the channel's owner thread; the map
 * cost a {@code Long} per call plus CHM's putVal/replaceNode, about 9k user instructions per
 * connection under C1 in the guest.
 *
 * <p>Any non-zero {@code long} keys work: cm-core also keys its offered connection requests by
 * their event sequence numbers with it (exported to cm-core alone).
 *
 * <p>Threads: not thread-safe. One thread at a time, with a happens-before edge between threads
 * (the owner thread of the structure that holds it).
 */
public final class AddressTable<V> {
    private static final long PHI = 0x9E3779B97F4A7C15L;   // Fibonacci hashing: the high bits mix well

    private long[] keys;
    private Object[] values;
    private int shift;   // 64 - log2(capacity)
    private int size;

    public AddressTable() {
        allocate(16);
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        values = new Object[capacity];
        shift = 64 - Integer.numberOfTrailingZeros(capacity);
    }

    private int home(long key) {
        return (int) ((key * PHI) >>> shift);
    }

    /** The value for {@code key}, or null. */
    @SuppressWarnings("unchecked")
    public V get(long key) {
        long[] k = keys;
        int mask = k.length - 1;
        for (int i = home(key); ; i = (i + 1) & mask) {
            long at = k[i];
            if (at == key) {
                return (V) values[i];
            }
            if (at == 0L) {
                return null;
            }
        }
    }

    /** Maps {@code key} (not 0) to {@code value} (not null), replacing any value it had. */
    public void put(long key, V value) {
        checkArgument(key != 0L && value != null, "key 0 or null value");
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        long[] k = keys;
        int mask = k.length - 1;
        for (int i = home(key); ; i = (i + 1) & mask) {
            long at = k[i];
            if (at == key) {
                values[i] = value;
                return;
            }
            if (at == 0L) {
                k[i] = key;
                values[i] = value;
                size++;
                return;
            }
        }
    }

    /** Removes {@code key}; returns its value, or null if it had none. */
    @SuppressWarnings("unchecked")
    public V remove(long key) {
        long[] k = keys;
        int mask = k.length - 1;
        int i = home(key);
        while (k[i] != key) {
            if (k[i] == 0L) {
                return null;
            }
            i = (i + 1) & mask;
        }
        V old = (V) values[i];
        size--;
        // Backward shift: pull later entries of the run into the hole when their home slot is not
        // between the hole and where they sit, so every key stays reachable from its home.
        for (int j = (i + 1) & mask; k[j] != 0L; j = (j + 1) & mask) {
            int h = home(k[j]);
            if (((j - h) & mask) >= ((j - i) & mask)) {
                k[i] = k[j];
                values[i] = values[j];
                i = j;
            }
        }
        k[i] = 0L;
        values[i] = null;
        return old;
    }

    /** The values, in no particular order: a copy (diagnostics, not a data path). */
    @SuppressWarnings("unchecked")
    public java.util.List<V> values() {
        java.util.List<V> out = new java.util.ArrayList<>(size);
        for (Object v : values) {
            if (v != null) {
                out.add((V) v);
            }
        }
        return out;
    }

    /** How many keys are mapped. */
    public int size() {
        return size;
    }

    private void grow() {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        allocate(oldKeys.length * 2);
        int mask = keys.length - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            long key = oldKeys[j];
            if (key != 0L) {
                int i = home(key);
                while (keys[i] != 0L) {
                    i = (i + 1) & mask;
                }
                keys[i] = key;
                values[i] = oldValues[j];
            }
        }
        Arrays.fill(oldValues, null);
    }
}
