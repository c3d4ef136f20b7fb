/**
 * The dispatcher loop alone: its thread, the task and answer queues with their door, the wake-up,
 * the timer heap and the turn clock. Knows nothing of ids, connections or endpoints.
 *
 * <p>Threads: {@code EventLoop}s queueing methods, {@code LibraryThread.refuseBlocking} and
 * {@code SerialExecutor.execute} may be called from any thread; {@code TimerQueue} and the turn
 * clock belong to the loop thread.
 */
package org.rdmacm4j.cm.core.internal.loop;
