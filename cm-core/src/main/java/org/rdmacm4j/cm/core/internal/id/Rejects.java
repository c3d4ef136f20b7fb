package org.rdmacm4j.cm.core.internal.id;

import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;

/** The reject payloads the core sends on its own (outside any machine). */
public final class Rejects {
    private Rejects() { }

    /** A request that reached a listener which is gone. */
    public static Bytes listenerClosed() {
        return PrivateData.systemReject(SystemReject.LISTENER_CLOSED).wire();
    }
}
