# Sourced by the guest-side benchmark scripts (guest-driver.sh, profile-setup.sh,
# compare-builds.sh); copied beside them by snapshot.sh.

# await_listen ADDRESS PORT: waits until an rdma_cm id listens on ADDRESS:PORT (rdma resource
# show), at most 60 s; returns 1 after that.
await_listen() {
  local deadline=$((SECONDS + 60))
  until timeout 10 rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q "$1:$2 "; do
    (( SECONDS < deadline )) || return 1
    sleep 0.2
  done
}
