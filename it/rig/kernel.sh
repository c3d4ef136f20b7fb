# Sourced by guest.sh. Finds Debian's current full amd64 kernel, fetches and unpacks it into a
# cache that outlives the checkout, and builds the initramfs that mounts the host's root.
#
# Sets: RIG_KVER (e.g. 6.1.0-56-amd64), RIG_KTREE (unpacked package root, /lib/modules inside),
#       RIG_VMLINUZ, RIG_INITRAMFS.
# Env:  RDMACM4J_CACHE (default ~/.cache/rdmacm4j), RDMACM4J_KERNEL_PACKAGE (override the
#       discovered package name; also how the "kernel cannot be found" failure is exercised).

rig_die() { echo "rig: FAILED: $*" >&2; exit 2; }

# The versioned image package the linux-image-amd64 metapackage points at. The "-cloud-amd64"
# flavour is refused: it ships no rdma_rxe.ko.
rig_kernel_package() {
  if [[ -n "${RDMACM4J_KERNEL_PACKAGE:-}" ]]; then
    echo "${RDMACM4J_KERNEL_PACKAGE}"; return
  fi
  local pkg
  pkg=$(rig_apt_retry rig_discover_kernel_package) \
    || rig_die "cannot discover Debian's kernel: 'apt-cache depends linux-image-amd64' names no linux-image-*-amd64 package"
  echo "${pkg}"
}

rig_discover_kernel_package() {
  local pkg
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null \
        | sed -n 's/^ *Depends: \(linux-image-[^ ]*-amd64\)$/\1/p' | grep -v cloud | head -n 1)
  [[ -n "${pkg}" ]] && echo "${pkg}"
}

# Runs an apt step; if it fails, refreshes the package lists once and runs it again (a new
# machine's lists may be missing, or older than the archive they name).
rig_apt_retry() {
  "$@" && return 0
  apt-get update -qq >&2 || true
  "$@"
}

