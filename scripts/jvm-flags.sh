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
#                             spare CQs) reach that count inside the first storm; without it the warm
#                             storms ran 16-29 % faster and a warm connection used 6-7 % less CPU
#                             (s39-mhc1). -1 means "never" for invokers spun in this JVM and "at the
#                             first call" for those archived with a check, so the build's AOT cache
#                             must be trained with it too (s40-coldmh2: trained with it, the cold
#                             first connection is no slower; an untrained cache doubled it, s39-coldmh).
# RDMACM4J_JAVA_FLAGS, where a script honours it, replaces all of them.
rdmacm4j_launcher_flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC
  -Djava.lang.invoke.MethodHandle.CUSTOMIZE_THRESHOLD=-1)
