# Sourced by run-demo, run-tests and .ci/run: exports JAVA_HOME pointing at a JDK >= 25.
# Order: $JAVA_HOME if it is 25+, else the newest 25+ JDK under /usr/lib/jvm. No JDK: a clear
# message and a non-zero return.

rdmacm4j_java_major() {  # $1 = JDK home; prints its feature version, or nothing
  local release="$1/release" v=""
  [[ -x "$1/bin/java" && -x "$1/bin/javac" ]] || return 0
  if [[ -f "${release}" ]]; then
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "${release}")
  fi
  if [[ -z "${v}" ]]; then
    v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 \
        | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p')
  fi
  echo "${v}"
}

rdmacm4j_find_jdk() {
  local required=25 candidate major best="" best_major=0
  if [[ -n "${JAVA_HOME:-}" ]]; then
    major=$(rdmacm4j_java_major "${JAVA_HOME}")
    if [[ -n "${major}" && "${major}" -ge "${required}" ]]; then
      export JAVA_HOME PATH="${JAVA_HOME}/bin:${PATH}"
      return 0
    fi
    echo "rdmacm4j: JAVA_HOME=${JAVA_HOME} is not a JDK ${required}+ (found: ${major:-none}); looking under /usr/lib/jvm" >&2
  fi
  for candidate in /usr/lib/jvm/*/; do
    candidate="${candidate%/}"
    [[ -L "${candidate}" ]] && continue
    major=$(rdmacm4j_java_major "${candidate}")
    if [[ -n "${major}" && "${major}" -ge "${required}" && "${major}" -gt "${best_major}" ]]; then
      best="${candidate}"; best_major="${major}"
    fi
  done
  if [[ -z "${best}" ]]; then
    cat >&2 <<MSG
rdmacm4j: no JDK ${required} or newer found.
  Looked at: JAVA_HOME (${JAVA_HOME:-unset}) and every JDK under /usr/lib/jvm.
  Install one (for example Eclipse Temurin 25 or OpenJDK 25) under /usr/lib/jvm,
  or point JAVA_HOME at it, and run this command again.
MSG
    return 1
  fi
  export JAVA_HOME="${best}"
  export PATH="${JAVA_HOME}/bin:${PATH}"
}
