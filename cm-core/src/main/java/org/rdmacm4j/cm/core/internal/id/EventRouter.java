package org.rdmacm4j.cm.core.internal.id;

import java.lang.System.Logger.Level;
import org.rdmacm4j.cm.core.internal.port.CmPort;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Input;

/**
 * Where the port hands the events it copied and acked: each rdma_cm and async event becomes one
 * input of the id it names, fed through the {@link IdEngine}. A CONNECT_REQUEST goes to its
 * listener's machine, which offers or refuses it; one nobody decided on is rejected here.
 * Dispatcher thread (inside {@link CmPort#drainEvents}).
 */
public final class EventRouter implements CmPort.EventSink {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private final IdEngine engine;

    public EventRouter(IdEngine engine) {
        this.engine = engine;
    }

    @Override
    public void cmEvent(NativeId id, NativeId listenId, CmEventType type, int status, EventParams params) {
        engine.stats().cmEvents.increment();
        Input.CmEvent ev = new Input.CmEvent(engine.nextEventSeq(), type, status, params);
        if (type == CmEventType.CONNECT_REQUEST) {
            connectRequest(id, listenId, ev);
            return;
        }
        IdDriver d = (IdDriver) id.owner();
        if (d == null) {
            LOG.log(Level.WARNING, "rdma_cm event " + type + " for an id no machine owns; ignored");
            return;
        }
        engine.feed(d, ev);
        if (JfrEvents.on()) {
            JfrEvents.CmEventDispatched jfr = new JfrEvents.CmEventDispatched();
            if (jfr.shouldCommit()) {
                jfr.id = d.name();
                jfr.event = type.name();
                jfr.status = status;
                jfr.phase = d.phase();
                jfr.commit();
            }
        }
    }

    private void connectRequest(NativeId id, NativeId listenId, Input.CmEvent ev) {
        engine.stats().requestsReceived.increment();
        IdDriver l = listenId == null ? null : (IdDriver) listenId.owner();
        if (l == null || l.retired) {
            engine.port().reject(id, Rejects.listenerClosed());
            engine.port().destroyId(id);
            return;
        }
        engine.offered().put(ev.seq(), id);
        engine.feed(l, ev);
        NativeId unclaimed = engine.offered().take(ev.seq());
        if (unclaimed != null) {
            // The listener neither offered nor refused it (it crashed): answer the peer anyway.
            LOG.log(Level.WARNING, l.name() + " did not decide on connection request " + ev.seq() + "; refusing it");
            engine.port().reject(unclaimed, Rejects.listenerClosed());
            engine.port().destroyId(unclaimed);
        }
    }

    @Override
    public void asyncEvent(NativeId id, AsyncEventType type, int portNumber) {
        engine.stats().asyncEvents.increment();
        IdDriver d = (IdDriver) id.owner();
        if (d == null) {
            return;
        }
        engine.feed(d, new Input.AsyncEvent(engine.nextEventSeq(), type, portNumber));
    }

    @Override
    public void unroutable(String what) {
        LOG.log(Level.DEBUG, what);
    }
}
