#!/usr/bin/env node
// The JavaScript guard's verdicts in Node, for JSGuardNodeTests: no DOM, so only the matcher runs.
//
//   node Tests/Node/guard-verdicts.js GUARD.js URLS.txt
//
// GUARD.js is a script written by `ipalinks blocklist --format js` (or the template in
// Sources/IPALinksKit/Resources, which has no rules). URLS.txt holds one URL per line (UTF-8; a final newline is
// optional). For each line, in order, one JSON object is printed on its own line:
//
//   {"href": "https://example.com/buy/1", "verdict": "match", "appID": "ABCDE12345.com.example.app",
//    "pointer": "/applinks/details/0/components/1"}
//
// `href` is the URL as the WHATWG URL parser writes it (what a page's link hands the guard, and what WebKit
// navigates to), or null when the parser rejects the line. Exit status 2: bad arguments, or the guard did not
// load or has no verdict function (the reason on stderr).
"use strict";

const fs = require("fs");
const path = require("path");

function fail(message) {
  process.stderr.write("guard-verdicts: " + message + "\n");
  process.exit(2);
}

const [guardFile, urlsFile] = process.argv.slice(2);
if (!guardFile || !urlsFile || process.argv.length > 4) fail("usage: node guard-verdicts.js GUARD.js URLS.txt");

let api;
try {
  api = require(path.resolve(guardFile));
} catch (e) {
  fail("cannot load " + guardFile + ": " + (e && e.stack ? e.stack : e));
}
if (!api || typeof api.verdict !== "function") fail(guardFile + " exports no verdict function");

const lines = fs.readFileSync(urlsFile, "utf8").split("\n");
if (lines[lines.length - 1] === "") lines.pop();

const out = [];
for (const line of lines) {
  let href = null;
  try {
    href = new URL(line).href;
  } catch (e) {
    href = null;
  }
  const v = api.verdict(line);
  out.push(JSON.stringify({ href: href, verdict: v.verdict, appID: v.appID, pointer: v.pointer }));
}
process.stdout.write(out.length ? out.join("\n") + "\n" : "");
