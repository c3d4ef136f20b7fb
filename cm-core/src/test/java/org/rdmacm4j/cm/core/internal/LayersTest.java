package org.rdmacm4j.cm.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * cm-core's rooms keep their shape: imports run one way (no two files use each other, directly or
 * around a loop), each internal package uses only the layers below it (the kinds of id none of
 * each other), only {@code RdmaCm} of the public API reaches into {@code internal}, and a class over
 * 400 lines says at its top why. docs/cm-core-rooms.md, the picture of it, is generated from the
 * code; regenerate with {@code ./mvnw -q -pl cm-core -am verify -Drdmacm4j.regenerateDocs=true}.
 */
class LayersTest {
    private static final Path MAIN = Path.of("src", "main", "java");
    private static final Path DOC = Path.of("..", "docs", "cm-core-rooms.md");
    private static final String API = "org.rdmacm4j.cm.core";
    private static final String INTERNAL = API + ".internal";
    /** The internal packages from the top down, with what each is for; a package may use only those after it. */
    private static final Map<String, String> LAYERS = layers();
    /** Packages of one layer: none may use another of the same layer. */
    private static final Set<String> KINDS = Set.of(INTERNAL + ".connection", INTERNAL + ".listener",
            INTERNAL + ".datagram");
    private static final int LONG = 400;
    private static final String LONG_REASON = "Longer than 400 lines because";

