package org.rdmacm4j.cm.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.attribute.InnerClassInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * No capturing lambda or bound method reference on a connection's path through these classes. The
 * launchers run C1 only ({@code -XX:TieredStopAtLevel=1}), and under C1 making a capturing lambda
 * ({@code () -> x.foo(y)}, {@code this::bar}) goes through {@code DirectMethodHandle.allocateInstance}
 * to {@code Unsafe.allocateInstance}, a native call C1 cannot inline: 32-35 ns on the host against
 * 1.2 ns for {@code new} of a named class, about 0.5 µs in the soft-RoCE guest, and some 25,000 guest
 * instructions per connect + close cycle before these classes made named classes instead
 * (docs/benchmarks.md, "Capturing lambdas under C1"). A non-capturing lambda is made once and costs
 * nothing, so only capturing sites count.
 *
 * <p>This reads the compiled classes (and their nested classes) and fails on a
 * {@code LambdaMetafactory} call site whose lambda captures (its invocation type takes parameters) in
 * any method but the ones listed for that class, which run once per port or thread, or only on a
 * rare or failing path. A lambda's body is a synthetic {@code lambda$m$n}, counted as {@code m}'s.
 * A new site fails here: make it a small named class (a record implementing the interface) or a
 * field made once; or, if its method is one of the rare kind, list it with why.
 */
class HotPathLambdasTest {
    private static final String P = "org.rdmacm4j.cm.core.internal.";
    private static final String LAMBDA_METAFACTORY = "Ljava/lang/invoke/LambdaMetafactory;";

    /** Class (binary name) -> its methods that may make capturing lambdas, each with why. */
    private static final Map<String, Map<String, String>> HOT = hot();

    private static Map<String, Map<String, String>> hot() {
        Map<String, Map<String, String>> m = new LinkedHashMap<>();
        m.put(P + "Dispatcher", Map.of("shutdown", "once per RdmaCm"));
        m.put(P + "loop.EventLoop", Map.of("<init>", "the dispatcher thread, once per RdmaCm"));
        m.put(P + "loop.CallbackThreads", Map.of());
        m.put(P + "loop.SerialExecutor", Map.of());
        m.put(P + "loop.TaskQueue", Map.of());
        m.put(P + "loop.TimerQueue", Map.of());
        m.put(P + "nativeport.VerbsCmPort", Map.of("<init>", "holdsAnything, made once per port"));
        m.put(P + "poll.CompletionPoller", Map.of("<init>", "the poller thread, once per poller"));
        m.put(P + "id.CmFuture", Map.of());
        m.put(P + "id.Completions", Map.of());
        m.put(P + "id.IdDriver", Map.of());
        m.put(P + "id.NativeCalls", Map.of());
        m.put(P + "id.IdEngine", Map.of(
                "crash", "a bug inside the dispatcher",
                "logUnexpected", "a debug line, built only if logged, for an input the machine did not expect"));
        m.put(P + "connection.Connections", Map.of(
                "unexplainedFlush", "the QP went to ERR unexplained: the connection is failing",
                "judgeAfterGrace", "an unexplained flush or a keepalive verdict: the connection is failing"));
        m.put(P + "connection.ConnectionImpl", Map.of(
                "dataPathFailed", "the data path failed",
                "peerUnresponsive", "the keepalive gave up"));
        m.put(P + "connection.DataPath", Map.of("maybeGrant", "the debug line of a grant that could not be posted"));
        m.put(P + "connection.OneSided", Map.of());
        m.put(P + "listener.Listeners", Map.of(
                "listen", "once per listener",
                "reject", "a request refused",
                "refuseQueued", "a queued request refused as its listener closes",
                "notice", "a listener's address change or device removal",
                "listenerNotice", "a listener's address change or device removal"));
        m.put(P + "listener.ListenerImpl", Map.of("closeQueue", "once per listener, as it closes"));
        return m;
    }

