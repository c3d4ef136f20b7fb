#!/usr/bin/env bash
# Guest job: perf samples (cpu-clock, call graphs) of ConnectCost's warm cycle, attached DELAY s into
# the run for DUR s, with the JIT's perf map; split per thread with benchmarks/perf_split.py OUT.
#   it/rig/guest.sh --timeout 1200 --out OUT -- bash benchmarks/perf-dso.sh OUT   [env J W K DELAY DUR]
set -u
export PATH=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin:$PATH
OUT=$1; J=${J:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/target/benchmarks.jar}; W=${W:-1000}; K=${K:-2500}; DELAY=${DELAY:-70}; DUR=${DUR:-40}
java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED \
  -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer \
  -cp $J org.rdmacm4j.benchmarks.ConnectCost 192.0.2.1 192.0.2.3 24400 $W $K > $OUT/cc.txt 2>&1 &
pid=$!
sleep $DELAY
grep -c . $OUT/cc.txt
perf record -e cpu-clock -F 997 -g -p $pid -o $OUT/perf.data -- sleep $DUR > $OUT/perf-record.txt 2>&1
wait $pid; echo java rc $?
ls -la /tmp/perf-$pid.map
perf report -i $OUT/perf.data --no-children --sort comm,dso --stdio -g none 2>/dev/null | grep -v "^$" | head -60 > $OUT/comm-dso.txt
perf report -i $OUT/perf.data --no-children --comm rdmacm4j-dispat --sort dso,sym --stdio -g none 2>/dev/null | grep -v "^$" | head -150 > $OUT/disp-sym.txt
perf report -i $OUT/perf.data --no-children --comm rdmacm4j-dispat --sort dso --stdio -g none 2>/dev/null | grep -v "^$" | head -40 > $OUT/disp-dso.txt
cp /tmp/perf-$pid.map $OUT/ 2>/dev/null
echo done
