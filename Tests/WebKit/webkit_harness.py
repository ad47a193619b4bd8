#!/usr/bin/env python3
"""Drive the real WebKit engine (WebKitGTK through PyGObject) for the ipalinks tests.

    xvfb-run -a /usr/bin/python3 webkit_harness.py rules RULES.json URLS.json [--timeout S]
    xvfb-run -a /usr/bin/python3 webkit_harness.py eval  GUARD.js URLS.json
    xvfb-run -a /usr/bin/python3 webkit_harness.py click GUARD.js|- PAGE.html [--settle MS] [--click-method gdk|dom]
                                                      [--base URL]

Each run prints exactly one JSON document on stdout (diagnostics go to stderr).
Exit status: 0 the harness worked, 2 harness failure (a {"harnessError": ...} document), 3 WebKit
refused to compile the rule list (a {"compileError": ...} document). See README.md for the shapes.
"""
import argparse
import json
import os
import shutil
import socket
import sys
import tempfile
import time
import urllib.parse

PAGE_BASE = "https://page.example/"
BLANK_PAGE = "<!doctype html><title>t</title>"
WORLD = "ipalinks-harness"   # isolated JS world: harness helpers stay invisible to the page and guard
BLOCKER_CODE = 104           # WebKit's Policy::FrameLoadBlockedByContentBlocker; not in the GIR enum

# Runs in the page's main world before anything else, so it also sees errors thrown by the guard.
# User-script errors reach window.onerror sanitised ("Script error.") because of their origin.
CONSOLE_CAPTURE = r"""(() => {
  let sink; try { sink = window.top.__ipalinksConsoleErrors; } catch (e) {}
  if (!sink) Object.defineProperty(window, '__ipalinksConsoleErrors', {value: sink = []});
  const show = v => { try { return typeof v === 'string' ? v : (v instanceof Error ? String(v) : JSON.stringify(v)); }
                      catch (e) { return String(v); } };
  const original = console.error;
  console.error = function (...args) {
    sink.push('console.error: ' + args.map(show).join(' '));
    return original.apply(this, args);
  };
  window.addEventListener('error', e => sink.push(`error: ${e.message} (${e.filename || '?'}:${e.lineno})`));
  window.addEventListener('unhandledrejection', e => sink.push('unhandled rejection: ' + show(e.reason)));
})();"""

MODIFIERS = ("shift", "ctrl", "alt", "meta")


class HarnessError(Exception):
    pass


class Args(argparse.ArgumentParser):
    def error(self, message):   # keep the one-JSON-document contract for usage errors too
        raise HarnessError(f"usage: {message}")


