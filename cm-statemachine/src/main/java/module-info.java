/** Pure per-rdma_cm_id state machines: no FFM, no threads, no clock. */
module org.rdmacm4j.cm.statemachine {
}
