package org.rdmacm4j.cm.core.internal;

import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;

/** The reject payloads the core sends on its own (outside any machine). */
final class Rejects {
    private Rejects() { }

    /** A request that reached a listener which is gone. */
    static Bytes listenerClosed() {
        return PrivateData.systemReject(SystemReject.LISTENER_CLOSED).wire();
    }
}
