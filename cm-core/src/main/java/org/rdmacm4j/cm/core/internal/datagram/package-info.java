/**
 * UD endpoints ({@code Datagrams}, the role of every UD kind): the endpoints id with its UD QP and
 * multicast memberships, its SIDR listener, SIDR queries and answers; the datagram channel
 * ({@code DatagramPath}) and its send targets (peers, memberships).
 *
 * <p>Threads: {@code Datagrams.openDatagram} (blocking, bounded) and the public faces may be called
 * from any thread; {@code DatagramPath} delivers datagrams on the poller thread; the role methods
 * run on the dispatcher thread.
 */
package org.rdmacm4j.cm.core.internal.datagram;
