#!/bin/sh
# Makes an audit store of the bundled samples for docs/store.md's examples and prints its path: two weekly runs,
# on 19 and 26 November 2026 (SOURCE_DATE_EPOCH stands in for the clock), the second retrieving a newer
# shop.example.com file (samples/aasa/next) than the first. With week-47 as its argument, it stops after the first;
# with week-48b, a third run on 27 November sees what the second saw.
store="$(mktemp -d)/audit.db"
SOURCE_DATE_EPOCH=1795078800 ipalinks inspect samples --aasa-dir samples/aasa \
  --store "$store" --run-label week-47 -q --format jsonl > /dev/null
if [ "$1" = week-47 ]; then echo "$store"; exit; fi
SOURCE_DATE_EPOCH=1795683600 ipalinks inspect samples --aasa-dir samples/aasa/next --aasa-dir samples/aasa \
  --store "$store" --run-label week-48 -q --format jsonl > /dev/null
if [ "$1" = week-48b ]; then
  SOURCE_DATE_EPOCH=1795770000 ipalinks inspect samples --aasa-dir samples/aasa/next --aasa-dir samples/aasa \
    --store "$store" --run-label week-48b -q --format jsonl > /dev/null
fi
echo "$store"
