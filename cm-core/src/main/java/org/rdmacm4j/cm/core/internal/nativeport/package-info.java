/**
 * The real native port: librdmacm and libibverbs through {@code verbs}. {@code VerbsCmPort} is its
 * face (the event channel, its epoll and wake-up eventfd, and the rdma_cm calls on ids) and hands
 * the rest to one class per job: {@code CmEvents} (draining rdma_cm and async events),
 * {@code QueuePairs} (QPs, CQs, completion channels), {@code Devices} (a devices PD, slot pool and
 * async fd, opened on first use), {@code CompletionPollers}, {@code UdCalls} (SIDR, multicast).
 * It implements every port interface of the layers below ({@code NativePort}).
 *
 * <p>Threads: the dispatcher thread only, except {@code VerbsCmPort.wakeup()} (any thread) and the
 * completion router, which runs on a poller thread.
 */
package org.rdmacm4j.cm.core.internal.nativeport;
