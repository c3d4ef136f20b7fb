package org.rdmacm4j.cm.statemachine.doc;

import java.util.function.Function;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.MachineState;

/** One kind of input, as a label and a representative value built for a given state. */
public record Exemplar(String label, Function<MachineState<?>, Input> factory) {
    public Input inputFor(MachineState<?> state) {
        return factory.apply(state);
    }
}
