#!/usr/bin/env python3
"""Run a corpus of navigations in the real WebKit engine (WebKitGTK) and record what WebKit decides and loads.

    xvfb-run -a /usr/bin/python3 navigation_harness.py PLAN.json [--rules RULES.json] [--guard GUARD.js]
                                                                 [--concurrency N]

Every https request goes through a proxy of this harness's own on loopback, which serves the plan's pages (and a
small page for any other URL) over TLS, so pages commit, history works and redirects happen, with nothing reaching
the network. Prints one JSON document on stdout; diagnostics go to stderr. Exit status 0 when the harness worked,
2 on a harness failure ({"harnessError": ...}). See README.md for the plan and the document.
"""
import argparse
import http.client
import json
import os
import shutil
import socket
import socketserver
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from webkit_harness import (CONSOLE_CAPTURE, BLOCKER_CODE, HarnessError, claim_stdout, engine, gdk_click,
                            load_gi, pump, wait_async)
import webkit_harness

GENERIC_PAGE = b"<!doctype html><meta charset=utf-8><title>page</title><p>a page"
QUIET_MS = 150       # a step ends after this long without a new decision or load event
STEP_LIMIT_MS = 15000  # and in any case after this long (a new web process on a loaded machine is slow to start)


# ------------------------------------------------------------------------------------------------- the proxy

class Site:
    """What the proxy serves: the plan's pages by URL, redirects for /r?to=..., a small page otherwise. It logs
    every request it receives, by URL without the fragment."""

    def __init__(self, pages):
        self.pages = pages
        self.lock = threading.Lock()
        self.requests = []   # (monotonic time, method, url)

    def log(self, method, url):
        with self.lock:
            self.requests.append((time.monotonic(), method, url))

    def served(self, url, since, until):
        """Whether a request for `url` (without its fragment, escapes decoded) arrived between the two times."""
        url = same_form(url)
        with self.lock:
            return any(same_form(u) == url and since <= t <= until for (t, _, u) in self.requests)

    def respond(self, method, url):
        self.log(method, url)
        parts = urllib.parse.urlsplit(url)
        if parts.path == "/r":
            target = urllib.parse.parse_qs(parts.query).get("to", [""])[0]
            return 302, [("Location", target)], b""
        body = self.pages.get(url)
        body = GENERIC_PAGE if body is None else body.encode("utf-8")
        return 200, [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")], body


def make_certificate(folder):
    """A self-signed certificate; WebKit is told to ignore TLS errors, so one serves every host."""
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "2", "-subj", "/CN=ipalinks-harness"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise HarnessError(f"cannot make a certificate with openssl: {e}")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


class ProxyHandler(socketserver.StreamRequestHandler):
    def handle(self):
        try:
            line = self.rfile.readline(65537).decode("latin-1")
            method, target, _ = line.split(" ", 2)
            self.read_headers(self.rfile)
            if method == "CONNECT":
                host = target.rsplit(":", 1)[0]
                self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                self.wfile.flush()
                tls = self.server.tls.wrap_socket(self.connection, server_side=True)
                reader, writer = tls.makefile("rb"), tls.makefile("wb")
                self.serve(reader, writer, "https://" + host)
            else:
                self.answer(self.wfile, method, target, b"")
        except (OSError, ValueError, ssl.SSLError):
            pass

    @staticmethod
    def read_headers(reader):
        headers = {}
        while True:
            line = reader.readline(65537).decode("latin-1")
            if line in ("\r\n", "\n", ""):
                return headers
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()

    def serve(self, reader, writer, origin):
        while True:
            line = reader.readline(65537).decode("latin-1")
            if not line.strip():
                return
            method, path, _ = line.split(" ", 2)
            headers = self.read_headers(reader)
            body = reader.read(int(headers.get("content-length", "0") or 0))
            self.answer(writer, method, origin + path, body)

    def answer(self, writer, method, url, body):
        status, headers, content = self.server.site.respond(method, url)
        reason = http.client.responses.get(status, "OK")
        head = f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(content)}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers)
        writer.write((head + "\r\n").encode("latin-1") + content)
        writer.flush()


