package org.rdmacm4j.cm.core.internal.poll;

import org.rdmacm4j.verbs.ibv.WorkCompletions;

/** Where a {@link CompletionPoller} hands the work completions of one CQ. Poller thread. */
public interface CompletionSink {
    void onCompletion(WorkCompletions completions, int index);
}
