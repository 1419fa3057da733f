# Shell functions shared by scripts/fresh-test.sh and scripts/image-test.sh
# (sourced, not run).

# daemon_pid PID: the noisetile process below PID. chroot isolation has no
# PID namespace, so a daemon started by `buildah run` is a host process
# below buildah's: signal it directly (buildah run would SIGKILL its child
# if signalled itself).
daemon_pid() {
  local c d
  for c in $(pgrep -P "$1"); do
    if [ "$(cat "/proc/$c/comm" 2>/dev/null)" = noisetile ]; then echo "$c"; return 0; fi
    d=$(daemon_pid "$c") && { echo "$d"; return 0; }
  done
  return 1
}