class Proxy(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, site, tls):
        super().__init__(("127.0.0.1", 0), ProxyHandler)
        self.site, self.tls = site, tls
        threading.Thread(target=self.serve_forever, daemon=True).start()


# ------------------------------------------------------------------------------------------------- the views

def strip_fragment(url):
    return urllib.parse.urldefrag(url)[0]


def same_form(url):
    """A URL as it is compared with the requests: without its fragment, escapes decoded (WebKit's form of a URL and
    the request line may escape differently)."""
    return urllib.parse.unquote(strip_fragment(url))


class Runner:
    """One scenario in a web view of its own: its steps, one after the other, and every decision WebKit asks for."""

    LOCATE = r"""
    let doc = document;
    let dx = 0, dy = 0;
    if (frameSelector) {
      const frame = document.querySelector(frameSelector);
      if (frame && !frame.contentDocument) {
        // Another origin's frame, whose document this page cannot read: the plan's link fills it, so its centre.
        frame.scrollIntoView({block: 'center', inline: 'center'});
        const b = frame.getBoundingClientRect();
        return JSON.stringify({x: b.left + b.width / 2, y: b.top + b.height / 2});
      }
      if (!frame) return JSON.stringify({error: 'no frame ' + frameSelector});
      const box = frame.getBoundingClientRect();
      dx = box.left + frame.clientLeft; dy = box.top + frame.clientTop;
      doc = frame.contentDocument;
    }
    const e = doc.querySelector(selector);
    if (!e) return JSON.stringify({error: 'no element ' + selector});
    e.scrollIntoView({block: 'center', inline: 'center'});
    if (frameSelector) {
      const box = document.querySelector(frameSelector).getBoundingClientRect();
      dx = box.left; dy = box.top;
    }
    const r = e.getClientRects()[0];
    if (!r || r.width < 1 || r.height < 1) return JSON.stringify({error: 'element has no visible box'});
    return JSON.stringify({x: dx + r.left + r.width / 2, y: dy + r.top + r.height / 2});"""

    def __init__(self, harness, scenario, slot):
        self.harness, self.scenario, self.slot = harness, scenario, slot
        self.view = slot.view
        slot.runner = self
        self.decisions, self.steps, self.commits, self.failures = [], [], [], []
        self.step = -1
        self.committed = slot.committed   # the main frame's committed URL, as the slot's last scenario left it
        self.activity = time.monotonic()
        self.loading = False
        self.done = False
        self.script = self.run()
        self.waiting = None

    # Signals.

    def on_decide(self, view, decision, kind):
        names = {WebKit2.PolicyDecisionType.NAVIGATION_ACTION: "navigation",
                 WebKit2.PolicyDecisionType.NEW_WINDOW_ACTION: "new-window"}
        if kind not in names:
            return False
        action = decision.get_navigation_action()
        self.decisions.append({
            "step": self.step, "kind": names[kind], "uri": action.get_request().get_uri(),
            "navigationType": action.get_navigation_type().value_nick,
            "userGesture": bool(action.is_user_gesture()), "redirect": bool(action.is_redirect()),
            "page": self.committed, "time": time.monotonic()})
        self.activity = time.monotonic()
        if kind == WebKit2.PolicyDecisionType.NEW_WINDOW_ACTION:
            decision.ignore()   # no new view: recorded only
            return True
        return False   # WebKit's default: use

    def on_load(self, view, event):
        self.activity = time.monotonic()
        if event == WebKit2.LoadEvent.STARTED:
            self.loading = True
        elif event == WebKit2.LoadEvent.COMMITTED:
            self.committed = self.slot.committed = view.get_uri()
            self.commits.append({"step": self.step, "uri": self.committed})
        elif event == WebKit2.LoadEvent.FINISHED:
            self.loading = False

    def on_failed(self, view, event, uri, error):
        blocker = (error.domain == GLib.quark_to_string(WebKit2.policy_error_quark()) and error.code == BLOCKER_CODE) \
            or "content blocker" in error.message.lower()
        self.failures.append({"step": self.step, "uri": uri, "blocker": bool(blocker), "error": error.message})
        self.activity = time.monotonic()
        return True   # no error page

    # Steps: each yields a predicate; the scheduler resumes it once the predicate holds.

    def settled(self, decision, now):
        """Whether a decision has played out: its URL requested from the proxy, or its load failed, or three seconds
        gone by (a blocked iframe says nothing)."""
        if decision["kind"] != "navigation" or decision["uri"] == "about:blank" or now - decision["time"] > 3.0:
            return True
        if any(f["uri"] == decision["uri"] for f in self.failures):
            return True
        return self.harness.site.served(decision["uri"], decision["time"] - 0.001, now + 1)

    def quiet(self, started):
        def ready():
            now = time.monotonic()
            if now - started > STEP_LIMIT_MS / 1000:
                return True
            if self.loading or now - max(self.activity, started) <= QUIET_MS / 1000:
                return False
            return all(self.settled(d, now) for d in self.decisions if d["step"] == self.step)
        return ready

    def call(self, body, arguments):
        box = {}
        variant = GLib.Variant("a{sv}", arguments)

        def finished(view, result):
            try:
                box["value"] = json.loads(view.call_async_javascript_function_finish(result).to_string())
            except GLib.Error as e:
                box["value"] = {"error": e.message}
        self.view.call_async_javascript_function(body, -1, variant, webkit_harness.WORLD, None, None, finished)
        return box

    def run(self):
        loaded = None
        for index, step in enumerate(self.scenario["steps"]):
            self.step = index
            record = {"do": step["do"], "error": None}
            self.steps.append(record)
            started = time.monotonic()
            action = step["do"]
            # A step acts only on the scenario's own page: when a load did not end there (a rule list blocked it),
            # the rest of the scenario is not reached, rather than acted out on the page before it.
            if loaded is not None and strip_fragment(self.view.get_uri() or "") != strip_fragment(loaded):
                record["error"] = "not reached: the page did not load"
                continue
            if action == "load":
                self.view.load_uri(step["url"])
                self.loading = True
                loaded = step["url"]
            elif action == "click":
                box = self.call(self.LOCATE, {"selector": GLib.Variant("s", step["target"]),
                                              "frameSelector": GLib.Variant("s", step.get("frame") or "")})
                yield lambda: "value" in box
                spot = box["value"]
                if "error" in spot:
                    record["error"] = spot["error"]
                    continue
                yield self.pause(0.05)
                before = len(self.decisions)
                # Every tap in a plan navigates: wait for WebKit to ask (later on a loaded machine). A tap that
                # started nothing in three seconds (the page still laying out) is tried again, twice at most.
                for attempt in range(3):
                    if attempt:
                        box = self.call(self.LOCATE, {"selector": GLib.Variant("s", step["target"]),
                                                      "frameSelector": GLib.Variant("s", step.get("frame") or "")})
                        yield lambda: "value" in box
                        if "error" in box["value"]:
                            break
                        spot = box["value"]
                    gdk_click(self.view, spot["x"], spot["y"], [])
                    started = time.monotonic()
                    yield lambda: len(self.decisions) > before or time.monotonic() - started > 3.0
                    if len(self.decisions) > before:
                        break
                started = time.monotonic()
                loaded = None   # where the tap leads is what the scenario measures
            elif action in ("back", "forward"):
                # Only through this scenario's own history (its view is its own: "fresh" in the plan).
                if not (self.view.can_go_back() if action == "back" else self.view.can_go_forward()):
                    record["error"] = "not reached: no history to go " + action
                    continue
                before = len(self.decisions)
                self.view.go_back() if action == "back" else self.view.go_forward()
                loaded = None
                yield lambda: len(self.decisions) > before or time.monotonic() - started > STEP_LIMIT_MS / 1000
            elif action == "reload":
                before = len(self.decisions)
                self.view.reload()
                loaded = None
                yield lambda: len(self.decisions) > before or time.monotonic() - started > STEP_LIMIT_MS / 1000
            elif action == "wait":
                # With "for": "navigation", until the page's own script navigates (its timer runs late on a loaded
                # machine), at most "ms".
                before = len(self.decisions)
                limit = step.get("ms", 0) / 1000
                if step.get("for") == "navigation":
                    yield lambda: len(self.decisions) > before or time.monotonic() - started > limit
                    # Said, so that a navigation missing from this run is told apart from one a guard stopped.
                    if len(self.decisions) == before:
                        record["error"] = "not reached: no navigation within %d ms" % step.get("ms", 0)
                else:
                    yield self.pause(limit)
                started = time.monotonic()
            yield self.quiet(started)
        self.done = True

    @staticmethod
    def pause(seconds):
        until = time.monotonic() + seconds
        return lambda: time.monotonic() >= until

    def advance(self):
        """Resumes the scenario when what it waits for holds; returns whether it is finished."""
        while not self.done:
            if self.waiting is not None and not self.waiting():
                return False
            try:
                self.waiting = next(self.script)
            except StopIteration:
                self.done = True
        return True

    def result(self):
        self.slot.runner = None
        for d in self.decisions:
            # Only this scenario's group asks for its URLs while it runs (see Harness.run).
            d["served"] = self.harness.site.served(d["uri"], d["time"] - 0.001, d["time"] + STEP_LIMIT_MS / 1000)
            del d["time"]
        return {"id": self.scenario["id"], "steps": self.steps, "decisions": self.decisions, "commits": self.commits,
                "failures": self.failures}


