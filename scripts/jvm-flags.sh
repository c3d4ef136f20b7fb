# Sourced by examples/launch.sh, it/outside-project/check.sh, benchmarks/aot-cache.sh and the
# benchmarks' guest scripts: the JVM flags the launchers run rdmacm4j with, in one place, so that
# the build's AOT cache (its key holds the flags), the examples and the benchmarks' "c1" rows are
# the same JVM. Chosen from the figures of issue 21 (docs/benchmarks.md):
#   -XX:TieredStopAtLevel=1   C1 only: a tool starts and settles fast; C2 compiling beside the
#                             dispatcher on a small machine costs the first thousands of connections.
#   -XX:+UseSerialGC          the examples mostly wait; no GC threads beside the dispatcher.
#   -Djava.lang.invoke.MethodHandle.CUSTOMIZE_THRESHOLD=-1
#                             no per-handle customization of method-handle invokers: under C1 every
#                             downcall handle called 128 times gets a lambda form of its own spun and
#                             compiled, and the CQ-creation handles that lone connections skip (the
#                             spare CQs) reach that count inside the first storm. With the property a
#                             warm connection took 7.8 % fewer user instructions (s39-ab1 against
#                             s40-ab1) and the warm storms ran 16-29 % faster in one boot (s39-mhc1;
#                             not resolved from the noise in s40-quiet1). -1 means "never" for invokers
#                             spun in this JVM and "at the first call" for those archived with a check,
#                             so the build's AOT cache must be trained with it too (s40-coldmh2, trained
#                             with it: the cold first connection 303 -> 189 ms median; an untrained
#                             cache doubled it, s39-coldmh).

rdmacm4j_launcher_flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC
  -Djava.lang.invoke.MethodHandle.CUSTOMIZE_THRESHOLD=-1)

# rdmacm4j_jvm_flags: sets jvm_flags to RDMACM4J_JAVA_FLAGS (word-split) when it is set, even empty
# (set and empty: the JDK's defaults; it/rig/run-it.sh passes the suite's flags so), else to the
# launchers' flags above.
rdmacm4j_jvm_flags() {
  if [[ -v RDMACM4J_JAVA_FLAGS ]]; then
    read -r -a jvm_flags <<< "${RDMACM4J_JAVA_FLAGS}"
  else
    jvm_flags=("${rdmacm4j_launcher_flags[@]}")
  fi
}
