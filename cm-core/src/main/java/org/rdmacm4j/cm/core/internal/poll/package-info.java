/**
 * The completion pollers: one thread each, an epoll over the completion channels of the CQs it
 * serves, the keepalive ticks of its connections, and the slot pool of registered buffers the data
 * paths lease from.
 *
 * <p>Threads: {@code CompletionPoller.drain/quiesce/startKeepalive} are called by the dispatcher
 * thread, {@code register} by whoever starts a {@code CqRegistration} first (the dispatcher, or the
 * application about to post its first work request); completions and keepalive verdicts are
 * delivered on the poller thread.
 * {@code SlotPool} is thread-safe.
 */
package org.rdmacm4j.cm.core.internal.poll;