class Slot:
    """A web view that runs one scenario after another. Views are kept, not made per scenario: each new view started
    web processes of its own, which took most of the run's time (and WebKitGTK 2.50 aborted now and then in the last
    g_object_unref of a view that shared a content filter). A scenario starts with a load the app makes, which
    leaves the last scenario's page and its timers behind; its history stays, behind the scenario's own."""

    def __init__(self, harness):
        self.runner = None
        self.committed = None
        self.view = WebKit2.WebView(web_context=harness.context, user_content_manager=harness.ucm)
        self.view.connect("script-dialog", lambda v, d: True)
        self.window = Gtk.OffscreenWindow()
        self.window.set_default_size(1024, 768)
        self.window.add(self.view)
        self.window.show_all()
        self.view.connect("decide-policy", self.on_decide)
        self.view.connect("create", lambda view, action: None)
        self.view.connect("load-changed", self.on_load)
        self.view.connect("load-failed", self.on_failed)

    def on_decide(self, view, decision, kind):
        if self.runner is not None:
            return self.runner.on_decide(view, decision, kind)
        return False

    def on_load(self, view, event):
        if event == WebKit2.LoadEvent.COMMITTED:
            self.committed = view.get_uri()
        if self.runner is not None:
            self.runner.on_load(view, event)

    def on_failed(self, view, event, uri, error):
        if self.runner is not None:
            return self.runner.on_failed(view, event, uri, error)
        return True