    @Test
    void noCapturingLambdaOnAConnectionsPath() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (var e : HOT.entrySet()) {
            Map<String, String> allowed = e.getValue();
            Set<String> used = new TreeSet<>();
            for (ClassModel model : withNested(e.getKey())) {
                for (String method : capturingSites(model)) {
                    boolean outer = model.thisClass().asInternalName().equals(internalName(e.getKey()));
                    if (outer && allowed.containsKey(method)) {
                        used.add(method);
                    } else {
                        wrong.add(model.thisClass().asInternalName() + "." + method);
                    }
                }
            }
            for (String method : allowed.keySet()) {
                if (!used.contains(method)) {
                    wrong.add(e.getKey() + "." + method + " is allowed a capturing lambda and has none any more: "
                            + "take it off the list");
                }
            }
        }
        assertThat(wrong).as("capturing lambdas made on a connection's path (see this test's Javadoc)").isEmpty();
    }

    /** The check itself: it sees a capturing lambda, names its enclosing method, and ignores a non-capturing one. */
    @Test
    void theCheckSeesACapturingLambdaAndOnlyThat() throws IOException {
        assertThat(capturingSites(parse(internalName(Fixture.class.getName()))))
                .containsExactly("captures", "capturesInside");
    }

    @SuppressWarnings("unused")   // read as a class file only
    private static final class Fixture {
        Supplier<String> captures(String s) {
            return () -> s;
        }

        Supplier<Supplier<String>> capturesInside() {
            return () -> {
                String s = toString();
                return () -> s;
            };
        }

        Supplier<String> doesNotCapture() {
            return () -> "constant";
        }
    }

    /** The enclosing methods of the capturing LambdaMetafactory sites of {@code model}, once each. */
    private static Set<String> capturingSites(ClassModel model) {
        Set<String> methods = new TreeSet<>();
        for (IndySites.Site site : IndySites.of(model)) {
            if (site.bootstrapOwner().equals(LAMBDA_METAFACTORY) && site.indy().typeSymbol().parameterCount() > 0) {
                methods.add(enclosing(site.method().methodName().stringValue()));
            }
        }
        return methods;
    }

    /** {@code lambda$m$n} is {@code m}'s body ({@code new}: a constructor's, {@code static}: the initializer's). */
    private static String enclosing(String method) {
        if (!method.startsWith("lambda$")) {
            return method;
        }
        String m = method.substring("lambda$".length(), method.lastIndexOf('$'));
        return switch (m) {
            case "new" -> "<init>";
            case "static" -> "<clinit>";
            default -> m;
        };
    }

    /** The class and, recursively, the classes declared in it: members, local and anonymous classes. */
    private static List<ClassModel> withNested(String binaryName) throws IOException {
        List<ClassModel> all = new ArrayList<>();
        collect(internalName(binaryName), all, new TreeSet<>());
        return all;
    }

    private static void collect(String internalName, List<ClassModel> into, Set<String> seen) throws IOException {
        if (!seen.add(internalName)) {
            return;
        }
        ClassModel model = parse(internalName);
        into.add(model);
        var inner = model.findAttribute(Attributes.innerClasses());
        if (inner.isEmpty()) {
            return;
        }
        for (InnerClassInfo info : inner.get().classes()) {
            String name = info.innerClass().asInternalName();
            // A member names its outer class; a local or anonymous one names none, only its own $-name.
            boolean declaredHere = info.outerClass().map(o -> o.asInternalName().equals(internalName))
                    .orElse(name.startsWith(internalName + "$"));
            if (declaredHere) {
                collect(name, into, seen);
            }
        }
    }

    private static ClassModel parse(String internalName) throws IOException {
        try (InputStream in = HotPathLambdasTest.class.getResourceAsStream("/" + internalName + ".class")) {
            assertThat(in).as("the class file of %s (renamed or moved? update this test's list)", internalName)
                    .isNotNull();
            return ClassFile.of().parse(in.readAllBytes());
        }
    }

    private static String internalName(String binaryName) {
        return binaryName.replace('.', '/');
    }
}
