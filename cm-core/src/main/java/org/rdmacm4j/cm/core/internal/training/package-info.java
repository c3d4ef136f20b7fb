/**
 * The cold-start training's native port: {@code LoopbackPort}, an in-memory {@code NativePort}
 * that pairs its own ids as a device would pair two ends (connect to a listening address becomes a
 * CONNECT_REQUEST on that listener, accept establishes both ends, disconnect reaches both), so that
 * the dispatcher, the machines and the public API run their connect/accept/close paths in a JVM
 * with no RDMA device. Used only by {@code org.rdmacm4j.cm.core.ColdStart}; not exported.
 */
package org.rdmacm4j.cm.core.internal.training;
