/**
 * Pure per-rdma_cm_id state machines: no FFM, no threads, no clock. Inputs and actions are
 * sealed records; each machine is one transition function {@code (state, input) -> (next state,
 * actions)}. See docs/statemachine/README.md.
 */
module org.rdmacm4j.cm.statemachine {
    requires com.google.common;
    exports org.rdmacm4j.cm.statemachine;
    exports org.rdmacm4j.cm.statemachine.machine;
    exports org.rdmacm4j.cm.statemachine.privatedata;
}