    private static Map<String, String> layers() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(INTERNAL + ".nativeport", "the real port: librdmacm and libibverbs through verbs");
        m.put(INTERNAL + ".training", "the cold-start training's in-memory port (no device)");
        m.put(INTERNAL, "the dispatcher assembled: what RdmaCm creates, the one place that knows every kind");
        m.put(INTERNAL + ".connection", "RC connections (a kind of id)");
        m.put(INTERNAL + ".listener", "listeners and their requests (a kind of id)");
        m.put(INTERNAL + ".datagram", "UD endpoints, SIDR, multicast (a kind of id)");
        m.put(INTERNAL + ".id", "the engine every kind runs on: stepping, generic actions, futures");
        m.put(INTERNAL + ".port", "the native port as every kind sees it (interfaces)");
        m.put(INTERNAL + ".poll", "the completion pollers and the slot pool");
        m.put(INTERNAL + ".loop", "the dispatcher thread, its queues and timers");
        return m;
    }

    private static int rank(String pkg) {
        return new ArrayList<>(LAYERS.keySet()).indexOf(pkg);
    }

    private final SourceGraph graph = SourceGraph.read(MAIN);

    @Test
    void noTwoFilesUseEachOther() {
        assertThat(graph.cycles()).as("files of cm-core that use each other in a loop").isEmpty();
    }

    /** The check itself: two files that use each other (one through an import) are a loop; a one-way pair is not. */
    @Test
    void theGraphSeesALoopAndOnlyALoop(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path a = Files.createDirectories(dir.resolve("org/rdmacm4j/cm/core/internal/a"));
        Path b = Files.createDirectories(dir.resolve("org/rdmacm4j/cm/core/internal/b"));
        Files.writeString(a.resolve("Up.java"), "package org.rdmacm4j.cm.core.internal.a;\n"
                + "import org.rdmacm4j.cm.core.internal.b.Down;\n/** Names Gone in a comment only. */\n"
                + "class Up { Down d; String s = \"Side\"; }\n");
        Files.writeString(b.resolve("Down.java"), "package org.rdmacm4j.cm.core.internal.b;\nclass Down { }\n");
        Files.writeString(b.resolve("Side.java"), "package org.rdmacm4j.cm.core.internal.b;\nclass Side { }\n");
        Files.writeString(a.resolve("Gone.java"), "package org.rdmacm4j.cm.core.internal.a;\nclass Gone { }\n");
        SourceGraph oneWay = SourceGraph.read(dir);
        assertThat(oneWay.sources.get("org.rdmacm4j.cm.core.internal.a.Up").uses())
                .containsExactly("org.rdmacm4j.cm.core.internal.b.Down");
        assertThat(oneWay.cycles()).isEmpty();
        Files.writeString(b.resolve("Down.java"), "package org.rdmacm4j.cm.core.internal.b;\n"
                + "class Down { org.rdmacm4j.cm.core.internal.a.Up up; }\n");
        assertThat(SourceGraph.read(dir).cycles()).containsExactly(
                List.of("org.rdmacm4j.cm.core.internal.a.Up", "org.rdmacm4j.cm.core.internal.b.Down"));
    }

    @Test
    void everyInternalPackageIsALayerAndUsesOnlyTheLayersBelowIt() {
        List<String> wrong = new ArrayList<>();
        graph.packageUses().forEach((pkg, used) -> {
            if (pkg.equals(API)) {
                return;
            }
            if (!pkg.startsWith(INTERNAL)) {
                // A tool over the public API (the doctor): the API only, like an application.
                used.stream().filter(u -> !u.equals(API)).forEach(u -> wrong.add(pkg + " uses " + u
                        + " (a package outside internal uses the public API only)"));
                return;
            }
            if (rank(pkg) < 0) {
                wrong.add(pkg + " is not one of the layers in LayersTest (add it where it belongs)");
                return;
            }
            for (String u : used) {
                if (u.equals(API)) {
                    continue;   // the public API's types (checked below: none of them reaches back in)
                }
                if (rank(u) <= rank(pkg)) {
                    wrong.add(pkg + " uses " + u + (KINDS.contains(pkg) && KINDS.contains(u)
                            ? " (one kind of id may not use another)" : " (a layer at or above it)"));
                }
            }
        });
        assertThat(wrong).isEmpty();
    }

    /**
     * The public file that assembles internals: RdmaCm (the dispatcher over the real port, and over
     * the in-memory port of its warm-up and of the cold-start training, which it checks is left empty).
     */
    private static final Set<String> ENTRIES = Set.of(API + ".RdmaCm");

    @Test
    void onlyRdmaCmOfThePublicApiUsesTheInternals() {
        List<String> wrong = new ArrayList<>();
        for (SourceGraph.Source s : graph.sources.values()) {
            boolean api = s.pkg().equals(API);
            for (String u : s.uses()) {
                SourceGraph.Source used = graph.sources.get(u);
                if (!s.pkg().startsWith(INTERNAL) && !ENTRIES.contains(s.key()) && used.pkg().startsWith(INTERNAL)) {
                    wrong.add(s.key() + " uses " + u);
                }
                if (s.pkg().startsWith(INTERNAL) && used.key().equals(API + ".RdmaCm")) {
                    wrong.add(s.key() + " uses RdmaCm (the top of the house)");
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void aLongClassSaysWhyAtItsTop() {
        List<String> wrong = new ArrayList<>();
        for (SourceGraph.Source s : graph.sources.values()) {
            if (s.lines() > LONG) {
                String head = read(s.path()).lines().limit(80).reduce("", (a, b) -> a + " " + b.replace("*", " "))
                        .replaceAll("\\s+", " ");
                if (!head.contains(LONG_REASON)) {
                    wrong.add(s.key() + " has " + s.lines() + " lines and no \"" + LONG_REASON + " ...\" at its top");
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void theCommittedPictureMatchesTheCode() throws IOException {
        String doc = render();
        if (Boolean.getBoolean("rdmacm4j.regenerateDocs")) {
            Files.writeString(DOC, doc, StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(DOC)).as("%s is missing; regenerate with -Drdmacm4j.regenerateDocs=true", DOC).isTrue();
        assertThat(read(DOC)).as("%s is out of date with the code; regenerate with ./mvnw -q -pl cm-core -am verify "
                + "-Drdmacm4j.regenerateDocs=true", DOC).isEqualTo(doc);
    }

    private String render() {
        StringBuilder b = new StringBuilder();
        b.append("# cm-core's rooms\n\n")
                .append("Generated from the code by `LayersTest` (cm-core's tests), which also fails if an import runs\n")
                .append("back up; regenerate with `./mvnw -q -pl cm-core -am verify -Drdmacm4j.regenerateDocs=true`.\n")
                .append("How to read it and where new work goes: [architecture.md](architecture.md#cm-cores-rooms).\n\n")
                .append("An arrow A --> B: a file of A uses a type of B. The public API (`org.rdmacm4j.cm.core`) is\n")
                .append("left out of the arrows: every package uses its types, and of its files only `RdmaCm` uses\n")
                .append("an internal package (`internal`, `internal.nativeport`, `internal.loop` for its default\n")
                .append("callback executor, `internal.training` for the in-memory connections of its warm-up and of\n")
                .append("the cold-start training).\n\n");
        b.append("```mermaid\nflowchart TD\n");
        for (String pkg : LAYERS.keySet()) {
            b.append("    ").append(id(pkg)).append("[\"").append(shortName(pkg)).append("<br/><small>")
                    .append(LAYERS.get(pkg)).append("</small>\"]\n");
        }
        graph.packageUses().forEach((pkg, used) -> {
            if (pkg.equals(API)) {
                return;
            }
            for (String u : used) {
                if (!u.equals(API)) {
                    b.append("    ").append(id(pkg)).append(" --> ").append(id(u)).append('\n');
                }
            }
        });
        // Classes, not their lines: a line count would make every edit regenerate the picture.
        b.append("```\n\n## Classes\n\n| package | classes |\n|---|---|\n");
        for (String pkg : LAYERS.keySet()) {
            b.append("| ").append(shortName(pkg)).append(" | ");
            b.append(String.join(", ", graph.sources.values().stream().filter(s -> s.pkg().equals(pkg))
                    .map(s -> "`" + s.name() + "`").toList()));
            b.append(" |\n");
        }
        return b.toString();
    }

    private static String shortName(String pkg) {
        return pkg.equals(INTERNAL) ? "internal" : "internal." + pkg.substring(INTERNAL.length() + 1);
    }

    private static String id(String pkg) {
        return shortName(pkg).replace('.', '_');
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
