package org.rdmacm4j.cm.core.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** JFR events of the connection lifecycle. Committed only when a recording enables them. */
final class JfrEvents {
    private JfrEvents() { }

    @Name("org.rdmacm4j.ConnectionEstablished")
    @Label("RDMA Connection Established")
    @Category({"rdmacm4j"})
    @StackTrace(false)
    static final class Established extends Event {
        @Label("Connection") String connection;
        @Label("Peer") String peer;
        @Label("Setup Time") @Timespan(Timespan.NANOSECONDS) long setupNanos;
    }

    @Name("org.rdmacm4j.ConnectionClosed")
    @Label("RDMA Connection Closed")
    @Category({"rdmacm4j"})
    @StackTrace(false)
    static final class Closed extends Event {
        @Label("Connection") String connection;
        @Label("Lifetime") @Timespan(Timespan.NANOSECONDS) long lifetimeNanos;
        @Label("Leaked") boolean leaked;
    }

    @Name("org.rdmacm4j.ConnectFailed")
    @Label("RDMA Connect Failed")
    @Category({"rdmacm4j"})
    @StackTrace(false)
    static final class ConnectFailed extends Event {
        @Label("Connection") String connection;
        @Label("Reason") String reason;
    }

    @Name("org.rdmacm4j.CmEventDispatched")
    @Label("rdma_cm Event Dispatched")
    @Description("One rdma_cm event copied and fed to an id's state machine")
    @Category({"rdmacm4j"})
    @StackTrace(false)
    static final class CmEventDispatched extends Event {
        @Label("Id") String id;
        @Label("Event") String event;
        @Label("Status") int status;
        @Label("Phase After") String phase;
    }
}
