package org.rdmacm4j.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The device's hardware counters for port 1, as the kernel exposes them under
 * {@code /sys/class/infiniband/<dev>/ports/1/hw_counters/}. rxe keeps, among others,
 * {@code send_rnr_err} (RNR NAKs it answered as a responder with no receive posted) and
 * {@code rcvd_rnr_err} (RNR NAKs it received as a requester). A missing counter is an error, never
 * a silent zero, so a test built on it cannot pass by reading nothing.
 */
public final class PortCounters {
    private PortCounters() {
    }

    /** The current value of {@code name} on {@link SoftRoce#DEVICE}, port 1. */
    public static long read(String name) {
        Path p = Path.of("/sys/class/infiniband", SoftRoce.DEVICE, "ports", "1", "hw_counters", name);
        try {
            return Long.parseLong(Files.readString(p).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the port counter " + p, e);
        }
    }
}
