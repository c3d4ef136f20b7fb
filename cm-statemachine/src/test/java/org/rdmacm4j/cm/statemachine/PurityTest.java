package org.rdmacm4j.cm.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module's promise, enforced on its sources: no FFM, no threads, no clock, no logging, no
 * randomness; and in the machines no {@code default} branch that could hide a forgotten case.
 */
class PurityTest {
    private static final Path MAIN = Path.of("src/main/java");
    private static final Pattern FORBIDDEN = Pattern.compile(
            "java\\.lang\\.foreign|\\bThread\\b|Executor|System\\.(nanoTime|currentTimeMillis|getLogger)|"
                    + "System\\.Logger|java\\.time\\.(Instant|Clock|LocalDateTime)|\\bRandom\\b|synchronized|volatile");
    private static final Pattern DEFAULT_BRANCH = Pattern.compile("\\bdefault\\s*(->|:)");

    @Test
    void mainCodeIsPure() throws IOException {
        List<String> offences = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i).strip();
                    if (line.startsWith("*") || line.startsWith("/*") || line.startsWith("//")) {
                        continue;
                    }
                    if (FORBIDDEN.matcher(line).find()) {
                        offences.add(f + ":" + (i + 1) + ": " + line);
                    }
                    if (f.toString().contains("/machine/") && DEFAULT_BRANCH.matcher(line).find()) {
                        offences.add(f + ":" + (i + 1) + " (default branch in a machine): " + line);
                    }
                }
            }
        }
        assertThat(offences).isEmpty();
    }
}
