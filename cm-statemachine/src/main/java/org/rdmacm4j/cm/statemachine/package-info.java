/**
 * The vocabulary of the rdma_cm_id state machines: sealed {@link org.rdmacm4j.cm.statemachine.Input}s
 * (copied CM and async events, commands, timer expiries, quiescence notices, call failures) and
 * {@link org.rdmacm4j.cm.statemachine.Action}s (what the core executes, in order), the typed
 * failures and outcomes futures carry, and the policies (deadlines, retries, transport) as data.
 * Nothing here touches native memory, threads or the clock. See docs/statemachine/README.md.
 */
package org.rdmacm4j.cm.statemachine;
