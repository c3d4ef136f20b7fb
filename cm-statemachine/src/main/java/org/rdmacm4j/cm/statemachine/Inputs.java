package org.rdmacm4j.cm.statemachine;

/** Stable, human-readable labels for kinds of input (used in logs, tables and diagrams). */
public final class Inputs {
    private Inputs() {
    }

    /** E.g. {@code "CM REJECTED"}, {@code "ASYNC QP_FATAL"}, {@code "CMD Close"}, {@code "TIMER DRAIN_DEADLINE"}. */
    public static String label(Input input) {
        return switch (input) {
            case Input.CmEvent e -> "CM " + e.type();
            case Input.AsyncEvent e -> "ASYNC " + e.type();
            case Input.TimerExpired t -> "TIMER " + t.kind();
            case Input.Quiesced q -> "QUIESCED " + q.resource();
            case Input.RequestSettled r -> "REQUEST SETTLED";
            case Input.CallsSucceeded s -> "CALLS SUCCEEDED";
            case Input.CallFailed f -> "FAILED " + f.call().getClass().getSimpleName();
            case Input.Command c -> "CMD " + c.getClass().getSimpleName();
        };
    }
}
