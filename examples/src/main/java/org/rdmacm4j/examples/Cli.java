package org.rdmacm4j.examples;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The examples' command lines and exit statuses, the same in every example: flags with a value
 * ({@code -p 7471}) and switches ({@code -v}); {@code -h}/{@code --help} prints the usage and exits
 * 0; a bad argument prints what is wrong and the usage and exits 2; an expected failure prints one
 * line, no stack trace, and exits 1.
 */
final class Cli {
    private final String name, usage;
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> switches = new HashSet<>();

    private Cli(String name, String usage) {
        this.name = name;
        this.usage = usage;
    }

    /** {@code valueFlags} take the next argument, {@code switchFlags} stand alone (each space-separated). */
    static Cli parse(String name, String usage, String[] args, String valueFlags, String switchFlags) {
        Cli cli = new Cli(name, usage);
        List<String> withValue = Arrays.asList(valueFlags.split(" ")), alone = Arrays.asList(switchFlags.split(" "));
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                System.out.println(usage);
                System.exit(0);
            } else if (withValue.contains(a) && i + 1 < args.length) {
                cli.values.put(a, args[++i]);
            } else if (alone.contains(a)) {
                cli.switches.add(a);
            } else {
                cli.bad(withValue.contains(a) ? a + " needs a value" : "unknown argument " + a);
            }
        }
        return cli;
    }

    String get(String flag, String otherwise) {
        return values.getOrDefault(flag, otherwise);
    }

    /** The flag's integer (decimal, or 0x hex as strtoul reads it), which must be in [min, max]. */
    int integer(String flag, int otherwise, int min, int max) {
        String v = values.get(flag);
        if (v == null) {
            return otherwise;
        }
        try {
            int n = Integer.decode(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        bad("invalid " + flag + " " + v + " (valid range is " + min + " to " + max + ")");
        return otherwise;   // not reached
    }

    boolean has(String flag) {
        return switches.contains(flag) || values.containsKey(flag);
    }

    /** Exits 2 with {@code message} unless {@code ok}. */
    void require(boolean ok, String message) {
        if (!ok) {
            bad(message);
        }
    }

    private void bad(String message) {
        System.err.println(name + ": " + message + "\n" + usage);
        System.exit(2);
    }

    /** One line for an expected failure: the cause of an ExecutionException, the first line of its message. */
    static String describe(Throwable e, int seconds) {
        Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        String what = t instanceof TimeoutException ? "no progress within " + seconds + " s" : t.getMessage();
        return what == null ? t.toString() : what.lines().findFirst().orElse("");
    }
}
