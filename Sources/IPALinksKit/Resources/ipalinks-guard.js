//
// What it does: when the user taps a link (<a href>, <area href>) or submits a form, and iOS would hand that
// navigation to one of the apps below (a universal link), it cancels the tap and makes the same navigation itself,
// in a way WebKit never opens an app for: after a MessageChannel message, which carries no user gesture (WebKit
// forwards a tap's gesture to timers and to window.postMessage for about a second, but not to a port's messages),
// and from a hidden same-origin iframe, whose navigations do not inherit the page's permission to open apps (a
// page the user reached by a tap keeps that permission, so its own script navigations could still open one).
// Measured in WebKitGTK with real pointer clicks: the guard's navigation carries no user gesture.
//
// It applies iOS's navigation rule (docs/MATCHING.md, "The navigation rule"): iOS opens an app only for a
// navigation in the main frame (or a new window), to a host other than the page's, started by the user's tap.
// So taps on the page's own host, taps that navigate only an iframe, and everything it cannot see are left alone.
//
// It is not protection on its own: a page's own script can navigate without a tap it sees (`location.href = ...`
// in a click handler, `window.open`), and the location object cannot be intercepted. Long-press menus ("Open",
// "Open in New Tab") navigate without a click too. In your own app, the Swift guard's decidePolicy helper is the
// protection; use this for pages you serve, next to it.
//
// Links and forms that ask for a new window (target=_blank, a name no frame of the page has, or meta/ctrl/shift/alt
// held) are intercepted too and open in the current view: a window opened by script would be blocked as a popup,
// and letting the user's own new-window navigation through would open the app. A target that names one of the
// page's frames loads there, which opens no app: left alone.
//
// It sees links in SVG (xlink:href too), in open shadow roots and in closed ones made after it loads
// (attachShadow), the position an <img ismap> adds to its link, and a GET form's fields in a legacy encoding (it
// then takes over any tap it cannot judge exactly, as its own navigation loads the same URL). A page's script that
// works against it (replacing what it calls, stopping events before it) gets past it, as its own navigations do.
//
// API: window.ipalinksGuard = { verdict, navigation, version: 2 }
//   ipalinksGuard.verdict("https://example.com/buy/42")
//     // -> { verdict: "match" | "exclude" | "no-match", appID: "ABCDE12345.com.example.app" | null,
//     //     pointer: "/applinks/details/0/components/1" | null }   (pointer: the deciding rule in the AASA file)
//   ipalinksGuard.navigation({ destination, page, frame: "main" | "subframe" | "new-window",
//                              kind: "link-activated" | "form-submitted" | "back-forward" | "reload" | ..., 
//                              userInitiated: true | false | null })
//     // -> { opensApp, reason, verdict, appID, pointer }: iOS's navigation rule, as the Swift guard's
//     //    LinkRuntime.Table.decide(_:) gives it (reason: "claimed", "same-host", "subframe", ...)
//   In Node (no window, no DOM) require() returns the same object, and no handler is installed.
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

  // ---- The navigation rule ----------------------------------------------------------------------------------
  //
  // What iOS does with a navigation, from its facts; the same rule, in the same order, as the Swift guard's
  // LinkRuntime.Table.decide(_:), with the sources in docs/MATCHING.md. WebKit's own URL parser reads both URLs
  // here (`new URL`), and WebKit compares the hosts exactly: `www.a.com` is not `a.com`, nor is `a.com.`.

  function webURL(text) {
    var url;
    try {
      url = new URL(String(text));
    } catch (e) {
      return null;
    }
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  }

  function decided(opensApp, reason, v) {
    return {
      opensApp: opensApp,
      reason: reason,
      verdict: v ? v.verdict : null,
      appID: v ? v.appID : null,
      pointer: v ? v.pointer : null,
    };
  }

  function navigation(facts) {
    var destination = webURL(facts && facts.destination);
    if (!destination) return decided(false, "not-web", null);
    if (facts.frame === "subframe") return decided(false, "subframe", null);
    if (facts.kind === "back-forward") return decided(false, "back-forward", null);
    if (facts.userInitiated === false) return decided(false, "not-user-initiated", null);
    var page = facts.page === null || facts.page === undefined ? null : webURL(facts.page);
    if (page && page.hostname === destination.hostname) return decided(false, "same-host", null);
    var v = verdict(destination.href);
    return decided(v.verdict === "match", v.verdict === "match" ? "claimed" : "unclaimed", v);
  }

  // The API: window.ipalinksGuard in a page; without a window, the module's exports where there are any (Node).
  var api = { verdict: verdict, navigation: navigation, version: 2 };
  if (typeof window !== "undefined") window.ipalinksGuard = api;
  else if (typeof module === "object" && module !== null && typeof module.exports === "object") module.exports = api;

  // ---- Taps -------------------------------------------------------------------------------------------------

  if (typeof document === "undefined" || typeof window === "undefined" || !document.addEventListener) return;

  // SVG links hold their URL in href or, still often, xlink:href (`*|` matches an attribute in any namespace).
  var LINK = "a[href], area[href], a[*|href]";
  var XLINK = "http://www.w3.org/1999/xlink";
  // Marks the link or form the guard itself makes in its iframe, so a copy of the guard there leaves it alone: only
  // on the events of a script's click, which is how it activates them, so that a page cannot mark its links to
  // have the user's taps on them left alone.
  var OWN = "data-ipalinks-guard";
  // Taken now, before the page's script runs: its own navigation must come after a port's message whatever the
  // page replaces later, or it would carry the tap's gesture.
  var Channel = window.MessageChannel;

  // Closed shadow roots, by their host: a tap inside one reaches the listener on its host, with the link hidden.
  // Only roots made after the guard loads (by attachShadow; not declarative ones the parser makes) are known.
  var closedRoots = typeof WeakMap === "function" ? new WeakMap() : null;
  if (closedRoots && typeof Element === "function" && typeof Element.prototype.attachShadow === "function") {
    var attachShadow = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (init) {
      var root = attachShadow.apply(this, arguments);
      if (init && init.mode === "closed") closedRoots.set(this, root);
      return root;
    };
  }

  // The link the click is on, looking through open shadow roots (composedPath), closed ones the guard knows, and
  // from text nodes.
  function linkOf(event) {
    var path = typeof event.composedPath === "function" ? event.composedPath() : [];
    var i;
    for (i = 0; i < path.length; i++) {
      var node = path[i];
      if (node && node.nodeType === 1 && typeof node.matches === "function" && node.matches(LINK)) return node;
    }
    for (i = 0; i < path.length; i++) {
      var inside = closedRoots && path[i] && closedRoots.get(path[i]) ? linkInside(path[i], event) : null;
      if (inside) return inside;
    }
    var target = event.target;
    if (target && target.nodeType !== 1) target = target.parentElement || target.parentNode;
    return target && typeof target.closest === "function" ? target.closest(LINK) : null;
  }

  // The link inside `host`'s closed shadow root (and closed roots within it) that the event is on: under the
  // pointer, or focused for a key's click (which has no position).
  function linkInside(host, event) {
    var pointer = event.detail > 0 || event.clientX || event.clientY;
    for (var depth = 0, root = closedRoots.get(host); root && depth < 32; depth++) {
      var element = pointer ? root.elementFromPoint(event.clientX, event.clientY) : root.activeElement;
      if (!element || element === host) return null;
      var link = element.closest(LINK);
      if (link) return link;
      host = element;
      root = closedRoots.get(element);
    }
    return null;
  }

  // The absolute URL of a link (SVG <a> elements hold an SVGAnimatedString, not a string, and their URL in href
  // or xlink:href).
  function hrefOf(link) {
    if (typeof link.href === "string") return link.href;
    var value = link.getAttribute("href");
    if (value === null) value = link.getAttributeNS(XLINK, "href");
    try {
      return new URL(value, link.baseURI || document.baseURI).href;
    } catch (e) {
      return "";
    }
  }

  // What WebKit adds to a link's URL for a click on a server-side image map inside it (<img ismap>, no usemap):
  // `?x,y`, the click's position in the image, rounded (HTMLAnchorElement's appendServerMapMousePosition). Empty
  // for any other click.
  function serverMapPosition(event, link) {
    var image = event.target;
    if (!image || image.tagName !== "IMG" || !image.hasAttribute("ismap") || image.getAttribute("usemap")) return "";
    if (event.detail === 0 || image.closest(LINK) !== link) return "";
    var box = image.getBoundingClientRect();
    return "?" + Math.round(event.clientX - box.left) + "," + Math.round(event.clientY - box.top);
  }

  // Which window a navigation with this target loads in: "self", "top", "parent", "frame" (another frame of the
  // page, which the target names) or "new".
  function windowOf(target, event) {
    if (event && (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)) return "new";
    var base = document.querySelector("base[target]");
    target = target || (base && base.getAttribute("target")) || "";
    var keyword = target.toLowerCase();
    if (keyword === "" || keyword === "_self") return "self";
    if (keyword === "_top") return window.top === window ? "self" : "top";
    if (keyword === "_parent") return window.parent === window ? "self" : "parent";
    if (keyword === "_blank") return "new";
    return namedFrame(target);
  }

  // The frame a target name (case-sensitive) names: this window, an ancestor, or a frame anywhere in the page,
  // searched from the top; "new" when none has it (a window of that name opens), or when the name cannot be read
  // (another origin's), which takes over more rather than less.
  function namedFrame(name) {
    function named(w) {
      try {
        return w.name === name;
      } catch (e) {
        return false;
      }
    }
    if (named(window)) return "self";
    for (var w = window, depth = 0; w.parent !== w && depth < 64; depth++) {
      w = w.parent;
      if (named(w)) return w === window.top ? "top" : "frame";
    }
    var queue = [window.top];
    for (var seen = 0; queue.length && seen < 512; seen++) {
      var each = queue.shift();
      var count = 0;
      try {
        count = each.frames.length;
      } catch (e) {}
      for (var i = 0; i < count; i++) {
        var child = null;
        try {
          child = each.frames[i];
        } catch (e) {}
        if (!child) continue;
        if (named(child)) return "frame";
        queue.push(child);
      }
    }
    return "new";
  }

  // The page the web view shows (the main frame's URL). In another origin's frame (an ad, an embed), the top's
  // origin, which WebKit gives every frame in location.ancestorOrigins (unforgeable, as location's own properties
  // are): a link there to the page's own host is left alone. Taken over, it went nowhere, since WebKit refuses a
  // third-party frame's navigation of the top without a gesture. Null when neither can be read (an opaque origin),
  // so the host counts as another.
  function topPage() {
    try {
      return window.top.location.href;
    } catch (e) {
      var origins = location.ancestorOrigins;
      return origins && origins.length ? origins[origins.length - 1] + "/" : null;
    }
  }

  // The navigation a tap would make, described as the rule reads it.
  function tapNavigation(url, where, kind) {
    var inFrame = window.top !== window;
    var frame = "main";
    if (where === "new") frame = "new-window";
    else if (where === "frame") frame = "subframe";
    else if (where === "self" && inFrame) frame = "subframe";
    else if (where === "parent" && window.parent !== window.top) frame = "subframe";
    return { destination: url, page: topPage(), frame: frame, kind: kind, userInitiated: true };
  }

  // Makes the navigation that `build` sets up in a hidden iframe: `build(document)` returns the link or form to
  // activate there. The iframe's document does not pass the page's permission to open apps on (WebKit's
  // DocumentLoader::shouldOpenExternalURLsPolicyToPropagate gives its own, which nothing granted), and the
  // MessageChannel message carries no user gesture, so WebKit does not try an app for it.
  function navigateFromFrame(build) {
    var channel = new Channel();
    channel.port1.onmessage = function () {
      channel.port1.close();
      var frame = document.createElement("iframe");
      frame.setAttribute("aria-hidden", "true");
      frame.setAttribute("tabindex", "-1");
      frame.style.display = "none";
      (document.body || document.documentElement).appendChild(frame);
      var doc = frame.contentDocument;
      var parent = doc && (doc.body || doc.documentElement);
      if (!parent) return; // nothing to build in: the navigation stays cancelled rather than made with the page's rights
      var element = build(doc);
      element.setAttribute(OWN, "");
      parent.appendChild(element);
      if (element.tagName === "FORM") element.submit();
      else element.click();
      setTimeout(function () {
        if (frame.parentNode) frame.parentNode.removeChild(frame);
      }, 1000);
    };
    channel.port2.postMessage(null);
  }

  // The iframe's target for a navigation of `where`: this window is the iframe's parent, the main frame its top.
  function frameTarget(where) {
    return where === "new" && window.top !== window ? "_parent" : "_top";
  }

  // On the window, in the capture phase, from document start: before any listener of the page's.
  window.addEventListener(
    "click",
    function (event) {
      if (event.defaultPrevented || event.button !== 0) return;
      var link = linkOf(event);
      if (!link || (link.hasAttribute(OWN) && !event.isTrusted)) return;
      var href = hrefOf(link) + serverMapPosition(event, link);
      // A download stays a download on the page's own origin only: WebKit ignores `download` on a link to another
      // origin and navigates, which may open an app.
      var target = link.hasAttribute("download") && webURL(href);
      if (link.hasAttribute("download") && (!target || target.origin === location.origin)) return;
      var where = windowOf(link.getAttribute("target"), event);
      if (!navigation(tapNavigation(href, where, "link-activated")).opensApp) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      // New-window links navigate this view: see the top of this file.
      navigateFromFrame(function (doc) {
        var copy = doc.createElement("a");
        copy.href = href;
        copy.target = frameTarget(where);
        return copy;
      });
    },
    true
  );

  // Whether a GET form's query is encoded as UTF-8, as the guard encodes it: its accept-charset's first label, else
  // the page's encoding (HTML's "picking an encoding for the form"; UTF-16 is sent as UTF-8).
  function sendsUTF8(form) {
    var labels = String(form.getAttribute("accept-charset") || "").trim().split(/[\s]+/);
    var label = (labels[0] || document.characterSet || "utf-8").toLowerCase();
    return ["utf-8", "utf8", "unicode-1-1-utf-8", "utf-16", "utf-16le", "utf-16be"].indexOf(label) >= 0;
  }

  // Whether a form's fields hold a character beyond ASCII, which another encoding writes otherwise.
  function beyondASCII(data) {
    var found = false;
    data.forEach(function (value, name) {
      if (/[^\x00-\x7f]/.test(name) || (typeof value === "string" && /[^\x00-\x7f]/.test(value))) found = true;
    });
    return found;
  }

  // Form submissions the user makes (a submit button, Enter); `form.submit()` from script fires no event.
  window.addEventListener(
    "submit",
    function (event) {
      var form = event.target;
      if (event.defaultPrevented || !form || form.tagName !== "FORM") return;
      if (form.hasAttribute(OWN) && !event.isTrusted) return;
      var submitter = event.submitter || null;
      var attribute = function (name, fallback) {
        var own = submitter && submitter.getAttribute("form" + name);
        return own !== null && own !== undefined ? own : fallback;
      };
      // HTML's method: "post" and "dialog" by name (in any case), anything else, missing or not, a GET.
      var method = String(attribute("method", form.getAttribute("method")) || "get").toLowerCase();
      if (method === "dialog") return; // a dialog closes; nothing navigates
      if (method !== "post") method = "get";
      var action = submitter && submitter.hasAttribute("formaction") ? submitter.formAction : form.action;
      var data;
      try {
        data = submitter ? new FormData(form, submitter) : new FormData(form);
      } catch (e) {
        data = new FormData(form);
      }
      var destination = action;
      if (method === "get") {
        // A GET replaces the action's query with the form's fields.
        var url = webURL(action);
        if (!url) return;
        url.search = new URLSearchParams(data).toString();
        destination = url.href;
      }
      var where = windowOf(attribute("target", form.getAttribute("target")), null);
      var decision = navigation(tapNavigation(destination, where, "form-submitted"));
      // A query in a legacy encoding is not the one judged: a tap that may open an app is taken over, and the form's
      // copy sends the same query without the gesture.
      var unsure = method === "get" && decision.reason === "unclaimed" && !sendsUTF8(form) && beyondASCII(data);
      if (!decision.opensApp && !unsure) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      navigateFromFrame(function (doc) {
        var copy = doc.createElement("form");
        copy.method = method;
        copy.action = action;
        copy.target = frameTarget(where);
        var enctype = attribute("enctype", form.getAttribute("enctype"));
        if (enctype) copy.enctype = enctype;
        // The same encoding as the form's: its own, or the page's (the iframe's blank page has another).
        copy.acceptCharset = form.acceptCharset || document.characterSet || "";
        data.forEach(function (value, name) {
          var input = doc.createElement("input");
          input.name = name;
          if (typeof value === "string") {
            input.type = "hidden";
            input.value = value;
          } else {
            // A file: carried over in a file input of its own.
            input.type = "file";
            try {
              var transfer = new DataTransfer();
              transfer.items.add(value);
              input.files = transfer.files;
            } catch (e) {}
          }
          copy.appendChild(input);
        });
        return copy;
      });
    },
    true
  );
})();
