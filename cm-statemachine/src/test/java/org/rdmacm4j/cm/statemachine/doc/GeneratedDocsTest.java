package org.rdmacm4j.cm.statemachine.doc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Markdown tables and Mermaid diagrams under docs/statemachine/ are generated from the code;
 * this test regenerates them and fails if the committed files differ, so they cannot drift.
 * Regenerate with {@code ./mvnw -q -pl cm-statemachine verify -Drdmacm4j.regenerateDocs=true}.
 */
class GeneratedDocsTest {
    private static final Path DOCS = Path.of("..", "docs", "statemachine");

    @Test
    void committedDocsMatchTheCode() throws IOException {
        Map<String, String> files = DocGenerator.render();
        assertThat(files).containsOnlyKeys("active.md", "passive.md", "listener.md", "ud.md");
        boolean regenerate = Boolean.getBoolean(DocGenerator.REGENERATE_PROPERTY);
        for (Map.Entry<String, String> f : files.entrySet()) {
            Path path = DOCS.resolve(f.getKey());
            if (regenerate) {
                Files.createDirectories(DOCS);
                Files.writeString(path, f.getValue(), StandardCharsets.UTF_8);
            }
            assertThat(Files.exists(path)).as("%s is missing; regenerate with ./mvnw -q -pl cm-statemachine verify -D%s=true",
                    path, DocGenerator.REGENERATE_PROPERTY).isTrue();
            assertThat(Files.readString(path, StandardCharsets.UTF_8))
                    .as("%s is out of date with the code; regenerate with ./mvnw -q -pl cm-statemachine verify -D%s=true",
                            path, DocGenerator.REGENERATE_PROPERTY)
                    .isEqualTo(f.getValue());
        }
    }

    @Test
    void everyMachineHasADiagramATableAndEveryPhase() {
        for (Catalog.Entry<?, ?> entry : Catalog.all()) {
            String md = DocGenerator.render().get(entry.machine().name() + ".md");
            assertThat(md).contains("```mermaid\nstateDiagram-v2\n").contains("## Transitions");
            for (Enum<?> p : entry.machine().phaseType().getEnumConstants()) {
                assertThat(md).contains("### " + p.name() + "\n");
            }
        }
    }
}