class Harness:
    def __init__(self, plan, rules, guard, concurrency):
        self.plan, self.concurrency = plan, concurrency
        self.folder = tempfile.mkdtemp(prefix="ipalinks-navigation-")
        self.site = Site(plan.get("pages", {}))
        self.proxy = Proxy(self.site, make_certificate(self.folder))
        data = WebKit2.WebsiteDataManager.new_ephemeral()
        data.set_network_proxy_settings(
            WebKit2.NetworkProxyMode.CUSTOM,
            WebKit2.NetworkProxySettings.new("http://127.0.0.1:%d" % self.proxy.server_address[1], None))
        data.set_tls_errors_policy(WebKit2.TLSErrorsPolicy.IGNORE)
        self.context = WebKit2.WebContext.new_with_website_data_manager(data)
        self.ucm = WebKit2.UserContentManager()
        for source in (CONSOLE_CAPTURE, guard):
            if source is not None:
                self.ucm.add_script(WebKit2.UserScript.new(
                    source, WebKit2.UserContentInjectedFrames.ALL_FRAMES, WebKit2.UserScriptInjectionTime.START,
                    None, None))
        self.compile_ms = None

        if rules is not None:
            store = WebKit2.UserContentFilterStore.new(os.path.join(self.folder, "filters"))
            started = time.monotonic()
            try:
                rule_list = wait_async(lambda cb: store.save("ipalinks", GLib.Bytes.new(rules.encode("utf-8")), None, cb),
                                       lambda s, r: s.save_finish(r), 300, "compiling the rule list")
            except GLib.Error as e:
                raise HarnessError(f"WebKit refused the rule list: {e.message}")
            self.compile_ms = round((time.monotonic() - started) * 1000)
            self.ucm.add_filter(rule_list)

    def run(self):
        queue = list(self.plan["scenarios"])
        active, results = [], {}
        slots = [Slot(self) for _ in range(self.concurrency)]
        ctx = GLib.MainContext.default()
        tick = GLib.timeout_add(5, lambda: True)
        try:
            while queue or active:
                # Scenarios of one group (one host's URLs) run one at a time, so each request the proxy logs
                # belongs to the one scenario that can ask for its URL.
                busy = {r.scenario.get("group") for r in active}
                for scenario in list(queue):
                    free = [slot for slot in slots if slot.runner is None]
                    if not free:
                        break
                    if scenario.get("group") not in busy:
                        queue.remove(scenario)
                        busy.add(scenario.get("group"))
                        if scenario.get("fresh"):
                            # A view of its own, whose history holds only this scenario's pages; it then replaces
                            # the pooled one.
                            slots.remove(free[0])
                            free[0] = Slot(self)
                            slots.append(free[0])
                        active.append(Runner(self, scenario, free[0]))
                ctx.iteration(True)
                for runner in [r for r in active if r.advance()]:
                    active.remove(runner)
                    results[runner.scenario["id"]] = runner.result()
        finally:
            GLib.source_remove(tick)
        shutil.rmtree(self.folder, ignore_errors=True)
        return {"engine": engine(), "compileMs": self.compile_ms,
                "scenarios": [results[s["id"]] for s in self.plan["scenarios"]]}


