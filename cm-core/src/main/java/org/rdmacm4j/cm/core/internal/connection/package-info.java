/**
 * RC connections, active and passive ({@code Connections}, the role of ACTIVE and PASSIVE ids):
 * connect and accept, the QP and data paths created with the id, step barriers, handler notices,
 * the verdicts on failures the pollers notice, and the public face {@code ConnectionImpl}. The data
 * paths: the message channel ({@code DataPath}, its wire offer {@code ChannelOffer} and the rules a
 * peer must keep, {@code PeerConduct}) and the one-sided operations ({@code OneSided}).
 *
 * <p>Threads: {@code Connections.connect/accept} and {@code ConnectionImpl} may be called from any
 * thread; {@code DataPath} and {@code OneSided} take sends from any thread and completions on the
 * poller thread; the role methods run on the dispatcher thread.
 */
package org.rdmacm4j.cm.core.internal.connection;
