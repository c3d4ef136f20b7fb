// Reads every JUnit XML report of a run (host unit tests from Surefire, the rig self-check,
// the `it` suite and the outside project from the guest) and prints one line per source and a closing line
// "rdmacm4j: N passed, N failed, N skipped". Exit status 1 if anything failed, if any test was
// skipped (a skipped RDMA test is a test that could not fail), or if the guest suite produced
// no report at all (it must never pass by not running).
//
//   java scripts/TestSummary.java REPO_DIR

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

// The failed test cases of the run, "source: class.method: first line of the message", printed
// just above the closing line: CI keeps only the tail of the output, and a failure must name itself there.
final List<String> failedCases = new ArrayList<>();

record Counts(long tests, long failed, long skipped) {
    Counts plus(Counts o) { return new Counts(tests + o.tests, failed + o.failed, skipped + o.skipped); }
    long passed() { return tests - failed - skipped; }
}

Counts read(String source, Path xml) throws Exception {
    var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
    NodeList cases = doc.getElementsByTagName("testcase");
    for (int i = 0; i < cases.getLength(); i++) {
        Element c = (Element) cases.item(i);
        for (String kind : List.of("failure", "error")) {
            NodeList found = c.getElementsByTagName(kind);
            if (found.getLength() == 0) continue;
            Element f = (Element) found.item(0);
            String message = f.getAttribute("message").isEmpty() ? f.getTextContent() : f.getAttribute("message");
            String firstLine = message.strip().lines().findFirst().orElse("(no message)");
            if (firstLine.length() > 300) firstLine = firstLine.substring(0, 300) + "...";
            failedCases.add(source + ": " + c.getAttribute("classname") + "." + c.getAttribute("name") + ": " + firstLine);
        }
    }
    NodeList suites = doc.getElementsByTagName("testsuite");
    Counts sum = new Counts(0, 0, 0);
    for (int i = 0; i < suites.getLength(); i++) {
        Element s = (Element) suites.item(i);
        sum = sum.plus(new Counts(num(s, "tests"), num(s, "failures") + num(s, "errors"), num(s, "skipped")));
    }
    return sum;
}

long num(Element e, String attr) {
    String v = e.getAttribute(attr);
    return v.isEmpty() ? 0 : Long.parseLong(v);
}

List<Path> reports(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) return List.of();
    try (Stream<Path> files = Files.list(dir)) {
        return files.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml")).sorted().toList();
    }
}

void main(String[] args) throws Exception {
    Path repo = Path.of(args.length > 0 ? args[0] : ".");
    Map<String, Path> sources = new TreeMap<>();
    try (Stream<Path> modules = Files.list(repo)) {
        for (Path m : modules.sorted().toList()) {
            Path surefire = m.resolve("target/surefire-reports");
            if (Files.isDirectory(surefire)) sources.put("host " + m.getFileName(), surefire);
        }
    }
    // On a machine with its own RDMA (RDMACM4J_IT_MODE=host) no guest is booted, so the
    // rig's self-check does not apply; the it suite still must have run.
    if (!"host".equals(System.getenv("RDMACM4J_IT_MODE"))) {
        sources.put("rig self-check", repo.resolve("it/target/rig-selftest"));
    }
    sources.put("guest it", repo.resolve("it/target/it-reports"));
    // The separate Maven project that uses the installed artifacts (it/outside-project), run
    // in the guest job of run-it.sh: it must have run too.
    sources.put("outside project", repo.resolve("it/target/outside-project-reports"));

    Counts total = new Counts(0, 0, 0);
    List<String> problems = new ArrayList<>();
    for (var source : sources.entrySet()) {
        Counts c = new Counts(0, 0, 0);
        for (Path xml : reports(source.getValue())) c = c.plus(read(source.getKey(), xml));
        System.out.printf("  %-28s %4d run, %3d failed, %3d skipped%n", source.getKey(), c.tests(), c.failed(), c.skipped());
        if (c.tests() == 0 && !source.getKey().startsWith("host ")) problems.add(source.getKey() + " ran no test");
        if (c.skipped() > 0) problems.add(source.getKey() + " skipped " + c.skipped() + " test(s)");
        total = total.plus(c);
    }
    if (total.failed() > 0) problems.add(total.failed() + " test(s) failed");
    failedCases.forEach(f -> System.out.println("  failed test " + f));
    problems.forEach(p -> System.out.println("  FAILED: " + p));
    System.out.printf("rdmacm4j: %d passed, %d failed, %d skipped%n", total.passed(), total.failed(), total.skipped());
    if (!problems.isEmpty()) System.exit(1);
}