rig_prepare_kernel() {
  local cache="${RDMACM4J_CACHE:-${HOME}/.cache/rdmacm4j}" pkg deb
  pkg=$(rig_kernel_package)
  [[ "${pkg}" == *cloud* ]] && rig_die "${pkg} is a cloud kernel: it has no rdma_rxe.ko; use the full amd64 flavour"
  # The guest mounts its own tmpfs over /tmp and /run, so a cache there would be invisible to
  # the guest's modprobe, unless it lies inside the checkout, which the guest gets as a share.
  local real repo
  real="$(realpath -m "${cache}")/"
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/"
  if [[ "${real}" == /tmp/* || "${real}" == /run/* ]] && [[ "${real}" != "${repo}"* ]]; then
    rig_die "the kernel cache ${cache} is under /tmp or /run, which the guest cannot see; set RDMACM4J_CACHE elsewhere"
  fi
  RIG_KTREE="${cache}/kernel/${pkg}"
  mkdir -p "${cache}/kernel"
  # Several rigs may start at once (a developer and a helper): one prepares, the others wait.
  exec {lock}>"${cache}/kernel/.lock"
  flock -w 600 "${lock}" || rig_die "timed out waiting for the kernel cache lock ${cache}/kernel/.lock"
  if [[ ! -f "${RIG_KTREE}/.complete" ]]; then
    echo "rig: fetching kernel package ${pkg} into ${cache}/kernel" >&2
    # An interrupted earlier run may have left a half-unpacked tree: start from nothing.
    rm -rf "${RIG_KTREE}" "${RIG_KTREE}.partial" "${cache}/kernel/download"
    mkdir -p "${cache}/kernel/download"
    (cd "${cache}/kernel/download" && rig_apt_retry apt-get -o APT::Sandbox::User=root download "${pkg}" >&2) \
      || rig_die "cannot download kernel package '${pkg}' with apt-get download (is it a real package? 'apt-cache policy ${pkg}')"
    deb=$(ls "${cache}/kernel/download"/*.deb 2>/dev/null | head -n 1)
    [[ -n "${deb}" ]] || rig_die "apt-get download ${pkg} produced no .deb"
    mkdir -p "${RIG_KTREE}.partial"
    dpkg -x "${deb}" "${RIG_KTREE}.partial" || rig_die "dpkg -x ${deb} failed"
    rm -rf "${cache}/kernel/download"
    mv "${RIG_KTREE}.partial" "${RIG_KTREE}"
    touch "${RIG_KTREE}/.complete"
  fi
  RIG_KVER=$(ls "${RIG_KTREE}/lib/modules" 2>/dev/null | head -n 1)
  [[ -n "${RIG_KVER}" ]] || rig_die "kernel package ${pkg} has no lib/modules/<version> in ${RIG_KTREE}"
  RIG_VMLINUZ="${RIG_KTREE}/boot/vmlinuz-${RIG_KVER}"
  [[ -f "${RIG_VMLINUZ}" ]] || rig_die "kernel package ${pkg} has no ${RIG_VMLINUZ#${RIG_KTREE}}"
  [[ -n "$(find "${RIG_KTREE}/lib/modules/${RIG_KVER}" -name 'rdma_rxe.ko*' -print -quit)" ]] \
    || rig_die "kernel ${RIG_KVER} ships no rdma_rxe module: soft-RoCE impossible with it"
  if [[ ! -f "${RIG_KTREE}/lib/modules/${RIG_KVER}/modules.dep.bin" ]]; then
    depmod -b "${RIG_KTREE}" "${RIG_KVER}" || rig_die "depmod -b ${RIG_KTREE} ${RIG_KVER} failed"
  fi
  rig_build_initramfs "${cache}"
  flock -u "${lock}"
}

# The initramfs holds static busybox, our /init and the modules needed to reach the 9p root,
# in the order modprobe's dependency resolution gives (so no list is hard-coded per kernel).
rig_build_initramfs() {
  local cache="$1" rigdir key work order line mod busybox
  rigdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  busybox=$(command -v busybox) || rig_die "busybox not found (apt-get install busybox-static)"
  key=$(cat "${rigdir}/initramfs-init" "${rigdir}/kernel.sh" "${busybox}" | sha256sum | cut -c1-16)
  RIG_INITRAMFS="${cache}/initramfs-${RIG_KVER}-${key}.cpio.gz"
  [[ -f "${RIG_INITRAMFS}" ]] && return 0
  echo "rig: building initramfs for ${RIG_KVER}" >&2
  work=$(mktemp -d)
  mkdir -p "${work}"/{bin,dev,proc,sys,newroot,modules}
  cp "${busybox}" "${work}/bin/busybox"
  file "${work}/bin/busybox" 2>/dev/null | grep -q 'dynamically linked' && rig_die "${busybox} is not static (apt-get install busybox-static)"
  cp "${rigdir}/initramfs-init" "${work}/init"
  chmod +x "${work}/init"
  order="${work}/modules/order"
  : > "${order}"
  while read -r line; do
    case "${line}" in
      insmod\ *)
        mod=$(echo "${line}" | awk '{print $2}')
        base=$(basename "${mod}"); base="${base%.xz}"; base="${base%.zst}"; base="${base%.gz}"
        [[ -f "${work}/modules/${base}" ]] && continue
        case "${mod}" in
          *.xz) xz -dc "${mod}" > "${work}/modules/${base}" ;;
          *.zst) zstd -qdc "${mod}" > "${work}/modules/${base}" ;;
          *.gz) gzip -dc "${mod}" > "${work}/modules/${base}" ;;
          *) cp "${mod}" "${work}/modules/${base}" ;;
        esac
        echo "${base}" >> "${order}" ;;
      builtin\ *) ;;
      *) rig_die "unexpected modprobe output: ${line}" ;;
    esac
  done < <(modprobe -d "${RIG_KTREE}" -S "${RIG_KVER}" --show-depends virtio_pci 2>&1;
           modprobe -d "${RIG_KTREE}" -S "${RIG_KVER}" --show-depends 9pnet_virtio 2>&1;
           modprobe -d "${RIG_KTREE}" -S "${RIG_KVER}" --show-depends 9p 2>&1)
  [[ -s "${order}" ]] || rig_die "found no virtio/9p modules in ${RIG_KTREE}"
  (cd "${work}" && find . | cpio -o -H newc --quiet | gzip -1) > "${RIG_INITRAMFS}.partial" \
    || rig_die "cpio of the initramfs failed"
  mv "${RIG_INITRAMFS}.partial" "${RIG_INITRAMFS}"
  rm -rf "${work}"
}
