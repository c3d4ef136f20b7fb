#!/usr/bin/env bash
# benchmarks/cold-summary.sh RESULTS_DIR: the cold group's figures from results.tsv (guest-driver.sh's
# cold_run and cold_echo) as min / median per implementation, and the ratios to C's first
# connection of the same boot (min to min, median to median).
set -euo pipefail
f="${1:?usage: cold-summary.sh RESULTS_DIR}/results.tsv"
stats() {   # stats FIGURE IMPL: "n min median values..." of FIGURE for IMPL
  awk -F'\t' -v fig="$1" -v impl="$2" '$1 == fig && $2 == impl && $4 != "" {print $4}' "${f}" | sort -g |
    awk '{a[NR] = $1; all = all " " $1} END {if (NR == 0) exit; m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2;
      printf "%d %.1f %.1f%s\n", NR, a[1], m, all}'
}
awk -F'\t' '$1 ~ /^cold_/ {print $1 "\t" $2}' "${f}" | sort -u | while IFS=$'\t' read -r fig impl; do
  read -r n min med vals <<< "$(stats "${fig}" "${impl}")"
  printf '%-28s %-14s n=%s  min %10s  median %10s  (%s)\n' "${fig}" "${impl}" "${n}" "${min}" "${med}" "${vals}"
done
read -r _ cmin cmed _ <<< "$(stats cold_first_us C)"
for impl in rdmacm4j rdmacm4j-aot; do
  s=$(stats cold_first_us "${impl}"); [[ -n ${s} ]] || continue
  read -r _ min med _ <<< "${s}"
  echo "ratio to C's first connection: ${impl} min $(echo "scale=1; ${min} / ${cmin}" | bc)x, median $(echo "scale=1; ${med} / ${cmed}" | bc)x"
done
