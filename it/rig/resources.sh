# Sourced by guest-setup.sh (inside the guest) and by guest.sh (host mode): the
# `rdma resource show` snapshots that run-it.sh's suite-level leak check compares.

# Before the job: the resting counts. Returns non-zero if the tool fails.
rig_snapshot_resting() {
  timeout 30 rdma resource show > "$1/rdma-resting.txt"
}

# Whether two snapshots show the same counts per device name. The kernel's device index is left
# out: a device deleted and re-added under the same name (DeviceRemovalIT) gets a new index.
rig_same_resources() {
  [[ "$(sed -E 's/^[0-9]+: //' "$1")" == "$(sed -E 's/^[0-9]+: //' "$2")" ]]
}

# After the job: the kernel releases a finished process's objects asynchronously, so give it up
# to 15 s to get back to the resting counts before recording what the job left behind.
rig_snapshot_after() {
  local out="$1" settle=$((SECONDS + 15))
  while timeout 30 rdma resource show > "${out}/rdma-after.txt" 2>&1 \
        && ! rig_same_resources "${out}/rdma-after.txt" "${out}/rdma-resting.txt" && (( SECONDS < settle )); do
    sleep 0.5
  done
}
