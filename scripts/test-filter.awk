# Filters `swift test` output for `make test`: drops build progress and XCTest's per-test chatter, and at the end
# repeats every failure line, so a CI log that keeps only its tail still names the test that failed.
/^\[[0-9]+\/[0-9]+\]/ { next }
/^Test Case .* (started|passed)/ || /^Test Suite .* (started|passed)/ { next }
{ print; fflush() }
/✘ Test .* recorded an issue|^✘ .* failed|: error: / { failures[n++] = $0 }
END {
  if (n > 0) {
    print "---- " n " failure line(s), repeated from above ----"
    for (i = 0; i < n; i++) print failures[i]
  }
}