def main(argv):
    out = claim_stdout()
    try:
        parser = argparse.ArgumentParser(prog="navigation_harness.py")
        parser.add_argument("plan")
        parser.add_argument("--rules", help="a WKContentRuleList to install")
        parser.add_argument("--guard", help="a script to inject in every frame at document start")
        parser.add_argument("--concurrency", type=int, default=8)
        args = parser.parse_args(argv)
        load_gi()
        global GLib, Gtk, WebKit2
        GLib, Gtk, WebKit2 = webkit_harness.GLib, webkit_harness.Gtk, webkit_harness.WebKit2
        with open(args.plan, encoding="utf-8") as f:
            plan = json.load(f)
        rules = open(args.rules, encoding="utf-8").read() if args.rules else None
        guard = open(args.guard, encoding="utf-8").read() if args.guard else None
        document, status = Harness(plan, rules, guard, max(1, args.concurrency)).run(), 0
    except HarnessError as e:
        print(f"harness: {e}", file=sys.stderr)
        document, status = {"harnessError": str(e)}, 2
    except Exception as e:
        import traceback
        traceback.print_exc()
        document, status = {"harnessError": f"{type(e).__name__}: {e}"}, 2
    json.dump(document, out, ensure_ascii=False)
    out.write("\n")
    out.flush()
    return status


if __name__ == "__main__":
    status = main(sys.argv[1:])
    sys.stderr.flush()
    os._exit(status)   # no teardown of WebKit's objects: see Slot
