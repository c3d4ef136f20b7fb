package org.rdmacm4j.cm.core.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which source file of cm-core uses which, read from the sources as text: a file uses another if
 * it names its type and either shares its package, imports it, or spells out its qualified name.
 * Comments and string literals are not read. Test support for {@link LayersTest}.
 */
final class SourceGraph {
    /** One main source file: its package, simple type name, lines, and the files it uses. */
    record Source(Path path, String pkg, String name, int lines, Set<String> uses) {
        String key() {
            return pkg + "." + name;
        }
    }

    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^import ([\\w.]+)\\.(\\w+);", Pattern.MULTILINE);
    private static final Pattern TYPE_NAME = Pattern.compile("(?<![\\w.])([A-Z]\\w*)\\b");
    private static final Pattern QUALIFIED = Pattern.compile("\\b(org\\.rdmacm4j\\.cm\\.core[\\w.]*?)\\.([A-Z]\\w*)\\b");

    final Map<String, Source> sources;

    private SourceGraph(Map<String, Source> sources) {
        this.sources = sources;
    }

    /** Reads every {@code .java} file under {@code root} but module-info and package-info. */
    static SourceGraph read(Path root) {
        Map<String, String> texts = new TreeMap<>();
        Map<String, String> packages = new HashMap<>();
        Map<String, Integer> lines = new HashMap<>();
        Map<String, Path> paths = new HashMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String file = p.getFileName().toString();
                if (file.equals("module-info.java") || file.equals("package-info.java")) {
                    continue;
                }
                String text = Files.readString(p, StandardCharsets.UTF_8);
                Matcher m = PACKAGE.matcher(text);
                if (!m.find()) {
                    throw new IllegalStateException(p + " has no package");
                }
                String key = m.group(1) + "." + file.substring(0, file.length() - ".java".length());
                texts.put(key, text);
                packages.put(key, m.group(1));
                lines.put(key, (int) text.lines().count());
                paths.put(key, p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Source> out = new TreeMap<>();
        for (Map.Entry<String, String> e : texts.entrySet()) {
            String key = e.getKey();
            String pkg = packages.get(key);
            String name = key.substring(pkg.length() + 1);
            String code = stripCommentsAndStrings(e.getValue());
            Set<String> uses = new TreeSet<>();
            Matcher imp = IMPORT.matcher(code);
            Set<String> imported = new TreeSet<>();
            while (imp.find()) {
                imported.add(imp.group(1) + "." + imp.group(2));
            }
            String body = code.replaceAll("(?m)^(package|import) .*$", "");
            Matcher t = TYPE_NAME.matcher(body);
            while (t.find()) {
                String simple = t.group(1);
                String samePackage = pkg + "." + simple;
                if (!simple.equals(name) && texts.containsKey(samePackage)) {
                    uses.add(samePackage);
                }
            }
            for (String i : imported) {
                if (texts.containsKey(i)) {
                    uses.add(i);
                } else {
                    // import of a nested type: the file is its outer type's
                    int dot = i.lastIndexOf('.');
                    if (dot > 0 && texts.containsKey(i.substring(0, dot))) {
                        uses.add(i.substring(0, dot));
                    }
                }
            }
            Matcher q = QUALIFIED.matcher(body);
            while (q.find()) {
                String k = q.group(1) + "." + q.group(2);
                if (texts.containsKey(k)) {
                    uses.add(k);
                }
            }
            uses.remove(key);
            out.put(key, new Source(paths.get(key), pkg, name, lines.get(key), uses));
        }
        return new SourceGraph(out);
    }

    private static String stripCommentsAndStrings(String s) {
        StringBuilder b = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '/' && i + 1 < s.length() && s.charAt(i + 1) == '/') {
                while (i < s.length() && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < s.length() && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? s.length() : end + 2;
            } else if (c == '"' || c == '\'') {
                boolean block = c == '"' && s.startsWith("\"\"\"", i);
                if (block) {
                    int end = s.indexOf("\"\"\"", i + 3);
                    i = end < 0 ? s.length() : end + 3;
                } else {
                    i++;
                    while (i < s.length() && s.charAt(i) != c) {
                        i += s.charAt(i) == '\\' ? 2 : 1;
                    }
                    i++;
                }
                b.append("\"\"");
            } else {
                b.append(c);
                i++;
            }
        }
        return b.toString();
    }

    /** The files that use each other in a loop, each loop as a sorted list (Tarjan's algorithm). */
    List<List<String>> cycles() {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<List<String>> out = new ArrayList<>();
        int[] counter = {0};
        for (String v : sources.keySet()) {
            if (!index.containsKey(v)) {
                strongConnect(v, index, low, stack, onStack, out, counter);
            }
        }
        return out;
    }

    private void strongConnect(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
                               Set<String> onStack, List<List<String>> out, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]);
        counter[0]++;
        stack.push(v);
        onStack.add(v);
        for (String w : sources.get(v).uses()) {
            if (!index.containsKey(w)) {
                strongConnect(w, index, low, stack, onStack, out, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            List<String> component = new ArrayList<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                component.sort(null);
                out.add(component);
            }
        }
    }

    /** Package to the packages its files use (other packages of cm-core only). */
    Map<String, Set<String>> packageUses() {
        Map<String, Set<String>> out = new TreeMap<>();
        for (Source s : sources.values()) {
            Set<String> used = out.computeIfAbsent(s.pkg(), k -> new TreeSet<>());
            for (String u : s.uses()) {
                String p = sources.get(u).pkg();
                if (!p.equals(s.pkg())) {
                    used.add(p);
                }
            }
        }
        return out;
    }
}
