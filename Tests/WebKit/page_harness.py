#!/usr/bin/env python3
"""Load one local HTML page in the real WebKit engine (WebKitGTK through PyGObject) and report what it did.

    xvfb-run -a /usr/bin/python3 page_harness.py load PAGE.html --screenshot OUT.png [--eval JS]...
                                                 [--width 1280] [--height 900] [--timeout S]

The page is opened from file:// as a user opens a saved report. The harness records console errors and warnings,
uncaught errors, failed subresources and Content-Security-Policy violations; every request or navigation other than
the page itself (none reaches the network: a dead proxy refuses them); the value of each --eval expression,
evaluated in order in the page's world after the load (an expression, which may await; wrap statements in
`(() => { ... })()`); and a full-document PNG screenshot, taken after the evals.

Prints exactly one JSON document on stdout; diagnostics go to stderr.
Exit status: 0 the harness worked (whatever the page did); 2 harness failure ({"harnessError": ...}).

    {"engine": "WebKitGTK 2.50.6", "page": "file:///...", "consoleErrors": [], "consoleWarnings": [],
     "requests": [], "evals": {"document.scripts.length": {"type": "number", "value": 1}},
     "screenshot": "OUT.png", "screenshotSize": [1280, 4211]}

An eval that throws gives {"error": "..."}; `type` is the JavaScript typeof, and `value` is null for undefined.
"""
import argparse
import ctypes
import json
import os
import socket
import sys
import time

# Runs in the page's main world before anything else (user scripts are exempt from the page's CSP).
CONSOLE_CAPTURE = r"""(() => {
  const errors = [], warnings = [];
  Object.defineProperty(window, '__harnessConsole', {value: {errors, warnings}});
  const show = v => { try { return typeof v === 'string' ? v : (v instanceof Error ? String(v) : JSON.stringify(v)); }
                      catch (e) { return String(v); } };
  for (const [level, sink] of [['error', errors], ['warn', warnings]]) {
    const original = console[level];
    console[level] = function (...args) {
      sink.push(`console.${level}: ` + args.map(show).join(' '));
      return original.apply(this, args);
    };
  }
  window.addEventListener('error', e => errors.push(e instanceof ErrorEvent
    ? `error: ${e.message} (${e.filename || '?'}:${e.lineno})`
    : `resource error: <${e.target.localName}> ${e.target.src || e.target.href || ''}`), true);
  window.addEventListener('unhandledrejection', e => errors.push('unhandled rejection: ' + show(e.reason)));
  document.addEventListener('securitypolicyviolation', e => errors.push(
    `csp: ${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} (${e.sourceFile || '?'}:${e.lineNumber})`),
    true);
})();"""

# The expression is spliced into the function body: eval() would be refused by the page's CSP (and reported).
EVAL_JS = r"""
let v;
try { v = await (
%s
); } catch (e) { return JSON.stringify({error: String(e)}); }
let value = null;
try { value = v === undefined ? null : JSON.parse(JSON.stringify(v) ?? 'null'); }
catch (e) { value = String(v); }
return JSON.stringify({type: typeof v, value});"""


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


def web_context():
    """Ephemeral (nothing survives a run) and hermetic: every request goes to a proxy port that refuses at once,
    so even a request the page should never make cannot reach the network."""
    global _dead_end
    _dead_end = socket.socket()
    _dead_end.bind(("127.0.0.1", 0))   # bound, never listening: connections are refused
    proxy = "http://127.0.0.1:%d" % _dead_end.getsockname()[1]
    data = WebKit2.WebsiteDataManager.new_ephemeral()
    data.set_network_proxy_settings(WebKit2.NetworkProxyMode.CUSTOM, WebKit2.NetworkProxySettings.new(proxy, None))
    return WebKit2.WebContext.new_with_website_data_manager(data)


# ------------------------------------------------------------------------------------------- snapshot

