package org.rdmacm4j.cm.core.doctor;

import org.rdmacm4j.cm.core.doctor.Finding.Status;
import java.util.List;
import java.util.Optional;

/**
 * The whole examination.
 *
 * @param findings        every finding, in the order they were made
 * @param connections     the connection count the limits were checked against
 * @param loopbackWorked  true if the loopback connection through the API worked
 */
public record Report(List<Finding> findings, int connections, boolean loopbackWorked) {
    public Report {
        findings = List.copyOf(findings);
    }

    /** 0 if the loopback connection worked, else 1. */
    public int exitCode() {
        return loopbackWorked ? 0 : 1;
    }

    /** The finding about {@code topic}, if one was made. */
    public Optional<Finding> finding(String topic) {
        return findings.stream().filter(f -> f.topic().equals(topic)).findFirst();
    }

    /** The report as the command prints it. */
    public String render() {
        StringBuilder sb = new StringBuilder();
        sb.append("rdmacm4j doctor: can this machine run rdmacm4j? (limits checked for ").append(connections)
                .append(" connections; -n to change)\n\n");
        for (Finding f : findings) {
            String label = switch (f.status()) {
                case OK -> "ok     ";
                case WARN -> "WARN   ";
                case MISSING -> "MISSING";
                case FAILED -> "FAILED ";
            };
            sb.append(label).append("  ").append(f.topic()).append(": ").append(indent(f.detail(), 11)).append('\n');
            if (!f.fix().isEmpty()) {
                sb.append("         fix: ").append(indent(f.fix(), 14)).append('\n');
            }
        }
        sb.append('\n');
        if (loopbackWorked) {
            long warnings = findings.stream().filter(f -> f.status() != Finding.Status.OK).count();
            sb.append("verdict: YES, this machine can run rdmacm4j: a connection to itself through the API worked");
            sb.append(warnings == 0 ? ".\n" : "; see the " + warnings + " WARN/MISSING line(s) above for its limits.\n");
        } else {
            sb.append("verdict: NO, this machine cannot run rdmacm4j yet: no connection through the API worked.\n")
                    .append("         Apply the fixes above from the top (each later check depends on the earlier ones),\n")
                    .append("         then run the doctor again. No RDMA hardware? The soft-RoCE lines (rdma_rxe,\n")
                    .append("         rdma link add) need only an Ethernet interface.\n");
        }
        return sb.toString();
    }

    private static String indent(String s, int spaces) {
        return s.replace("\n", "\n" + " ".repeat(spaces));
    }
}
