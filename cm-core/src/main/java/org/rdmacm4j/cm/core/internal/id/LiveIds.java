package org.rdmacm4j.cm.core.internal.id;

import java.util.ArrayList;
import java.util.List;

/**
 * The engine's live ids, oldest first: a list linked through each {@link IdDriver}'s own live
 * links, so that registering and retiring an id (twice per connection) costs no entry object and
 * no identity hash, as the LinkedHashSet it replaces did. Dispatcher thread only.
 */
final class LiveIds {
    private IdDriver head;
    private IdDriver tail;
    private int size;

    /** Appends {@code d}; no-op if it is already live. */
    void add(IdDriver d) {
        if (d.isLive) {
            return;
        }
        d.isLive = true;
        d.livePrev = tail;
        d.liveNext = null;
        if (tail == null) {
            head = d;
        } else {
            tail.liveNext = d;
        }
        tail = d;
        size++;
    }

    /** Unlinks {@code d}; returns false (and does nothing) if it was not live. */
    boolean remove(IdDriver d) {
        if (!d.isLive) {
            return false;
        }
        d.isLive = false;
        if (d.livePrev == null) {
            head = d.liveNext;
        } else {
            d.livePrev.liveNext = d.liveNext;
        }
        if (d.liveNext == null) {
            tail = d.livePrev;
        } else {
            d.liveNext.livePrev = d.livePrev;
        }
        d.livePrev = null;
        d.liveNext = null;
        size--;
        return true;
    }

    int size() {
        return size;
    }

    /** The live ids, oldest first (an immutable copy). */
    List<IdDriver> snapshot() {
        List<IdDriver> out = new ArrayList<>(size);
        for (IdDriver d = head; d != null; d = d.liveNext) {
            out.add(d);
        }
        return List.copyOf(out);
    }
}
