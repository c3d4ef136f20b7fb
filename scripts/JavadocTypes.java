// Fails (exit 1) if a public type of a module's API has no Javadoc comment. The API is what the
// module exports: the packages of module-info.java's unqualified `exports`; in them, every public
// top-level type and every nested type that is public or declared in an interface (implicitly
// public). Javadoc's own doclint "missing" group cannot be limited to types (it also wants every
// method, enum constant and record component), so the build runs Javadoc with all doclint groups
// but that one and fails on any warning, and this check keeps every public type documented.
//
//   java scripts/JavadocTypes.java MODULE/src/main/java
//
// Run by Maven (exec-maven-plugin, phase verify) in each published module; parse only, no
// compilation, a second or two.

import com.sun.source.doctree.DocCommentTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExportsTree;
import com.sun.source.tree.ModuleTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.ToolProvider;

void main(String[] args) throws Exception {
    if (args.length != 1) {
        System.err.println("usage: java scripts/JavadocTypes.java MODULE/src/main/java");
        System.exit(2);
    }
    Path root = Path.of(args[0]);
    List<Path> sources;
    try (Stream<Path> files = Files.walk(root)) {
        sources = files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
    if (!sources.contains(root.resolve("module-info.java"))) {
        System.err.println("javadoc-types: no module-info.java in " + root + ": cannot tell the API");
        System.exit(2);
    }
    var compiler = ToolProvider.getSystemJavaCompiler();
    try (var fm = compiler.getStandardFileManager(null, null, null)) {
        var task = (JavacTask) compiler.getTask(null, fm, null, List.of("-proc:none"), null,
                fm.getJavaFileObjectsFromPaths(sources));
        List<CompilationUnitTree> units = new ArrayList<>();
        task.parse().forEach(units::add);
        DocTrees docs = DocTrees.instance(task);

        Set<String> exported = new HashSet<>();
        for (CompilationUnitTree unit : units) {
            ModuleTree module = unit.getModule();
            if (module == null) continue;
            module.getDirectives().stream()
                    .filter(d -> d instanceof ExportsTree e && e.getModuleNames() == null)
                    .forEach(d -> exported.add(((ExportsTree) d).getPackageName().toString()));
        }

        List<String> undocumented = new ArrayList<>();
        int checked = 0;
        for (CompilationUnitTree unit : units) {
            if (unit.getPackageName() == null || !exported.contains(unit.getPackageName().toString())) continue;
            var scanner = new TreePathScanner<Void, Boolean>() {
                int types;
                @Override public Void visitClass(ClassTree type, Boolean inInterface) {
                    boolean api = type.getModifiers().getFlags().contains(Modifier.PUBLIC) || Boolean.TRUE.equals(inInterface);
                    if (!api) return null;   // a non-public type hides everything inside it
                    types++;
                    TreePath path = getCurrentPath();
                    DocCommentTree doc = docs.getDocCommentTree(path);
                    if (doc == null || (doc.getFullBody().isEmpty() && doc.getBlockTags().isEmpty())) {
                        long line = unit.getLineMap().getLineNumber(docs.getSourcePositions().getStartPosition(unit, type));
                        undocumented.add(Path.of(unit.getSourceFile().toUri()) + ":" + line + ": " + type.getKind().name().toLowerCase() + " " + type.getSimpleName());
                    }
                    boolean iface = type.getKind() == Tree.Kind.INTERFACE || type.getKind() == Tree.Kind.ANNOTATION_TYPE;
                    for (Tree member : type.getMembers()) scan(new TreePath(path, member), iface);
                    return null;
                }
                // Types inside method bodies or initialisers are never API.
                @Override public Void visitMethod(com.sun.source.tree.MethodTree m, Boolean p) { return null; }
                @Override public Void visitVariable(com.sun.source.tree.VariableTree v, Boolean p) { return null; }
                @Override public Void visitBlock(com.sun.source.tree.BlockTree b, Boolean p) { return null; }
            };
            scanner.scan(unit, false);
            checked += scanner.types;
        }
        undocumented.forEach(u -> System.out.println("javadoc-types: no Javadoc comment: " + u));
        System.out.printf("javadoc-types: %s: %d public types in %d exported packages, %d without Javadoc%n",
                root, checked, exported.size(), undocumented.size());
        if (!undocumented.isEmpty()) System.exit(1);
    }
}
