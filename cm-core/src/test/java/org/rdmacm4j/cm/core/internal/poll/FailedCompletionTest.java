package org.rdmacm4j.cm.core.internal.poll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.ibv.WcStatus;

/** The classification of a failed completion of the message channel (pure). */
class FailedCompletionTest {
    @Test
    void aFlushIsNewsOnlyWhenNoTeardownOfOursExplainsIt() {
        assertThat(FailedCompletion.classify(WcStatus.WR_FLUSH_ERR, false)).isEqualTo(FailedCompletion.UNEXPLAINED_FLUSH);
        assertThat(FailedCompletion.classify(WcStatus.WR_FLUSH_ERR, true)).isEqualTo(FailedCompletion.DURING_TEARDOWN);
    }

    @Test
    void everyOtherErrorFailsTheConnectionUnlessItsTeardownBegan() {
        for (WcStatus s : WcStatus.values()) {
            if (s == WcStatus.SUCCESS || s == WcStatus.WR_FLUSH_ERR) {
                continue;
            }
            assertThat(FailedCompletion.classify(s, false)).as(s.cName()).isEqualTo(FailedCompletion.ERROR);
            assertThat(FailedCompletion.classify(s, true)).as(s.cName()).isEqualTo(FailedCompletion.DURING_TEARDOWN);
        }
    }

    @Test
    void successIsNotAFailure() {
        assertThatThrownBy(() -> FailedCompletion.classify(WcStatus.SUCCESS, false))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
