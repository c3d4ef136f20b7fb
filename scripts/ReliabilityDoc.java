// Writes docs/reliability.md from the scenario tables the integration suite's reliability tests
// wrote in their last run (it/target/it-reports/reliability-*.md, each written only by a test
// that passed). Scenarios without a table in this run keep the section they had, so a partial run
// (RDMACM4J_IT_SELECT) refreshes what it ran and nothing else. The hand-written block of on-demand
// figures (between its markers, after the header) is kept as it is. Exit 0 also when there is nothing
// to write: a run without reliability tests changes nothing.
//
//   java scripts/ReliabilityDoc.java REPO_DIR

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

static final String HEADER = """
        # Reliability

        What rdmacm4j promises is "never hangs, never leaks, loses nothing". This page holds the
        figures of the fault scenarios that prove it over real soft-RoCE. Every section between the
        markers is written by the test named in it (`scripts/ReliabilityDoc.java`, run by
        `./run-tests`), from a run in which that test passed; edit the tests, not the tables.
        Guest figures are from QEMU/TCG: compare them with the configured bounds, not with hardware.

        Reading the detection times: a keepalive's bound is `(misses + 1) x period + 200 ms` (the
        dispatcher's grace on the verdict); the tests allow
        1.5 s on top for TCG's scheduling (the poller's tick, the callback's hop), and the figures
        show how much of it was used. In the two-host scenarios the time runs from role a's fault
        request: for QEMU faults (link cut, host death) the rig acts on requests within its 0.5 s
        poll interval, so those figures include up to that interval before the fault really
        happened; faults made on host b (process kill, `ip link`, `rdma link delete`) are asked for
        over the roles' command socket, a round trip of milliseconds. After every two-host scenario
        both surviving hosts are checked at rest (host b on request, then by the rig at the end). rxe counts a transport `retry_cnt` of 7
        (CmTuning's default) as "retry forever" (`rxe_comp.c`), so on rxe only the keepalive, or a
        smaller retry count, ends a connection to a silent peer.
        """;
/** Figures of on-demand runs (not the suite's), written by hand between these markers and kept as they are. */
static final Pattern HAND_WRITTEN = Pattern.compile(
        "<!-- hand-written: on-demand runs -->\\n.*?<!-- end hand-written -->\\n", Pattern.DOTALL);
static final Pattern SECTION = Pattern.compile(
        "<!-- scenario (\\S+) -->\\n(.*?)<!-- end (\\1) -->\\n", Pattern.DOTALL);

void main(String[] args) throws Exception {
    Path repo = Path.of(args.length > 0 ? args[0] : ".");
    Path reports = repo.resolve("it/target/it-reports");
    Path doc = repo.resolve("docs/reliability.md");
    Map<String, String> sections = new TreeMap<>();
    String handWritten = "";
    if (Files.exists(doc)) {
        Matcher h = HAND_WRITTEN.matcher(Files.readString(doc));
        if (h.find()) {
            handWritten = h.group();
        }
        Matcher m = SECTION.matcher(Files.readString(doc));
        while (m.find()) {
            sections.put(m.group(1), m.group(2));
        }
    }
    int fresh = 0;
    if (Files.isDirectory(reports)) {
        try (var files = Files.list(reports)) {
            for (Path p : files.filter(f -> f.getFileName().toString().matches("reliability-[a-z0-9-]+\\.md")).toList()) {
                String name = p.getFileName().toString().replaceAll("^reliability-|\\.md$", "");
                String body = Files.readString(p);
                sections.put(name, body.endsWith("\n") ? body : body + "\n");
                fresh++;
            }
        }
    }
    if (fresh == 0) {
        System.out.println("reliability: no scenario tables in this run; docs/reliability.md left as it is");
        return;
    }
    StringBuilder out = new StringBuilder(HEADER);
    if (!handWritten.isEmpty()) {
        out.append('\n').append(handWritten);
    }
    sections.forEach((name, body) -> out.append('\n').append("<!-- scenario ").append(name).append(" -->\n")
            .append(body).append("<!-- end ").append(name).append(" -->\n"));
    Files.writeString(doc, out.toString());
    System.out.println("reliability: docs/reliability.md written (" + fresh + " scenario table(s) from this run, "
            + sections.size() + " in all)");
}
