#!/bin/sh
# Runs a command with TMPDIR set to a folder of its own, removed afterwards, whatever the command's outcome: tests
# make scratch folders in the temporary directory (and so do the binaries they run), and a run should leave none of
# them in /tmp.
#
#   scripts/with-tmpdir.sh swift test ...
set -u
dir=$(mktemp -d "${TMPDIR:-/tmp}/ipalinks-test-XXXXXX") || exit 1
TMPDIR=$dir "$@"
status=$?
rm -rf "$dir"
exit $status
