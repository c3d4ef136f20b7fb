package org.rdmacm4j.cm.core.doctor;

import java.util.Objects;

/**
 * One finding: what was looked at, how it stands, what was seen, and what to do about it
 * (empty for a finding that needs nothing).
 *
 * @param topic  what was looked at ("kernel modules", "memlock limit", ...)
 * @param status how it stands
 * @param detail what was seen, in words
 * @param fix    the command or step that fixes it; empty when nothing is to be done
 */
public record Finding(String topic, Status status, String detail, String fix) {
    /** How a finding stands. */
    public enum Status {
        /** Present and usable. */
        OK,
        /** Works, with a limit or caveat the finding names. */
        WARN,
        /** Something rdmacm4j needs is not there. */
        MISSING,
        /** Tried and failed. */
        FAILED
    }

    public Finding {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(detail, "detail");
        fix = fix == null ? "" : fix;
    }

    static Finding ok(String topic, String detail) {
        return new Finding(topic, Status.OK, detail, "");
    }
}
