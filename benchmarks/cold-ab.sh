#!/bin/bash
# Guest side of a cold A/B on CmBench latency (the cold group's program): per repetition C's
# cm_event_loop latency 3, then each variant's `CmBench latency ... 3` in a fresh JVM under the
# launchers' C1 flags, order reversed on every other repetition, one uncounted JVM first; each
# variant's jar and AOT cache copied into the guest's tmpfs first (as guest-driver.sh's cold group).
#   it/rig/guest.sh --out OUT -- env PATH=<jdk>/bin:/usr/bin:/bin REPS=5 \
#     VARIANTS='base=DIR_A:AOT new=DIR_B:AOT x=DIR_B:AOT~-XX:Flag' bash benchmarks/cold-ab.sh OUT
# DIR holds benchmarks.jar and its benchmarks-*.aot; in the flags AOT maps that cache (and logs
# -Xlog:aot), LOG is OUT/NAME-rREP, ~ separates flags. OUT/bin/cm_event_loop is C's loop;
# OUT/variants and OUT/reps, if present, override VARIANTS and REPS (for a job waiting for the guest).
# Writes OUT/ab.txt ("rREP NAME FIRST_US"); summary: python3 benchmarks/cold_ab_summary.py OUT/ab.txt
set -u
OUT=$1; REPS=${REPS:-5}; [[ -f $OUT/reps ]] && REPS=$(cat $OUT/reps)
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/jvm-flags.sh"   # the launchers' flags, as the cold group runs them
C1="${rdmacm4j_launcher_flags[*]} --enable-native-access=ALL-UNNAMED"
port=25000
[[ -f $OUT/variants ]] && VARIANTS=$(cat $OUT/variants)
read -r -a vs <<< "$VARIANTS"
for v in "${vs[@]}"; do
  name=${v%%=*}; rest=${v#*=}; dir=${rest%%:*}
  if [[ ! -d /tmp/c/$name ]]; then mkdir -p /tmp/c/$name; cp -p $dir/benchmarks.jar /tmp/c/$name/; cp -p $dir/benchmarks-*.aot /tmp/c/$name/benchmarks.aot 2>/dev/null; fi
done
$OUT/bin/cm_event_loop latency 192.0.2.1 192.0.2.3 $((port++)) 1 > /dev/null 2>&1
run_v() {
  local v=$1 r=$2 name rest flags f w words=()
  name=${v%%=*}; rest=${v#*=}; flags=${rest#*:}
  # ~-separated words: a word that is exactly AOT maps the cache (a flag such as -XX:AOTMode=on
  # passes unchanged; s41-coldab's first run substituted inside it), LOG anywhere in a word is the log prefix
  IFS='~' read -r -a words <<< "$flags"
  flags=""
  for w in "${words[@]}"; do
    [[ $w == AOT ]] && w="-XX:AOTCache=/tmp/c/$name/benchmarks.aot -Xlog:aot=info:file=$OUT/$name-r$r.aot"
    flags+="${w//LOG/$OUT/$name-r$r} "
  done
  f=$OUT/$name-r$r.txt
  timeout -k 5 300 java $C1 $flags -cp /tmp/c/$name/benchmarks.jar org.rdmacm4j.benchmarks.CmBench latency 192.0.2.1 192.0.2.3 $((port++)) 3 > $f 2>&1
  echo "r$r $name $(grep '^latency_us 0' $f | awk '{print $3}')"
}
first=${vs[0]}
run_v "$first" 0 > /dev/null   # uncounted
for r in $(seq 1 $REPS); do
  $OUT/bin/cm_event_loop latency 192.0.2.1 192.0.2.3 $((port++)) 3 > $OUT/C-r$r.txt 2>&1
  echo "r$r C $(grep '^latency_us 0' $OUT/C-r$r.txt | awk '{print $3}')"
  if (( r % 2 )); then order=("${vs[@]}"); else order=(); for ((i=${#vs[@]}-1;i>=0;i--)); do order+=("${vs[i]}"); done; fi
  for v in "${order[@]}"; do run_v "$v" $r; done
done 2>&1 | tee $OUT/ab.txt
