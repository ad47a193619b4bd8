#!/bin/sh
# Runs a command with TMPDIR set to a folder of its own, removed afterwards, whatever the command's outcome: tests
# make scratch folders in the temporary directory (and so do the binaries they run), and a run should leave none of
# them in /tmp.
#
#   scripts/with-tmpdir.sh [--limit DURATION] swift test ...
#
# --limit stops the command (and every process it started) once it has run that long (`timeout`'s DURATION: 45m),
# and says so: a test that hangs then fails its stage, named by test-filter.awk's list of tests that started and did
# not end, rather than holding CI until its own limit ends the job with nothing said. For that list the command's
# output is line-buffered (`stdbuf`): the test binary's stdout, a pipe, otherwise keeps kilobytes that a stopped
# process never writes. Without `timeout` (macOS without coreutils) the command runs unlimited.
#
# Whatever the outcome, a PostgreSQL server a test started in the folder and did not stop (the test process was
# stopped or crashed) is stopped before the folder is removed: `pg_ctl` starts it outside the command's process
# group, so nothing else would.
set -u
limit=
if [ "${1:-}" = --limit ]; then
  limit=$2
  shift 2
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/ipalinks-test-XXXXXX") || exit 1
if [ -n "$limit" ] && command -v timeout >/dev/null; then
  # timeout runs the command in a process group of its own and signals the whole group: the test binary swift test
  # starts, and what the tests start, stop with it (PostgreSQL's servers apart: below).
  buffered=
  command -v stdbuf >/dev/null && buffered="stdbuf -oL"
  TMPDIR=$dir timeout --kill-after=30 "$limit" $buffered "$@"
  status=$?
  if [ $status -eq 124 ] || [ $status -eq 137 ]; then
    echo "with-tmpdir.sh: stopped after $limit, the limit of one run: $*" >&2
  fi
else
  TMPDIR=$dir "$@"
  status=$?
fi
for pidfile in "$dir"/*/data/postmaster.pid; do
  # The file's first line is the postmaster's process ID; SIGQUIT is PostgreSQL's immediate shutdown.
  [ -f "$pidfile" ] || continue
  pid=$(head -n 1 "$pidfile")
  kill -QUIT "$pid" 2>/dev/null || continue
  for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
done
rm -rf "$dir"
exit $status