def claim_stdout():
    """Reserve stdout for our JSON: WebKit's helper processes inherit fd 1 and may write to it."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    return out


def load_gi():
    global GLib, Gdk, Gtk, WebKit2
    try:
        import gi
        gi.require_version("WebKit2", "4.1")
        gi.require_version("Gtk", "3.0")
        gi.require_version("Gdk", "3.0")
        from gi.repository import GLib, Gdk, Gtk, WebKit2
    except (ImportError, ValueError) as e:
        raise HarnessError(f"cannot load WebKitGTK via PyGObject (use /usr/bin/python3): {e}")
    if Gdk.Display.get_default() is None:
        raise HarnessError("no X display: run under xvfb-run -a")


def engine():
    return f"WebKitGTK {WebKit2.get_major_version()}.{WebKit2.get_minor_version()}.{WebKit2.get_micro_version()}"


def pump(done, timeout):
    """Run the GLib main loop until done() or the timeout; returns done()."""
    ctx = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    tick = GLib.timeout_add(5, lambda: True)   # wakes iteration() so the deadline is honoured
    try:
        while not done():
            if time.monotonic() >= deadline:
                return False
            ctx.iteration(True)
        return True
    finally:
        GLib.source_remove(tick)


def wait_async(start, finish, timeout, what):
    box = {}

    def ready(source, result):
        try:
            box["value"] = finish(source, result)
        except GLib.Error as e:
            box["error"] = e
    start(ready)
    if not pump(lambda: box, timeout):
        raise HarnessError(f"{what}: timed out after {timeout} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise HarnessError(f"cannot read {path}: {e}")


def read_urls(path):
    try:
        urls = json.loads(read_text(path))
    except json.JSONDecodeError as e:
        raise HarnessError(f"{path}: not JSON: {e}")
    if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
        raise HarnessError(f"{path}: expected a JSON array of strings")
    return urls


_context = None


def web_context():
    """One shared context: ephemeral (no cache, cookies or HSTS survive a run) and hermetic."""
    global _context, _dead_end
    if _context is None:
        # Every request goes to a proxy port that refuses at once: no DNS lookups (which sometimes
        # stall for 5 s here) and no real network. Content rules are applied before that point.
        _dead_end = socket.socket()
        _dead_end.bind(("127.0.0.1", 0))   # bound, never listening: connections are refused
        proxy = "http://127.0.0.1:%d" % _dead_end.getsockname()[1]
        data = WebKit2.WebsiteDataManager.new_ephemeral()
        data.set_network_proxy_settings(WebKit2.NetworkProxyMode.CUSTOM,
                                        WebKit2.NetworkProxySettings.new(proxy, None))
        _context = WebKit2.WebContext.new_with_website_data_manager(data)
    return _context


def make_view(ucm):
    view = WebKit2.WebView(web_context=web_context(), user_content_manager=ucm)
    view.connect("script-dialog", lambda v, d: True)   # an unanswered alert() would stall the page
    win = Gtk.OffscreenWindow()
    win.set_default_size(1024, 768)
    win.add(view)
    win.show_all()
    return view, win


def content_manager(guard):
    ucm = WebKit2.UserContentManager()
    for source in (CONSOLE_CAPTURE, guard):
        if source is not None:
            ucm.add_script(WebKit2.UserScript.new(source, WebKit2.UserContentInjectedFrames.ALL_FRAMES,
                                                  WebKit2.UserScriptInjectionTime.START, None, None))
    return ucm


# ---------------------------------------------------------------------------------------- rules

def same_uri(a, b):
    # WebCore keeps "%7e" where libsoup's error reports "~"; compare decoded forms.
    return urllib.parse.unquote(a or "") == urllib.parse.unquote(b or "")


class Navigator:
    """Loads one URL at a time and reports how that load ended."""

    def __init__(self, ucm):
        self.ucm, self.view, self.win, self.load = ucm, None, None, None
        self.fresh_view()

    def fresh_view(self):
        # After a timeout the old view may still emit signals; a new view makes them harmless.
        if self.win is not None:
            self.win.destroy()
        self.view, self.win = make_view(self.ucm)
        self.view.connect("load-changed", self.on_changed)
        self.view.connect("load-failed", self.on_failed)

    def on_changed(self, view, event):
        load = self.load
        if view is not self.view or load is None:
            return
        if event == WebKit2.LoadEvent.STARTED:
            load["started"] = True
        elif event == WebKit2.LoadEvent.COMMITTED:
            load["committed"] = True
        elif event == WebKit2.LoadEvent.REDIRECTED:
            load["uri"] = view.get_uri()
        elif event == WebKit2.LoadEvent.FINISHED and load["started"]:
            load["done"] = True

    def on_failed(self, view, event, uri, error):
        load = self.load
        if view is self.view and load and load["started"] and not load["done"] and load["error"] is None:
            if same_uri(uri, load["uri"]):
                load["error"] = error
            else:
                print(f"harness: ignored a failure for {uri} while loading {load['uri']}", file=sys.stderr)
        return True   # no error page: it would be one more load

    def check(self, url, timeout):
        self.load = load = {"started": False, "committed": False, "done": False, "error": None}
        self.view.load_uri(url)
        load["uri"] = self.view.get_uri()   # WebKit's parsed form: what url-filter sees (plus #fragment)
        finished = pump(lambda: load["done"], timeout)
        self.load = None
        result = {"url": url, "uri": load["uri"], "blocked": False, "error": None, "domain": None, "code": None}
        e = load["error"]
        if not finished:
            result["error"] = "timeout"
            self.view.stop_loading()
        elif e is not None:
            by_code = e.domain == GLib.quark_to_string(WebKit2.policy_error_quark()) and e.code == BLOCKER_CODE
            by_text = "content blocker" in e.message.lower()
            if by_code != by_text:
                print(f"harness: {url}: error code and message disagree: {e.domain} {e.code} {e.message}",
                      file=sys.stderr)
            result.update(blocked=by_code or by_text, error=e.message, domain=e.domain, code=e.code)
        if not finished or load["committed"]:
            # A committed page would turn a later URL that differs only in its #fragment into a
            # same-document navigation, which fires no load events.
            self.fresh_view()
        return result


def cmd_rules(args):
    rules = read_text(args.rules).encode("utf-8")
    urls = read_urls(args.urls)
    store_dir = tempfile.mkdtemp(prefix="ipalinks-filters-")
    try:
        store = WebKit2.UserContentFilterStore.new(store_dir)
        started = time.monotonic()
        try:
            rule_list = wait_async(lambda cb: store.save("ipalinks", GLib.Bytes.new(rules), None, cb),
                                   lambda s, r: s.save_finish(r), 300, "compiling the rule list")
        except GLib.Error as e:
            if e.domain != GLib.quark_to_string(WebKit2.user_content_filter_error_quark()):
                raise HarnessError(f"content filter store: {e.message}")
            return {"engine": engine(), "compileError": e.message}, 3
        compile_ms = round((time.monotonic() - started) * 1000)
        ucm = WebKit2.UserContentManager()
        ucm.add_filter(rule_list)
        navigator = Navigator(ucm)
        return {"engine": engine(), "compileMs": compile_ms,
                "results": [navigator.check(u, args.timeout) for u in urls]}, 0
    finally:
        shutil.rmtree(store_dir, ignore_errors=True)


# ------------------------------------------------------------------------------- eval and click

class Page:
    """A page loaded with load_html, with the console capture and optional guard at document start."""

    def __init__(self, guard):
        self.view, self.win = make_view(content_manager(guard))
        self.guard = guard

    def open(self, html, timeout=15, base=PAGE_BASE):
        state = {}
        handler = self.view.connect("load-changed",
                                    lambda v, event: event == WebKit2.LoadEvent.FINISHED and state.update(done=1))
        self.view.load_html(html, base)
        ok = pump(lambda: state, timeout)
        self.view.disconnect(handler)
        if not ok:
            raise HarnessError(f"the page did not finish loading in {timeout} s")

    def call(self, body, arguments=None, world=None, timeout=30):
        """Run an async JS function body; it must return a JSON string, which is parsed.
        WebKit accepts only scalar argument variants, so lists travel as JSON strings."""
        variant = GLib.Variant("a{sv}", arguments) if arguments else None
        try:
            value = wait_async(lambda cb: self.view.call_async_javascript_function(
                                   body, -1, variant, world, None, None, cb),
                               lambda s, r: s.call_async_javascript_function_finish(r), timeout, "JavaScript")
        except GLib.Error as e:
            raise HarnessError(f"JavaScript failed: {e.message}")
        return json.loads(value.to_string())

    def console_errors(self):
        errors = self.call("return JSON.stringify(window.__ipalinksConsoleErrors || []);")
        if self.guard is not None:
            # Syntax errors in user scripts only show up sanitised, so parse the guard ourselves.
            problem = self.call("try { new Function(source); return 'null'; } "
                                "catch (e) { return JSON.stringify(String(e)); }",
                                {"source": GLib.Variant("s", self.guard)}, WORLD)
            if problem:
                errors.insert(0, f"guard does not parse: {problem}")
        return errors


EVAL_JS = r"""
const out = [];
for (const url of JSON.parse(urlsJSON)) {
  try {
    const v = await window.ipalinksGuard.verdict(url);
    if (v === null || typeof v !== 'object')
      throw new TypeError(`verdict() returned ${v === null ? 'null' : typeof v}`);
    out.push({url, verdict: v.verdict ?? null, appID: v.appID ?? null, pointer: v.pointer ?? null, error: null});
  } catch (e) {
    out.push({url, verdict: null, appID: null, pointer: null, error: String(e)});
  }
}
return JSON.stringify(out);"""


def cmd_eval(args):
    guard = read_text(args.guard)
    urls = read_urls(args.urls)
    page = Page(guard)
    page.open(BLANK_PAGE)
    results = page.call(EVAL_JS, {"urlsJSON": GLib.Variant("s", json.dumps(urls))})
    return {"engine": engine(), "results": results, "consoleErrors": page.console_errors()}, 0


# Helpers below run in the isolated world; `targets` persists there between calls.
LIST_TARGETS_JS = r"""
globalThis.targets = Array.from(document.querySelectorAll('[data-click]'));
return JSON.stringify(targets.map(e => ({id: e.id || null, modifiers: e.getAttribute('data-modifiers') || ''})));"""

LOCATE_JS = r"""
const e = targets[index];
if (!e.isConnected) return JSON.stringify({error: 'element was removed before its click'});
e.scrollIntoView({block: 'center', inline: 'center'});
const r = e.getClientRects()[0];   // first box, so a link wrapped over two lines is hit on its first line
if (!r || r.width < 1 || r.height < 1) return JSON.stringify({error: 'element has no visible box'});
const x = r.left + r.width / 2, y = r.top + r.height / 2;
const hit = document.elementFromPoint(x, y);
if (!hit || !(hit === e || e.contains(hit)))
  return JSON.stringify({error: 'element centre is covered by ' + (hit ? hit.outerHTML.slice(0, 80) : 'nothing')});
