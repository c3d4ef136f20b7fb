/**
 * Generates docs/statemachine/*.md from the code: one representative state per phase, one
 * exemplar per kind of input, rendered as a Markdown table and a Mermaid stateDiagram-v2. Not
 * exported; the docs test and the main method use it.
 */
package org.rdmacm4j.cm.statemachine.doc;
