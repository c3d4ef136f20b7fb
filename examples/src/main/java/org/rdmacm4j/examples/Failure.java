package org.rdmacm4j.examples;

/** An expected failure of an example (no answer, bad data from the peer): one line, no stack trace, exit status 1. */
final class Failure extends Exception {
    Failure(String message) {
        super(message, null, false, false);
    }
}