def gpointer(obj):
    """The C pointer behind a PyGObject wrapper."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get(obj.__gpointer__, None)


def finish_snapshot_to_png(view, result, path):
    """webkit_web_view_get_snapshot_finish, then cairo_surface_write_to_png. Through PyGObject that needs the
    gi cairo bridge (python3-gi-cairo), which is often not installed; ctypes on the two C libraries does not."""
    try:
        import gi
        gi.require_foreign("cairo")
        view.get_snapshot_finish(result).write_to_png(path)
        return
    except ImportError:
        pass
    webkit = ctypes.CDLL("libwebkit2gtk-4.1.so.0")
    cairo = ctypes.CDLL("libcairo.so.2")
    webkit.webkit_web_view_get_snapshot_finish.restype = ctypes.c_void_p
    webkit.webkit_web_view_get_snapshot_finish.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                                           ctypes.POINTER(ctypes.c_void_p)]
    cairo.cairo_surface_write_to_png.restype = ctypes.c_int
    cairo.cairo_surface_write_to_png.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    cairo.cairo_surface_destroy.argtypes = [ctypes.c_void_p]
    error = ctypes.c_void_p()
    surface = webkit.webkit_web_view_get_snapshot_finish(gpointer(view), gpointer(result), ctypes.byref(error))
    if not surface:
        raise HarnessError("snapshot failed" + (" (GError)" if error.value else ""))
    try:
        status = cairo.cairo_surface_write_to_png(surface, os.fsencode(path))
        if status != 0:
            raise HarnessError(f"cairo_surface_write_to_png: cairo status {status}")
    finally:
        cairo.cairo_surface_destroy(surface)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise HarnessError(f"{path}: the snapshot is not a PNG")
    return [int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")]


# ------------------------------------------------------------------------------------------------ load

class PageRun:
    def __init__(self, width, height):
        ucm = WebKit2.UserContentManager()
        ucm.add_script(WebKit2.UserScript.new(CONSOLE_CAPTURE, WebKit2.UserContentInjectedFrames.ALL_FRAMES,
                                              WebKit2.UserScriptInjectionTime.START, None, None))
        self.view = WebKit2.WebView(web_context=web_context(), user_content_manager=ucm)
        self.view.connect("script-dialog", lambda v, d: True)   # an unanswered alert() would stall the page
        self.win = Gtk.OffscreenWindow()
        self.win.set_default_size(width, height)
        self.win.add(self.view)
        self.win.show_all()
        self.page_uri, self.requests, self.finished, self.failure = None, [], False, None
        self.view.connect("resource-load-started", self.on_resource)
        self.view.connect("decide-policy", self.on_decide)
        self.view.connect("create", self.on_create)
        self.view.connect("load-changed", self.on_changed)
        self.view.connect("load-failed", self.on_failed)

    def on_resource(self, view, resource, request):
        uri = request.get_uri()
        if uri != self.page_uri:
            self.requests.append({"kind": "resource", "uri": uri})

    def on_decide(self, view, decision, kind):
        names = {WebKit2.PolicyDecisionType.NAVIGATION_ACTION: "navigation",
                 WebKit2.PolicyDecisionType.NEW_WINDOW_ACTION: "new-window"}
        if kind not in names:
            return False
        uri = decision.get_navigation_action().get_request().get_uri()
        if kind == WebKit2.PolicyDecisionType.NAVIGATION_ACTION and uri == self.page_uri:
            return False
        self.requests.append({"kind": names[kind], "uri": uri})
        decision.ignore()   # the report must stay put; a navigation away would be a finding, not a page to load
        return True

    def on_create(self, view, action):
        self.requests.append({"kind": "create", "uri": action.get_request().get_uri()})
        return None

    def on_changed(self, view, event):
        if event == WebKit2.LoadEvent.FINISHED:
            self.finished = True

    def on_failed(self, view, event, uri, error):
        if uri == self.page_uri:
            self.failure = f"{uri}: {error.message}"
        return True

    def load(self, path, timeout):
        self.page_uri = GLib.filename_to_uri(os.path.abspath(path), None)
        self.view.load_uri(self.page_uri)
        if not pump(lambda: self.finished, timeout):
            raise HarnessError(f"the page did not finish loading in {timeout} s")
        if self.failure:
            raise HarnessError(f"the page failed to load: {self.failure}")

    def call(self, body, arguments=None, timeout=30):
        variant = GLib.Variant("a{sv}", arguments) if arguments else None
        try:
            value = wait_async(lambda cb: self.view.call_async_javascript_function(
                                   body, -1, variant, None, None, None, cb),
                               lambda s, r: s.call_async_javascript_function_finish(r), timeout, "JavaScript")
        except GLib.Error as e:
            raise HarnessError(f"JavaScript failed: {e.message}")
        return json.loads(value.to_string())

    def evaluate(self, expression):
        try:
            return self.call(EVAL_JS % expression)
        except HarnessError as e:   # e.g. a syntax error in the expression: its result, not a harness failure
            return {"error": str(e)}

    def console(self):
        return self.call("return JSON.stringify(window.__harnessConsole || {errors: ['console capture missing'], "
                         "warnings: []});")

    def screenshot(self, path, timeout):
        wait_async(lambda cb: self.view.get_snapshot(WebKit2.SnapshotRegion.FULL_DOCUMENT,
                                                     WebKit2.SnapshotOptions.NONE, None, cb),
                   lambda s, r: finish_snapshot_to_png(s, r, path), timeout, "snapshot")
        return png_size(path)


def cmd_load(args):
    if not os.path.isfile(args.page):
        raise HarnessError(f"no such page: {args.page}")
    run = PageRun(args.width, args.height)
    run.load(args.page, args.timeout)
    pump(lambda: False, args.settle / 1000.0)   # let the page's own script and layout settle
    evals = {}
    for expression in args.eval:
        evals[expression] = run.evaluate(expression)
    pump(lambda: False, 0.1)
    size = run.screenshot(args.screenshot, args.timeout) if args.screenshot else None
    console = run.console()
    return {"engine": engine(), "page": run.page_uri, "consoleErrors": console["errors"],
            "consoleWarnings": console["warnings"], "requests": run.requests,
            "evals": evals, "screenshot": args.screenshot, "screenshotSize": size}, 0


def parse_args(argv):
    parser = Args(prog="page_harness.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    load = sub.add_parser("load", help="load a local page, evaluate expressions, take a screenshot")
    load.add_argument("page")
    load.add_argument("--screenshot", help="PNG file for a full-document snapshot")
    load.add_argument("--eval", action="append", default=[], help="a JavaScript expression (repeatable)")
    load.add_argument("--width", type=int, default=1280)
    load.add_argument("--height", type=int, default=900)
    load.add_argument("--settle", type=int, default=200, help="ms to wait after the load (default 200)")
    load.add_argument("--timeout", type=float, default=20.0, help="seconds for the load and the snapshot")
    return parser.parse_args(argv)


def main(argv):
    out = claim_stdout()
    try:
        args = parse_args(argv)
        load_gi()
        document, status = cmd_load(args)
    except HarnessError as e:
        print(f"harness: {e}", file=sys.stderr)
        document, status = {"harnessError": str(e)}, 2
    except Exception as e:   # a harness bug or a WebKit failure, never a verdict about the page
        import traceback
        traceback.print_exc()
        document, status = {"harnessError": f"{type(e).__name__}: {e}"}, 2
    json.dump(document, out, ensure_ascii=False, indent=2)
    out.write("\n")
    out.flush()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
