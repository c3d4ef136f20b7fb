# Sourced by examples/launch.sh, benchmarks/aot-cache.sh and benchmarks/guest-driver.sh: the AOT
# cache key and the build-time cache (JEP 483/514/515), shared so that a cache made at package time
# is found by exactly the commands it was made for. Needs JAVA_HOME.

# rdmacm4j_aot_key FLAGS PATH: 16 hex digits naming what a cache depends on: the JDK (its path and
# its modules image's size and time), the JVM flags, and each entry of PATH (a class or module path,
# colon-separated) by its base name, size and modification time (directories: every file in them).
# Base names, not full paths: the JVM accepts a cache for a copy of the same jars at another place
# (benchmarks/snapshot.sh copies them with their times, `cp -p`), and so does the key.
rdmacm4j_aot_key() {
  local flags=$1 path=$2 e entries
  {
    readlink -f "${JAVA_HOME}"; stat -L -c '%s %Y' "${JAVA_HOME}/lib/modules"; echo "${flags}"
    IFS=: read -r -a entries <<< "${path}"
    for e in "${entries[@]}"; do
      if [[ -d ${e} ]]; then
        echo "dir ${e##*/}"; (cd "${e}" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort)
      else
        echo "${e##*/} $(stat -L -c '%s %Y' "${e}")"
      fi
    done
  } | sha256sum | cut -c1-16
}

# rdmacm4j_aot_build CACHE -- JAVA FLAGS... -- APP...: makes CACHE at package time from one
# training run (JAVA FLAGS... -XX:AOTCacheOutput=CACHE.tmp APP..., JDK 25's one-step training,
# JEP 514, with method profiles, JEP 515), then checks that the JVM maps it with the same command
# (-XX:AOTMode=on makes a cache the JVM cannot use an error instead of a silent fallback; the run
# gets APP... plus the single argument "1": one connection) and renames it into place. On failure
# it leaves no CACHE and returns 1, the JVM's output in CACHE.build.log.
rdmacm4j_aot_build() {
  local cache=$1 java=() app=() log="$1.build.log" tmp="$1.tmp.$$"
  shift 2
  while [[ $1 != -- ]]; do java+=("$1"); shift; done; shift
  app=("$@")
  mkdir -p "$(dirname "${cache}")"
  rm -f "${cache}" "${tmp}"
  {
    echo "# training: ${java[*]} -XX:AOTCacheOutput=${tmp} ${app[*]}"
    "${java[@]}" -XX:AOTCacheOutput="${tmp}" "${app[@]}" 2>&1 || { echo "# the training run failed"; return 1; }
    [[ -s ${tmp} ]] || { echo "# the training run made no cache"; return 1; }
    echo "# check: ${java[*]} -XX:AOTCache=${tmp} -XX:AOTMode=on -Xlog:aot ${app[*]} 1"
    local check
    check=$("${java[@]}" -XX:AOTCache="${tmp}" -XX:AOTMode=on -Xlog:aot=info "${app[@]}" 1 2>&1) \
      || { echo "${check}"; echo "# the JVM did not accept the cache"; return 1; }
    echo "${check}"
    grep -q 'Opened AOT cache' <<< "${check}" && ! grep -q '\[error' <<< "${check}" \
      || { echo "# the JVM's log does not say it opened the cache cleanly"; return 1; }
  } > "${log}" 2>&1 || { rm -f "${tmp}" "${tmp}.config"; return 1; }
  mv -f "${tmp}" "${cache}"
}
