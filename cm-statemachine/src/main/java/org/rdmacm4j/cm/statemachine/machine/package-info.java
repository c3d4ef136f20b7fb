/**
 * The four machines (active RC, passive RC, listener, UD/multicast), each a pure
 * {@code step(state, input) -> (next state, actions)} with exhaustive switches and no default
 * branch, plus their phase enums (stable codes) and immutable states. The generated transition
 * tables and Mermaid diagrams live in docs/statemachine/.
 */
package org.rdmacm4j.cm.statemachine.machine;
