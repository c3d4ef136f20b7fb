package org.rdmacm4j.cm.core.doctor;


/** What to examine: the connection count to budget the limits for, the loopback's addresses and deadline. */
record Options(int connections, String address, String source, int seconds, boolean loopback) {
    /** Connections the limits are checked against unless {@code -n} says otherwise. */
    public static final int DEFAULT_CONNECTIONS = 1000;

    static Options defaults() {
        return new Options(DEFAULT_CONNECTIONS, null, null, 20, true);
    }
}
