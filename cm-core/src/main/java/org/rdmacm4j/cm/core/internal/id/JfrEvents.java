package org.rdmacm4j.cm.core.internal.id;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * JFR events of the connection lifecycle. Committed only when a recording enables them; created
 * only once JFR is initialized ({@link #on}), so a process that never records allocates none on the
 * dispatcher (under C1 the {@code new} before {@code shouldCommit()} is not scalar-replaced).
 */
public final class JfrEvents {
    private JfrEvents() { }

    /**
     * Whether an event object is worth creating to ask {@code shouldCommit()}: false until the
     * Flight Recorder was initialized (a recording started, from the command line or in-process).
     * A static volatile read; it does not initialize JFR (EventType.getEventType would).
     */
    public static boolean on() {
        return FlightRecorder.isInitialized();
    }

    @Name("org.rdmacm4j.ConnectionEstablished")
    @Label("RDMA Connection Established")
    @Category({"rdmacm4j"})
    @StackTrace(false)
    public static final class Established extends Event {
        @Label("Connection") public String connection;
        @Label("Peer") public String peer;
        @Label("Setup Time") @Timespan(Timespan.NANOSECONDS) public long setupNanos;
    }

    @Name("org.rdmacm4j.ConnectionClosed")
    @Label("RDMA Connection Closed")
    @Category({"rdmacm4j"})
    @StackTrace(false)
    public static final class Closed extends Event {
        @Label("Connection") public String connection;
        @Label("Lifetime") @Timespan(Timespan.NANOSECONDS) public long lifetimeNanos;
        @Label("Leaked") public boolean leaked;
    }

    @Name("org.rdmacm4j.ConnectFailed")
    @Label("RDMA Connect Failed")
    @Category({"rdmacm4j"})
    @StackTrace(false)
    public static final class ConnectFailed extends Event {
        @Label("Connection") public String connection;
        @Label("Reason") public String reason;
    }

    @Name("org.rdmacm4j.CmEventDispatched")
    @Label("rdma_cm Event Dispatched")
    @Description("One rdma_cm event copied and fed to an id's state machine")
    @Category({"rdmacm4j"})
    @StackTrace(false)
    public static final class CmEventDispatched extends Event {
        @Label("Id") public String id;
        @Label("Event") public String event;
        @Label("Status") public int status;
        @Label("Phase After") public String phase;
    }
}
