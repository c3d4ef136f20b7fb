/**
 * The CM dispatcher, assembled ({@link org.rdmacm4j.cm.core.internal.Dispatcher}): what
 * {@code RdmaCm} creates, and the one place that knows every kind of id. Not exported.
 *
 * <p>The packages below it, from the top down (a package imports only packages further down):
 * <ul>
 *   <li>{@code nativeport}: the real port, librdmacm and libibverbs through {@code verbs};
 *   <li>{@code connection}, {@code listener}, {@code datagram}: one kind of id each, none
 *       importing another;
 *   <li>{@code id}: the state-machine engine every kind runs on;
 *   <li>{@code port}: the native port as every kind sees it; {@code poll}: the completion pollers;
 *   <li>{@code loop}: the dispatcher thread, its queues and timers.
 * </ul>
 *
 * <p>Threads: {@code Dispatcher}s public methods may be called from any thread and only queue work
 * (listen, openDatagram and shutdown block, bounded).
 */
package org.rdmacm4j.cm.core.internal;
