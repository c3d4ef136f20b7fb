# Sourced by the rig's entry points: the checks they share, so each says the same thing the same
# way. Needs rig_die (kernel.sh) for the guest-side checks.

# rig_results_dir DIR REPO: creates DIR (the results share), prints its absolute path, and dies
# unless the guest can mount it: both paths go on the kernel command line (no white space or
# quotes there) and into QEMU's -virtfs option (no commas there), and DIR must lie inside the
# checkout REPO (the guest sees the checkout, not the rest of the host's writable files).
rig_results_dir() {
  local dir="$1" repo="$2" p
  mkdir -p "${dir}"
  dir=$(cd "${dir}" && pwd)
  for p in "${dir}" "${repo}"; do
    [[ "${p}" =~ ^[A-Za-z0-9_./@+:~%=-]+$ ]] \
      || rig_die "'${p}' has characters the guest's kernel command line or QEMU's -virtfs cannot carry (white space, quotes, commas); clone the checkout to a plainer path"
  done
  [[ "${dir}" == "${repo}"/* ]] || rig_die "results dir ${dir} must lie inside the checkout ${repo}"
  printf '%s\n' "${dir}"
}

# rig_require_build TARGET WHO: exits 2 (saying so as WHO) unless the it module was packaged
# (classes, test classes, the classpath file and the JUnit launcher); finds a JDK if none is set.
rig_require_build() {
  local target="$1" who="$2" f
  for f in "${target}/it-classpath.txt" "${target}/launcher/junit-console.jar" "${target}/classes" "${target}/test-classes"; do
    [[ -e "${f}" ]] || { echo "${who}: ${f} is missing: build first (./mvnw package -DskipTests)" >&2; exit 2; }
  done
  if [[ -z "${JAVA_HOME:-}" ]]; then
    # shellcheck source=../../scripts/find-jdk.sh
    source "$(cd "${target}/../.." && pwd)/scripts/find-jdk.sh"
    rdmacm4j_find_jdk
  fi
}

# rig_clock_cmdline: the guest kernel's clocksource words for its command line.
# Under QEMU/TCG the 6.1 kernel fails its TSC sync check between vCPUs ("Marking TSC unstable due
# to TSCs unsynchronized") and falls back to the emulated HPET: then clock_gettime is no vDSO call
# but a syscall plus an emulated MMIO read, 3.3 us per call against 76 ns on the TSC (measured in
# one guest each, 2026-11-23, benchmarks/target/clk in docs/benchmarks.md "Guest clocksource"). A
# JVM reads the clock tens of thousands of times where a C tool reads it a handful, and the
# kernel's own timekeeping pays the HPET too, so the default HPET guest misstates both sides
# against real hardware, where the TSC is the clocksource. TCG derives every vCPU's TSC from the
# host's invariant TSC (the guest calibrates it at the host's frequency), so it is trustworthy
# here. RDMACM4J_GUEST_CLOCK=kernel leaves the choice to the guest kernel (HPET).
rig_clock_cmdline() {
  case "${RDMACM4J_GUEST_CLOCK:-tsc}" in
    tsc) printf '%s' "clocksource=tsc tsc=reliable" ;;
    kernel) printf '%s' "" ;;
    *) rig_die "RDMACM4J_GUEST_CLOCK must be tsc or kernel, not '${RDMACM4J_GUEST_CLOCK}'" ;;
  esac
}

# rig_qemu_cpu_words: QEMU's accelerator, CPU model and vCPU count for the guest, one line.
#   RDMACM4J_GUEST_TCG  multi (default: one host thread per vCPU, MTTCG) or single
#                       (-accel tcg,thread=single: one host thread runs every vCPU in turn)
#   RDMACM4J_GUEST_SMP  vCPUs (default 2)
#   RDMACM4J_GUEST_CPU  -cpu model (default max); `qemu-system-x86_64 -cpu help` lists them
# docs/jit-stress.md has what each setting does to a tiered JVM in the guest (it/rig/jit-stress.sh).
rig_qemu_cpu_words() {
  local accel
  case "${RDMACM4J_GUEST_TCG:-multi}" in
    multi) accel=tcg,thread=multi ;;
    single) accel=tcg,thread=single ;;
    *) rig_die "RDMACM4J_GUEST_TCG must be multi or single, not '${RDMACM4J_GUEST_TCG}'" ;;
  esac
  [[ "${RDMACM4J_GUEST_SMP:-2}" =~ ^[1-9][0-9]*$ ]] \
    || rig_die "RDMACM4J_GUEST_SMP must be a vCPU count, not '${RDMACM4J_GUEST_SMP}'"
  [[ "${RDMACM4J_GUEST_CPU:-max}" =~ ^[A-Za-z0-9_.,=+-]+$ ]] \
    || rig_die "RDMACM4J_GUEST_CPU must be a QEMU -cpu model, not '${RDMACM4J_GUEST_CPU}'"
  printf '%s' "-accel ${accel} -cpu ${RDMACM4J_GUEST_CPU:-max} -smp ${RDMACM4J_GUEST_SMP:-2}"
}
