package org.rdmacm4j.cm.statemachine.machine;

import static com.google.common.base.Preconditions.checkArgument;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The expected outcome of every (phase, input) pair of a machine, written by hand in
 * src/test/resources/matrix/*.spec, independently of the code. Format, one rule per line:
 * <pre>
 *   phases | inputs | next | key actions | log
 * </pre>
 * {@code phases}: {@code *} or a comma list (names a machine lacks are ignored, so shared files
 * work); {@code inputs}: {@code *}, {@code CM *}-style prefixes, labels, or {@code @GROUP}s defined
 * with {@code @GROUP = a, b}; {@code next}: {@code =} for "stays"; key actions: the rendered actions
 * without acks, cancels and LogUnexpected, space separated ({@code %E} is the last word of the input
 * label); {@code log}: whether LogUnexpected is expected. Later rules override earlier ones;
 * {@code include file} pulls in another spec.
 */
final class MatrixSpec {
    record Expectation(String next, List<String> actions, boolean log, int line, String file) { }

    private record Rule(List<String> phases, List<String> inputs, Expectation expectation) { }

    private final List<Rule> rules = new ArrayList<>();
    private final Map<String, List<String>> groups = new HashMap<>();

    static MatrixSpec load(String name) {
        MatrixSpec spec = new MatrixSpec();
        spec.read(name);
        return spec;
    }

    private void read(String name) {
        Path path = Path.of("src/test/resources/matrix", name);
        List<String> lines;
        try {
            lines = Files.readAllLines(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("include ")) {
                read(line.substring("include ".length()).strip());
                continue;
            }
            if (line.startsWith("@") && line.contains("=") && !line.contains("|")) {
                String[] kv = line.split("=", 2);
                List<String> members = new ArrayList<>();
                for (String m : list(kv[1])) {
                    members.addAll(m.startsWith("@") ? group(m, name, i) : List.of(m));
                }
                groups.put(kv[0].strip(), members);
                continue;
            }
            String[] cols = line.split("\\|", -1);
            checkArgument(cols.length == 5, "%s:%s: expected 5 columns: %s", name, i + 1, line);
            List<String> inputs = new ArrayList<>();
            for (String in : list(cols[1])) {
                inputs.addAll(in.startsWith("@") ? group(in, name, i) : List.of(in));
            }
            String actions = cols[3].strip();
            rules.add(new Rule(list(cols[0]), inputs, new Expectation(cols[2].strip(),
                    actions.isEmpty() ? List.of() : Arrays.asList(actions.split("\\s+")),
                    cols[4].strip().equals("log"), i + 1, name)));
        }
    }

    private List<String> group(String g, String file, int line) {
        List<String> members = groups.get(g);
        checkArgument(members != null, "%s:%s: unknown group %s", file, line + 1, g);
        return members;
    }

    private static List<String> list(String s) {
        return Arrays.stream(s.split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList();
    }

    /** The expectation of the last rule that matches. */
    Expectation expect(String phase, String input) {
        Expectation found = null;
        for (Rule r : rules) {
            if (matches(r.phases(), phase) && matches(r.inputs(), input)) {
                found = r.expectation();
            }
        }
        if (found == null) {
            throw new IllegalStateException("no rule for " + phase + " x " + input);
        }
        String last = input.substring(input.lastIndexOf(' ') + 1);
        return new Expectation(found.next(), found.actions().stream().map(a -> a.replace("%E", last)).toList(),
                found.log(), found.line(), found.file());
    }

    /** Phases named by some rule but unknown to the machine: typos, not shared rows. */
    void checkPhases(Set<String> known, Set<String> shared) {
        for (Rule r : rules) {
            for (String p : r.phases()) {
                checkArgument(p.equals("*") || known.contains(p) || shared.contains(p),
                        "unknown phase %s in %s:%s", p, r.expectation().file(), r.expectation().line());
            }
        }
    }

    private static boolean matches(List<String> patterns, String value) {
        for (String p : patterns) {
            if (p.equals("*") || p.equals(value) || (p.endsWith(" *") && value.startsWith(p.substring(0, p.length() - 1)))) {
                return true;
            }
        }
        return false;
    }
}
