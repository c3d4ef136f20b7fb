/**
 * The native port as every kind of id sees it: {@code CmPort} (rdma_cm ids, their QP/CQ teardown,
 * the event channel the loop waits on), the handle {@code NativeId} and the typed failure
 * {@code PortCallException}. Interfaces and values only: the kinds depend on it, and the real
 * port ({@code nativeport}) implements it from above.
 *
 * <p>Threads: dispatcher thread only, except {@code CmPort.wakeup()}.
 */
package org.rdmacm4j.cm.core.internal.port;
