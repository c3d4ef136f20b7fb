/**
 * The engine every kind of id runs on: {@code IdEngine} routes copied events to ids, feeds one
 * input at a time to one ids state machine and runs the actions that mean the same for every kind
 * (native calls, timers, futures, teardown) with the CallFailed contract; {@code IdRole} is what
 * each kind adds; {@code IdDriver} is one id (subclassed per kind for the kinds own state). Also the
 * futures rdmacm4j hands out, the history, the counters, the JFR events and the typed failures.
 *
 * <p>Threads: dispatcher thread, except {@code IdEngine.command/closeCommand} (any thread: they
 * queue), {@code CmFuture}, {@code Stats} and the history readers.
 */
package org.rdmacm4j.cm.core.internal.id;
