//
// What it does: on a tap (a primary click) on an <a href> or <area href> whose URL iOS would hand to one of the
// apps below (a universal link), it cancels the tap and navigates to the same URL from a timer instead.
// iOS opens apps for navigations the user starts; a navigation issued by script after the event is meant
// to load in this web view. One capture-phase listener on `document` covers links added later and taps on
// elements inside a link, and it sees through open shadow roots.
//
// Caveat, test on a device: WebKit forwards a tap's user gesture to timers that fire within about a second,
// and its app-link decision depends on that gesture, so the timer may not be enough on every iOS version.
// In your own app, the Swift guard's decidePolicy helper (or the content rule list) is the reliable layer.
//
// What it does not cover, and leaves alone:
//   - navigations the page starts from its own script: `location.href = ...` in a click handler, links whose
//     href page script computes or changes during the click, `window.open`, form submissions;
//   - long-press menus ("Open", "Open in New Tab"), which navigate without a click event;
//   - links to the page's own host: WebKit never opens an app for them (so single-page routers keep working),
//     and links that only navigate an iframe: WebKit opens apps for main-frame navigations only.
// For those, use the Swift guard (`UniversalLinkGuard.decidePolicy` in your WKNavigationDelegate) or the
// WKContentRuleList that ipalinks also writes.
//
// Links that ask for a new window (target=_blank, a named target, or meta/ctrl/shift/alt held) are intercepted
// too and open in the current view: a window opened from a timer would be blocked as a popup, and letting the
// user's own new-window navigation through would open the app.
//
// API: window.ipalinksGuard = { verdict, version: 1 }
//   ipalinksGuard.verdict("https://example.com/buy/42")
//     // -> { verdict: "match" | "exclude" | "no-match", appID: "ABCDE12345.com.example.app" | null,
//     //     pointer: "/applinks/details/0/components/1" | null }   (pointer: the deciding rule in the AASA file)
//   In Node (no window, no DOM) require() returns the same object, and no click handler is installed.
//
// Usage: load it once, as early as possible: a script element in the page's head (inline or from a file), or,
// in your own app, WKUserScript(source:injectionTime: .atDocumentStart, forMainFrameOnly: false).
(function () {
  "use strict";

  // The rules written by ipalinks: per app, the hosts it claims and its rules in the order iOS tries them,
  // patterns already prepared (paths normalized, variables expanded, lower-cased when case-insensitive).
  var RULES = /* ipalinks:rules */ {"apps": [], "choices": []} /* ipalinks:end */;

  // ---- Patterns ---------------------------------------------------------------------------------------------
  //
  // A pattern must match the whole text. Pieces: a string (literal text), 0 (`?`: one Unicode code point),
  // 1 (`*`: any run of code points) or a multi-valued `$(variable)`: {choice: n}, the document's choices[n]
  // (each variable's values are written once), or an inline array of alternatives; each alternative is itself
  // an array of pieces. Compiled once: literals become arrays of code points, and every reference to the same
  // choice shares one compiled copy.

  var ANY = 0;
  var STAR = 1;
  var NEVER = -1; // anything this script does not understand; matches nothing, like an undefined variable

  function codePoints(text) {
    var out = [];
    for (var i = 0; i < text.length; i++) {
      var c = text.codePointAt(i);
      out.push(c);
      if (c > 0xffff) i++;
    }
    return out;
  }

  function compilePattern(pattern) {
    if (!Array.isArray(pattern)) return null;
    return pattern.map(function (piece) {
      if (typeof piece === "string") return { literal: codePoints(piece) };
      if (piece === 0) return ANY;
      if (piece === 1) return STAR;
      if (Array.isArray(piece)) return { choice: piece.map(compileAlternative) };
      if (piece !== null && typeof piece === "object" && typeof piece.choice === "number") {
        return Object.prototype.hasOwnProperty.call(CHOICES, piece.choice) ? CHOICES[piece.choice] : NEVER;
      }
      return NEVER;
    });
  }

  function compileAlternative(alternative) {
    return compilePattern(alternative) || [NEVER];
  }

  var CHOICES = [];
  (Array.isArray(RULES.choices) ? RULES.choices : []).forEach(function (alternatives, index) {
    CHOICES[index] = Array.isArray(alternatives) ? { choice: alternatives.map(compileAlternative) } : NEVER;
  });

  function matches(pieces, text) {
    var start = new Uint8Array(text.length + 1);
    start[0] = 1;
    return advance(pieces, start, text)[text.length] === 1;
  }

  // A position-set simulation (Thompson NFA): reach[i] says the pieces so far can end at offset i. Each piece
  // maps that set to the next in one pass, so the cost grows with pieces x text length and never explodes the
  // way backtracking does on patterns like `*a*a*a*b`.
  function advance(pieces, start, text) {
    var n = text.length;
    var reach = start;
    for (var p = 0; p < pieces.length; p++) {
      var piece = pieces[p];
      var next = new Uint8Array(n + 1);
      var alive = false;
      var i;
      if (piece === ANY) {
        for (i = 0; i < n; i++) {
          if (reach[i]) {
            next[i + 1] = 1;
            alive = true;
          }
        }
      } else if (piece === STAR) {
        var seen = 0;
        for (i = 0; i <= n; i++) {
          if (reach[i]) seen = 1;
          next[i] = seen;
        }
        alive = seen === 1;
      } else if (piece !== NEVER && piece.literal) {
        var literal = piece.literal;
        var k = literal.length;
        for (i = 0; i + k <= n; i++) {
          if (!reach[i]) continue;
          var j = 0;
          while (j < k && text[i + j] === literal[j]) j++;
          if (j === k) {
            next[i + k] = 1;
            alive = true;
          }
        }
      } else if (piece !== NEVER && piece.choice) {
        // Run every alternative from every reachable offset at once.
        for (var a = 0; a < piece.choice.length; a++) {
          var ends = advance(piece.choice[a], reach, text);
          for (i = 0; i <= n; i++) {
            if (ends[i]) {
              next[i] = 1;
              alive = true;
            }
          }
        }
      }
      reach = next;
      if (!alive) break;
    }
    return reach;
  }

  // ---- Rules ------------------------------------------------------------------------------------------------

  var apps = (RULES.apps || []).map(function (app) {
    return {
      appID: app.appID,
      scopes: (app.scopes || []).map(function (scope) {
        return {
          host: String(scope.host).toLowerCase(), // URL hosts are compared lower-cased
          wildcard: scope.wildcard === true,
          rules: (scope.rules || []).map(function (rule) {
            var items = null;
            if (Array.isArray(rule.items)) {
              items = rule.items.map(function (item) {
                // Names compare as Swift strings do: canonically equivalent names are equal.
                return { name: String(item.name).normalize("NFC"), value: compilePattern(item.value) || [NEVER] };
              });
            }
            return {
              pointer: rule.pointer || "",
              exclude: rule.exclude === true,
              caseSensitive: rule.caseSensitive !== false,
              percentEncoded: rule.percentEncoded !== false,
              path: compilePattern(rule.path),
              query: compilePattern(rule.query),
              items: items,
              fragment: compilePattern(rule.fragment),
            };
          }),
        };
      }),
    };
  });

  // The entry that governs `host`: the exact one, else the longest wildcard entry covering a subdomain
  // (`*.example.com` covers `a.example.com`, not `example.com` itself).
  function scopeFor(app, host) {
    var best = null;
    for (var i = 0; i < app.scopes.length; i++) {
      var scope = app.scopes[i];
      if (!scope.wildcard && scope.host === host) return scope;
    }
    for (i = 0; i < app.scopes.length; i++) {
      scope = app.scopes[i];
      var suffix = "." + scope.host;
      var covers = host.length > suffix.length && host.slice(host.length - suffix.length) === suffix;
      if (scope.wildcard && covers && (best === null || scope.host.length > best.host.length)) best = scope;
    }
    return best;
  }

  function ruleMatches(rule, target) {
    var reading = target.reading(rule.percentEncoded, rule.caseSensitive);
    if (rule.path && !matches(rule.path, reading.path)) return false;
    if (rule.query && !matches(rule.query, reading.query)) return false;
    if (rule.fragment && !matches(rule.fragment, reading.fragment)) return false;
    if (rule.items) {
      for (var i = 0; i < rule.items.length; i++) {
        // Every occurrence of the name must match; a missing item reads as "".
        var item = rule.items[i];
        var seen = false;
        for (var j = 0; j < reading.items.length; j++) {
          var pair = reading.items[j];
          if (pair.name !== item.name) continue;
          seen = true;
          if (!matches(item.value, pair.value)) return false;
        }
        if (!seen && !matches(item.value, [])) return false;
      }
    }
    return true;
  }

  // ---- URLs -------------------------------------------------------------------------------------------------

  // Percent-encodes what the ipalinks matcher encodes and the URL parser may leave (`"<>\^`{|}`, a `%` that
  // starts no escape, non-ASCII, and `#` in a fragment), so both compare the same text.
  function encode(text, encodeHash) {
    var out = "";
    for (var i = 0; i < text.length; i++) {
      var c = text.charAt(i);
      var code = text.charCodeAt(i);
      if (c === "%") {
        out += /^[0-9A-Fa-f]{2}$/.test(text.substr(i + 1, 2)) ? "%" : "%25";
      } else if (code <= 0x20 || code >= 0x7f || '"<>\\^`{|}'.indexOf(c) >= 0 || (c === "#" && encodeHash)) {
        var end = code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1;
        try {
          out += encodeURIComponent(text.slice(i, end)).toUpperCase();
        } catch (e) {
          out += "%EF%BF%BD"; // a lone surrogate (URL parsers never leave one): U+FFFD
        }
        i = end - 1;
      } else {
        out += c;
      }
    }
    return out;
  }

  // Decodes %XX escapes as UTF-8. When the bytes are not valid UTF-8 the text stays encoded, so a broken escape
  // can only fail to match, never match something else. (After encode(), every `%` starts an escape.)
  function percentDecode(text) {
    if (text.indexOf("%") < 0) return text;
    try {
      return decodeURIComponent(text);
    } catch (e) {
      return text;
    }
  }

  // Lower-cases code point by code point, as Swift's lowercased() does (no context rules such as final sigma).
  function lowerCase(text) {
    if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
    var out = "";
    for (var i = 0; i < text.length; i++) {
      var c = String.fromCodePoint(text.codePointAt(i));
      if (c.length > 1) i++;
      out += c.toLowerCase();
    }
    return out;
  }

  function normalizePath(path) {
    // `//` collapsed, with a leading and a trailing `/`; an empty path reads as `/`.
    var out = [0x2f];
    var scalars = codePoints(path);
    for (var i = 0; i < scalars.length; i++) {
      if (!(scalars[i] === 0x2f && out[out.length - 1] === 0x2f)) out.push(scalars[i]);
    }
    if (out[out.length - 1] !== 0x2f) out.push(0x2f);
    return out;
  }

  // The parts of a URL that rules read, percent-encoded as the URL carries them, and the four ways a rule can
  // read them (encoded or decoded, case kept or lower-cased), each built on first use. Null unless http(s).
  function parseTarget(href) {
    var url;
    try {
      url = new URL(String(href));
    } catch (e) {
      return null;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    var host = url.hostname.toLowerCase();
    if (host.length > 1 && host.charAt(host.length - 1) === ".") host = host.slice(0, -1);
    if (!host) return null;
    var path = encode(url.pathname, false);
    var query = encode(url.search.replace(/^\?/, ""), false);
    var fragment = encode(url.hash.replace(/^#/, ""), true);
    var readings = [null, null, null, null];
    return {
      host: host,
      reading: function (percentEncoded, caseSensitive) {
        var slot = (percentEncoded ? 0 : 1) + (caseSensitive ? 0 : 2);
        if (readings[slot]) return readings[slot];
        var prepare = function (encoded) {
          var text = percentEncoded ? encoded : percentDecode(encoded);
          return caseSensitive ? text : lowerCase(text);
        };
        var items = [];
        if (query !== "") {
          // Name and value are decoded separately, so an escaped `=` or `&` stays inside its value.
          query.split("&").forEach(function (item) {
            var eq = item.indexOf("=");
            var name = prepare(eq < 0 ? item : item.slice(0, eq));
            var value = eq < 0 ? [] : codePoints(prepare(item.slice(eq + 1)));
            items.push({ name: /^[\x00-\x7f]*$/.test(name) ? name : name.normalize("NFC"), value: value });
          });
        }
        readings[slot] = {
          path: normalizePath(prepare(path)),
          query: codePoints(prepare(query)),
          items: items,
          fragment: codePoints(prepare(fragment)),
        };
        return readings[slot];
      },
    };
  }

  // ---- Verdict ----------------------------------------------------------------------------------------------

  // What iOS would do with `href`: for each app, the first matching rule of the entry governing the host
  // decides. The first app that opens the URL wins; else the first app that excludes it is reported.
  function verdict(href) {
    var target = parseTarget(href);
    var exclusion = null;
    if (target) {
      for (var i = 0; i < apps.length; i++) {
        var scope = scopeFor(apps[i], target.host);
        if (!scope) continue;
        for (var j = 0; j < scope.rules.length; j++) {
          var rule = scope.rules[j];
          if (!ruleMatches(rule, target)) continue;
          if (!rule.exclude) return { verdict: "match", appID: apps[i].appID, pointer: rule.pointer };
          if (!exclusion) exclusion = { verdict: "exclude", appID: apps[i].appID, pointer: rule.pointer };
          break;
        }
      }
    }
    return exclusion || { verdict: "no-match", appID: null, pointer: null };
  }

  // The API: window.ipalinksGuard in a page; without a window, the module's exports where there are any (Node).
  var api = { verdict: verdict, version: 1 };
  if (typeof window !== "undefined") window.ipalinksGuard = api;
  else if (typeof module === "object" && module !== null && typeof module.exports === "object") module.exports = api;

  // ---- Click handler ----------------------------------------------------------------------------------------

  if (typeof document === "undefined" || typeof window === "undefined" || !document.addEventListener) return;

  var LINK = "a[href], area[href]";

  // The link the click is on, looking through open shadow roots (composedPath) and from text nodes.
  function linkOf(event) {
    var path = typeof event.composedPath === "function" ? event.composedPath() : [];
    for (var i = 0; i < path.length; i++) {
      var node = path[i];
      if (node && node.nodeType === 1 && typeof node.matches === "function" && node.matches(LINK)) return node;
    }
    var target = event.target;
    if (target && target.nodeType !== 1) target = target.parentElement || target.parentNode;
    return target && typeof target.closest === "function" ? target.closest(LINK) : null;
  }

  // The absolute URL of a link (SVG <a> elements hold an SVGAnimatedString, not a string).
  function hrefOf(link) {
    if (typeof link.href === "string") return link.href;
    try {
      return new URL(link.getAttribute("href"), document.baseURI).href;
    } catch (e) {
      return "";
    }
  }

  function sameHost(a, b) {
    var strip = function (h) {
      h = String(h).toLowerCase();
      return h.length > 1 && h.charAt(h.length - 1) === "." ? h.slice(0, -1) : h;
    };
    return strip(a) === strip(b);
  }

  // Which window the link navigates: "self", "top", "parent" or "new".
  function targetOf(link, event) {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return "new";
    var base = document.querySelector("base[target]");
    var target = (link.getAttribute("target") || (base && base.getAttribute("target")) || "").toLowerCase();
    if (target === "" || target === "_self") return "self";
    if (target === "_top") return window.top === window ? "self" : "top";
    if (target === "_parent") return window.parent === window ? "self" : "parent";
    return "new";
  }

  // Whether WebKit could try an app link for this navigation at all: only main-frame navigations (or new
  // windows) whose host differs from the page they leave.
  function mayOpenApp(where, url) {
    var inFrame = window.top !== window;
    if (where === "new") return !sameHost(location.hostname, url.hostname);
    if (where === "self" && inFrame) return false; // navigates this iframe only
    if (where === "parent" && window.parent !== window.top) return false;
    if (!inFrame) return !sameHost(location.hostname, url.hostname);
    try {
      return !sameHost(window.top.location.hostname, url.hostname);
    } catch (e) {
      return true; // a cross-origin top page: its host is unknown, assume it differs
    }
  }

  document.addEventListener(
    "click",
    function (event) {
      if (event.defaultPrevented || event.button !== 0) return;
      var link = linkOf(event);
      if (!link || link.hasAttribute("download")) return;
      var href = hrefOf(link);
      var url;
      try {
        url = new URL(href);
      } catch (e) {
        return;
      }
      // javascript:, mailto:, tel: and the like are not universal links.
      if (url.protocol !== "http:" && url.protocol !== "https:") return;
      var where = targetOf(link, event);
      if (!mayOpenApp(where, url) || verdict(href).verdict !== "match") return;
      event.preventDefault();
      event.stopImmediatePropagation();
      // New-window links navigate this view: see the top of this file.
      var view = where === "top" ? window.top : where === "parent" ? window.parent : window;
      setTimeout(function () {
        try {
          // A cross-origin top or parent window allows setting location.href only.
          if (view === window) window.location.assign(href);
          else view.location.href = href;
        } catch (e) {
          window.location.assign(href);
        }
      }, 0);
    },
    true
  );
})();
