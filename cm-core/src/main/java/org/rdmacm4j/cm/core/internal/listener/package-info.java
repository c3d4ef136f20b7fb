/**
 * Listeners and the requests they offer ({@code Listeners}, the role of LISTENER ids): listen,
 * re-listen, hand requests to the application and take its decision. A requests passive id is an
 * RC connection, made and accepted through {@code Passives}, which the dispatcher wires to the
 * connection package (this package does not import it).
 *
 * <p>Threads: {@code Listeners.listen} (blocking, bounded), {@code ListenerImpl} and
 * {@code RequestImpl} may be called from any thread; the role methods run on the dispatcher thread.
 */
package org.rdmacm4j.cm.core.internal.listener;
