#!/usr/bin/env bash
# Installs, by Debian package name, what building and testing rdmacm4j needs and the machine
# lacks: the rdma-core headers and tools (the layout test compiles against the headers), and
# everything the soft-RoCE guest rig uses. Idempotent and quiet when all is present.
set -euo pipefail
packages=(
  gcc libc6-dev
  qemu-system-x86 busybox-static cpio kmod iproute2 iputils-ping xz-utils zstd
  rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest libibverbs-dev librdmacm-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
if [[ $(id -u) -ne 0 ]]; then
  echo "rdmacm4j: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
  exit 1
fi
echo "rdmacm4j: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
