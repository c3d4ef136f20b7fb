package org.rdmacm4j.it.support;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of the command line for a JVM a test starts (a peer, a child process): the same
 * {@code java} binary as this JVM and the same JIT, GC and crash-file options, so a child runs the
 * JVM its suite runs. The suite runs the JDK's default JIT and GC (it/rig/run-it.sh); a suite run
 * with {@code RDMACM4J_IT_JIT=c1} gives its children C1 and the serial GC too, and the
 * {@code -XX:ErrorFile} the rig sets puts a child's crash report next to the suite's.
 */
public final class ChildJvm {
    private ChildJvm() {
    }

    /** {@code java} and this JVM's JIT, GC and crash-file options, in order. */
    public static List<String> java() {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(inheritedOptions());
        return cmd;
    }

    /** This JVM's options that a child inherits: the JIT ({@code -XX:TieredStopAtLevel}, {@code -XX:[+-]TieredCompilation}), the GC ({@code -XX:+UseXxxGC}) and {@code -XX:ErrorFile}. */
    public static List<String> inheritedOptions() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-XX:TieredStopAtLevel=") || a.matches("-XX:[+-]TieredCompilation")
                        || a.matches("-XX:[+-]Use\\w+GC") || a.startsWith("-XX:ErrorFile="))
                .toList();
    }
}
