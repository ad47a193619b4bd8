#!/usr/bin/env node
// The JavaScript guard's navigation rule in Node, for JSGuardNodeTests.
//
//   node Tests/Node/guard-navigations.js GUARD.js FACTS.jsonl
//
// FACTS.jsonl holds one navigation per line: {"destination", "page", "frame", "kind", "userInitiated"}, as
// ipalinksGuard.navigation() takes it. For each line, in order, one JSON object is printed on its own line: the
// guard's answer ({"opensApp", "reason", "verdict", "appID", "pointer"}) with "host" and "href", the destination as
// the WHATWG URL parser reads it (null when it refuses it or it is not http(s)). Exit status 2: bad arguments, or
// the guard did not load or has no navigation function (the reason on stderr).
"use strict";

const fs = require("fs");
const path = require("path");

function fail(message) {
  process.stderr.write("guard-navigations: " + message + "\n");
  process.exit(2);
}

const [guardFile, factsFile] = process.argv.slice(2);
if (!guardFile || !factsFile || process.argv.length > 4) fail("usage: node guard-navigations.js GUARD.js FACTS.jsonl");

let api;
try {
  api = require(path.resolve(guardFile));
} catch (e) {
  fail("cannot load " + guardFile + ": " + (e && e.stack ? e.stack : e));
}
if (!api || typeof api.navigation !== "function") fail(guardFile + " exports no navigation function");

const lines = fs.readFileSync(factsFile, "utf8").split("\n").filter((line) => line !== "");
const out = lines.map((line) => {
  const facts = JSON.parse(line);
  let host = null;
  let href = null;
  try {
    const url = new URL(facts.destination);
    if (url.protocol === "http:" || url.protocol === "https:") {
      host = url.hostname;
      // Without user info, as the Swift reader writes it.
      href = url.protocol + "//" + url.host + url.pathname + url.search + url.hash;
    }
  } catch (e) {}
  return JSON.stringify(Object.assign({ host: host, href: href }, api.navigation(facts)));
});
process.stdout.write(out.length ? out.join("\n") + "\n" : "");
