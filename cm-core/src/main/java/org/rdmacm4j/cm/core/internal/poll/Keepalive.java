package org.rdmacm4j.cm.core.internal.poll;

import java.lang.System.Logger.Level;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * The keepalive of one connection ({@link KeepaliveOptions}): at most one probe outstanding; each
 * period either posts the next probe (the last one was answered) or counts a miss; after
 * {@code misses} misses, or a failed probe completion, it gives its verdict once and stops.
 *
 * <p>Threads: {@link #tick} and {@link #onCompletion} on the connection's completion poller (its
 * {@link KeepaliveSchedule} and its CQ), so the counters need no lock; {@link #closing} and
 * {@link #release} from the dispatcher ({@code release} only after the poller has quiesced the CQ,
 * so no tick or completion can follow).
 */
public final class Keepalive implements CompletionSink {
    /** wr_id kind of probes (DataPath uses 1..3, OneSided 4). */
    public static final long KIND = 5L << 56;
    /** Send-queue entries a connection reserves for its probe. */
    public static final int SEND_QUEUE_ENTRIES = 1;

    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");

    /** Posts one probe; throws (RdmaException) if the QP refuses it. */
    public interface Probe {
        void post();

        void close();
    }

    /** Where the verdict goes: {@code completionStatus} is null for misses, else the failed probe's status. */
    public interface Verdict {
        void peerUnresponsive(String reason, WcStatus completionStatus);
    }

    public final long periodNanos;
    private final int misses;
    private final Probe probe;
    private final Verdict verdict;
    private volatile boolean closing;

    // Poller thread only.
    /** When the schedule runs {@link #tick} next. */
    public long due;
    /** Set at quiesce: the schedule drops this keepalive when it surfaces, without touching it. */
    public boolean cancelled;
    private boolean outstanding;
    private int missed;
    private boolean finished;
    private String refusal;

    public Keepalive(KeepaliveOptions options, Probe probe, Verdict verdict) {
        this.periodNanos = options.period().toNanos();
        this.misses = options.misses();
        this.probe = probe;
        this.verdict = verdict;
    }

    /** A zero-length RDMA WRITE on {@code qp}: no rkey, no receive, acknowledged by the peer's transport. */
    public static Probe zeroLengthWrite(QueuePair qp) {
        SendRequests wr = SendRequests.allocate(1, 1);
        wr.set(0, KIND, WrOpcode.RDMA_WRITE, SendFlags.SIGNALED).rdma(0, 0, 0);
        return new Probe() {
            @Override
            public void post() {
                qp.postSend(wr, 1);   // the provider copies the request: it is reused for every probe
            }

            @Override
            public void close() {
                wr.close();
            }
        };
    }

    /** One period passed. Returns whether to stay scheduled. Poller thread. */
    public boolean tick() {
        if (closing || finished) {
            return false;
        }
        if (!outstanding) {
            try {
                probe.post();
                outstanding = true;
                return true;
            } catch (RuntimeException e) {
                // The send queue is full (a raw application used the probe's entry) or the QP is
                // leaving RTS: a period without a probe counts as a miss. A QP in ERR for another
                // reason is torn down by whatever put it there, which stops this keepalive first.
                refusal = e.getMessage();
                LOG.log(Level.DEBUG, () -> "keepalive probe not posted: " + refusal);
            }
        }
        if (++missed >= misses) {
            finish(outstanding
                    ? "no answer to a keepalive probe for " + missed + " period(s) of " + periodNanos / 1_000_000 + " ms"
                    : "no keepalive probe could be posted for " + missed + " period(s) (" + refusal + ")", null);
            return false;
        }
        return true;
    }

    @Override
    public void onCompletion(WorkCompletions wc, int i) {
        completed(wc.status(i));
    }

    /** The probe's completion. Poller thread. */
    public void completed(WcStatus status) {
        outstanding = false;
        if (status == WcStatus.SUCCESS) {
            missed = 0;
            return;
        }
        if (status == WcStatus.WR_FLUSH_ERR || closing || finished) {
            return;   // the QP was moved to ERR by a teardown (or an earlier failure): not news
        }
        finish("a keepalive probe failed with " + status.cName(), status);
    }

    private void finish(String reason, WcStatus status) {
        finished = true;
        verdict.peerUnresponsive(reason, status);
    }

    /** Periods missed so far (diagnostics and tests). Poller thread. */
    public int missed() {
        return missed;
    }

    /** The QP is about to be flushed: no more probes, and failures are no longer news. Dispatcher. */
    public void closing() {
        closing = true;
    }

    /** The QP is destroyed and the poller quiesced: free the probe's request. Dispatcher. */
    public void release() {
        closing = true;
        probe.close();
    }
}
