#!/bin/sh
# valgrind-daemon.sh: the daemon under valgrind memcheck, for the HTTP suite
# (tests/valgrind.sh sets NOISETILE_BIN to this script). exec, so SIGTERM
# from the test harness reaches valgrind, which passes it to the daemon; the
# exit status is 1 on any memcheck error or definite/indirect leak.
# shellcheck disable=SC2086
exec valgrind ${NOISETILE_VALGRIND_OPTS:---tool=memcheck --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1} \
  "${NOISETILE_VG_DAEMON:?set by tests/valgrind.sh}" "$@"
