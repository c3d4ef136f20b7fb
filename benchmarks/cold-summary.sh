#!/usr/bin/env bash
# benchmarks/cold-summary.sh RESULTS_DIR: the cold group's figures from results.tsv (guest-driver.sh's
# cold_run and cold_echo) as min / median per implementation, and the ratios to C's first
# connection of the same boot (min to min, median to median). Pure awk over the results file.
set -euo pipefail
f="${1:?usage: cold-summary.sh RESULTS_DIR}/results.tsv"
awk -F'\t' '$1 ~ /^cold_/ && $4 != "" {v[$1 "\t" $2] = v[$1 "\t" $2] " " $4}
  END {
    for (k in v) {
      n = split(substr(v[k], 2), a, " "); asort(a)
      med = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      split(k, kk, "\t"); min[k] = a[1]; mid[k] = med; cnt[k] = n
      printf "%-28s %-14s n=%d  min %10.1f  median %10.1f  (%s)\n", kk[1], kk[2], n, a[1], med, substr(v[k], 2)
    }
    c = "cold_first_us\tC"
    if (c in min) {
      for (k in v) if (k ~ /^cold_first_us\t/ && k != c) {
        split(k, kk, "\t")
        printf "ratio to C, first connection: %-14s min %.1fx  median %.1fx\n", kk[2], min[k] / min[c], mid[k] / mid[c]
      }
    }
  }' "${f}" | sort
