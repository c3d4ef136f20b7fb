package org.rdmacm4j.cm.core.internal.id;

import org.rdmacm4j.cm.statemachine.Input;

/** Short, readable names of inputs for histories and logs. */
public final class Describe {
    private Describe() { }

    public static String input(Input in) {
        return switch (in) {
            case Input.CmEvent e -> e.type() + (e.status() != 0 ? "(status " + e.status() + ")" : "");
            case Input.AsyncEvent e -> "async " + e.type();
            case Input.TimerExpired t -> "timer " + t.kind();
            case Input.Quiesced q -> "quiesced " + q.resource();
            case Input.CallFailed f -> "failed " + f.call().getClass().getSimpleName() + " errno " + f.errno();
            case Input.RequestSettled r -> "request settled";
            case Input.CallsSucceeded s -> "calls succeeded";
            case Input.Command c -> c.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
