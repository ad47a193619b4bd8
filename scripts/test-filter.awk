# Filters `swift test` output for `make test`: drops build progress and XCTest's per-test chatter, and at the end
# repeats every failure line, so a CI log that keeps only its tail still names the test that failed. A run that
# ends without swift-testing's summary (stopped by with-tmpdir.sh's limit, or crashed) also names the tests that had
# started and not ended: the one that hung or crashed is among them.
/^\[[0-9]+\/[0-9]+\]/ { next }
/^Test Case .* (started|passed)/ || /^Test Suite .* (started|passed)/ { next }
{ print; fflush() }
/✘ Test .* recorded an issue|^✘ .* failed|: error: / { failures[n++] = $0 }
/^◇ Test run started\./ { started = 1 }
/^(✔|✘) Test run with / { finished = 1 }
/^◇ Test .* started\.$/ && !/^◇ Test (run|case) / {
  name = $0; sub(/^◇ Test /, "", name); sub(/ started\.$/, "", name)
  if (!(name in running)) order[m++] = name
  running[name] = 1
}
/^(✔|✘) Test .* (passed|failed) after / || /^↷ Test .* skipped/ {
  name = $0; sub(/^(✔|✘|↷) Test /, "", name)
  sub(/ (with [0-9]+ test cases? )?(passed|failed) after .*$/, "", name); sub(/ skipped.*$/, "", name)
  delete running[name]
}
END {
  if (n > 0) {
    print "---- " n " failure line(s), repeated from above ----"
    for (i = 0; i < n; i++) print failures[i]
  }
  if (started && !finished) {
    print "---- the test run ended without its summary; tests started and not ended: ----"
    for (i = 0; i < m; i++) if (order[i] in running) print "  " order[i]
  }
}
