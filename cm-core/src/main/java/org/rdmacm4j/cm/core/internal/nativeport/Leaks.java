package org.rdmacm4j.cm.core.internal.nativeport;

import java.util.ArrayList;
import java.util.List;

/**
 * The native objects the port gave up on (a destroy that failed, or an id's objects leaked on the
 * dispatcher's word or at close): kept reachable so that nothing frees them, and counted so that
 * close() knows whether it may still free what they depend on. Each leak is logged once, where
 * it happens, not here.
 *
 * <p>Threads: the dispatcher's.
 */
final class Leaks {
    private final List<Object> leaked = new ArrayList<>();

    void giveUp(Object o) {
        leaked.add(o);   // kept reachable: a Cleaner would only log it, but a leak is reported once, here
    }

    boolean isEmpty() {
        return leaked.isEmpty();
    }
}
