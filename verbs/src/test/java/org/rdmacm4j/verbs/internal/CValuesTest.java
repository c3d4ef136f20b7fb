package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.ibv.WcStatus;

/** The enums' C-value check: the constant through, an unknown value named as Guava's message named it. */
class CValuesTest {

    @Test
    void knownPassesTheConstantAndNamesAnUnknownValue() {
        assertThat(CValues.known(WcStatus.SUCCESS, "IBV_WC_*", 0)).isSameAs(WcStatus.SUCCESS);
        assertThat(WcStatus.of(0)).isSameAs(WcStatus.SUCCESS);
        assertThat(QpType.of(QpType.RC.value())).isSameAs(QpType.RC);
        assertThatThrownBy(() -> WcStatus.of(99)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown IBV_WC_* value 99");
        assertThatThrownBy(() -> QpType.of(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown IBV_QPT_* value -1");
    }
}
