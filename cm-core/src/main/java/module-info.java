/**
 * The CM dispatcher and the public API ({@code org.rdmacm4j.cm.core}). The only module that owns
 * threads. The policies and event types of {@code org.rdmacm4j.cm.statemachine} are part of the
 * API (deadlines, retry policy, async event types), and so are the {@code verbs} types of raw
 * access (QueuePair, CompletionQueue, ProtectionDomain, WorkCompletions), hence both
 * {@code requires transitive}.
 *
 * <p>{@code org.rdmacm4j.cm.core.doctor} is the doctor: {@code java -m
 * org.rdmacm4j.cm.core/org.rdmacm4j.cm.core.doctor.Doctor} says whether this machine can run
 * rdmacm4j and what to do if not (also callable, {@code Doctor.examine()}).
 */
module org.rdmacm4j.cm.core {
    requires com.google.common;
    requires transitive org.rdmacm4j.cm.statemachine;
    requires transitive org.rdmacm4j.verbs;
    requires jdk.jfr;
    exports org.rdmacm4j.cm.core;
    exports org.rdmacm4j.cm.core.doctor;
}
