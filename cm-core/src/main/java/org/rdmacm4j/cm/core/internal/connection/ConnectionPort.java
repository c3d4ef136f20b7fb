package org.rdmacm4j.cm.core.internal.connection;

import org.rdmacm4j.cm.core.internal.poll.CompletionWatch;
import org.rdmacm4j.cm.core.internal.port.CmPort;
import org.rdmacm4j.cm.core.internal.port.NativeId;

/** What RC connections need of the native port beyond every id's: the data paths {@link #createQp} made. */
public interface ConnectionPort extends CmPort {
    /**
     * The message channel made by {@link #createQp}, or null (raw connection: no messaging asked,
     * or a passive id whose peer offered none).
     */
    default DataPath dataPath(NativeId id) {
        return null;
    }

    /** The one-sided operations of a connection made by {@link #createQp}, or null. */
    default OneSided oneSided(NativeId id) {
        return null;
    }

    /**
     * What the application's first {@code raw()} starts before it may post on the QP made by
     * {@link #createQp}: the registration of its CQ with a poller, which is made lazily
     * ({@code CqRegistration}). The returned watch is used from any thread.
     */
    default CompletionWatch completionWatch(NativeId id) {
        return CompletionWatch.ALREADY;
    }
}