return JSON.stringify({x, y});"""

DOM_CLICK_JS = r"""
const m = new Set(JSON.parse(modsJSON));
targets[index].dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, composed: true, view: window,
  detail: 1, button: 0, clientX: x, clientY: y,
  shiftKey: m.has('shift'), ctrlKey: m.has('ctrl'), altKey: m.has('alt'), metaKey: m.has('meta')}));
return 'null';"""


def modifier_masks():
    return {"shift": Gdk.ModifierType.SHIFT_MASK, "ctrl": Gdk.ModifierType.CONTROL_MASK,
            "alt": Gdk.ModifierType.MOD1_MASK, "meta": Gdk.ModifierType.META_MASK}


def parse_modifiers(text, element_id):
    mods = [m.strip().lower() for m in text.split(",") if m.strip()]
    unknown = [m for m in mods if m not in MODIFIERS]
    if unknown:
        raise HarnessError(f"element {element_id!r}: unknown data-modifiers {unknown} (allowed: {MODIFIERS})")
    return mods


def gdk_click(view, x, y, mods):
    """A real pointer click: WebKit treats it as trusted input with a user gesture."""
    pointer = Gdk.Display.get_default().get_default_seat().get_pointer()
    state = 0
    for m in mods:
        state |= int(modifier_masks()[m])
    # Real, increasing timestamps: WebKit's click counter would turn equal ones into double clicks.
    stamp = int(time.monotonic() * 1000) & 0xFFFFFFFF
    for kind, extra in ((Gdk.EventType.MOTION_NOTIFY, 0), (Gdk.EventType.BUTTON_PRESS, 0),
                        (Gdk.EventType.BUTTON_RELEASE, Gdk.ModifierType.BUTTON1_MASK)):
        event = Gdk.Event.new(kind)
        fields = event.motion if kind == Gdk.EventType.MOTION_NOTIFY else event.button
        fields.window, fields.send_event, fields.time = view.get_window(), 1, stamp
        fields.x, fields.y, fields.x_root, fields.y_root = x, y, x, y
        fields.state = state | int(extra)
        if kind != Gdk.EventType.MOTION_NOTIFY:
            fields.button = 1
        event.set_device(pointer)
        view.event(event)
        stamp += 1


def describe(kind, action):
    gdk_mods = action.get_modifiers()
    return {"kind": kind, "uri": action.get_request().get_uri(),
            "navigationType": action.get_navigation_type().value_nick,
            "userGesture": bool(action.is_user_gesture()),
            "mouseButton": action.get_mouse_button(),
            "modifiers": [m for m, mask in modifier_masks().items() if gdk_mods & int(mask)]}


class ClickRecorder(Page):
    def __init__(self, guard):
        super().__init__(guard)
        self.loading, self.page_seen = True, False
        self.unattributed = self.bucket = []
        self.view.connect("decide-policy", self.on_decide)
        self.view.connect("create", self.on_create)

    def on_decide(self, view, decision, kind):
        names = {WebKit2.PolicyDecisionType.NAVIGATION_ACTION: "navigation",
                 WebKit2.PolicyDecisionType.NEW_WINDOW_ACTION: "new-window"}
        if kind not in names:
            return False
        if self.loading and not self.page_seen and kind == WebKit2.PolicyDecisionType.NAVIGATION_ACTION:
            self.page_seen = True   # the load_html of the page itself
            return False
        self.bucket.append(describe(names[kind], decision.get_navigation_action()))
        if self.loading:
            return False   # e.g. iframes of the page; reported as unattributed
        decision.ignore()   # the page stays put for the next click
        return True

    def on_create(self, view, action):
        self.bucket.append(describe("create", action))
        return None   # no new view: the request is only recorded

    def run(self, html, settle, method, base=PAGE_BASE):
        self.open(html, base=base)
        self.loading = False
        pump(lambda: False, 0.3)   # let page scripts add late data-click elements
        if method == "gdk" and self.view.get_window() is None:
            print("harness: the web view has no GdkWindow; falling back to DOM clicks", file=sys.stderr)
            method = "dom"
        results = []
        for index, target in enumerate(self.call(LIST_TARGETS_JS, world=WORLD)):
            mods = parse_modifiers(target["modifiers"], target["id"])
            result = {"id": target["id"], "modifiers": mods, "error": None, "navigations": []}
            results.append(result)
            spot = self.call(LOCATE_JS, {"index": GLib.Variant("i", index)}, WORLD)
            if "error" in spot:
                result["error"] = spot["error"]
                continue
            pump(lambda: False, 0.05)   # let the scroll settle before pointing at the element
            self.bucket = result["navigations"]
            if method == "gdk":
                gdk_click(self.view, spot["x"], spot["y"], mods)
            else:
                self.call(DOM_CLICK_JS, {"index": GLib.Variant("i", index), "x": GLib.Variant("d", spot["x"]),
                                         "y": GLib.Variant("d", spot["y"]),
                                         "modsJSON": GLib.Variant("s", json.dumps(mods))}, WORLD)
            pump(lambda: False, settle)
            self.bucket = self.unattributed
        return {"engine": engine(), "clickMethod": method, "results": results,
                "unattributed": self.unattributed, "consoleErrors": self.console_errors()}


def cmd_click(args):
    guard = None if args.guard == "-" else read_text(args.guard)
    html = read_text(args.page)
    return ClickRecorder(guard).run(html, args.settle / 1000.0, args.click_method, args.base), 0


# ----------------------------------------------------------------------------------------- main

def parse_args(argv):
    parser = Args(prog="webkit_harness.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rules = sub.add_parser("rules", help="which URLs a content rule list blocks")
    rules.add_argument("rules")
    rules.add_argument("urls")
    rules.add_argument("--timeout", type=float, default=10.0, help="seconds per URL (default 10)")
    ev = sub.add_parser("eval", help="window.ipalinksGuard.verdict(url) for each URL")
    ev.add_argument("guard")
    ev.add_argument("urls")
    click = sub.add_parser("click", help="click each [data-click] element and record navigations")
    click.add_argument("guard", help="guard script, or - for none")
    click.add_argument("page")
    click.add_argument("--settle", type=int, default=1500, help="ms to record after each click (default 1500)")
    click.add_argument("--click-method", choices=("gdk", "dom"), default="gdk")
    click.add_argument("--base", default=PAGE_BASE, help="the page's URL (default %s)" % PAGE_BASE)
    return parser.parse_args(argv)


def main(argv):
    out = claim_stdout()
    try:
        args = parse_args(argv)
        load_gi()
        command = {"rules": cmd_rules, "eval": cmd_eval, "click": cmd_click}[args.command]
        document, status = command(args)
    except HarnessError as e:
        print(f"harness: {e}", file=sys.stderr)
        document, status = {"harnessError": str(e)}, 2
    except Exception as e:   # a harness bug or a WebKit failure, never a test verdict
        import traceback
        traceback.print_exc()
        document, status = {"harnessError": f"{type(e).__name__}: {e}"}, 2
    json.dump(document, out, ensure_ascii=False, indent=2)
    out.write("\n")
    out.flush()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
