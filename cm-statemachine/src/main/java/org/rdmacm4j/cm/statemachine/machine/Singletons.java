package org.rdmacm4j.cm.statemachine.machine;

import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;

/**
 * One instance of each record without components that the machines emit. Such a record carries
 * nothing but its type, and every instance equals every other, so one shared value is the same
 * action (outcome, failure, notice) as a new one: the core switches on its variant or type, never
 * on its identity. A connection's teardown alone emitted about ten of them per end, each a new
 * object on the dispatcher thread.
 */
final class Singletons {
    private Singletons() {
    }

    static final Action.CreateId CREATE_ID = new Action.CreateId();
    static final Action.CreateQp CREATE_QP = new Action.CreateQp();
    static final Action.Relisten RELISTEN = new Action.Relisten();
    static final Action.Notify NOTIFY = new Action.Notify();
    static final Action.Disconnect DISCONNECT = new Action.Disconnect();
    static final Action.DrainQp DRAIN_QP = new Action.DrainQp();
    static final Action.DestroyQp DESTROY_QP = new Action.DestroyQp();
    static final Action.QuiesceCq QUIESCE_CQ = new Action.QuiesceCq();
    static final Action.DestroyCq DESTROY_CQ = new Action.DestroyCq();
    static final Action.DestroyCompChannel DESTROY_COMP_CHANNEL = new Action.DestroyCompChannel();
    static final Action.DestroyId DESTROY_ID = new Action.DestroyId();
    static final Action.SettleRequest SETTLE_REQUEST = new Action.SettleRequest();

    static final Outcome.Done DONE = new Outcome.Done();

    static final Failure.Closed CLOSED = new Failure.Closed();
    static final Failure.Cancelled CANCELLED = new Failure.Cancelled();
    static final Failure.DeviceRemoved DEVICE_REMOVED = new Failure.DeviceRemoved();

    static final Notice.AddressChanged ADDRESS_CHANGED_NOTICE = new Notice.AddressChanged();
    static final Notice.DeviceRemoved DEVICE_REMOVED_NOTICE = new Notice.DeviceRemoved();
}
