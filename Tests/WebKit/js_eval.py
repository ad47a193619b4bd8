#!/usr/bin/env python3
"""Run one script in a bare JavaScriptCore context (the engine of WebKit, through PyGObject) and report what it did.

    /usr/bin/python3 js_eval.py SCRIPT.js [--eval EXPR]...

No page, no DOM and no display: this checks that a generated script parses and what running it leaves behind, which
is all a syntax or injection test needs. `window` is the global object, so a browser script that installs itself on
`window` does so; there is no `document`, no `URL` and no `alert`.

1. The script's syntax is checked on its own (so a syntax error is reported as one, with its line).
2. It is evaluated as a classic script; an uncaught exception is reported.
3. Each --eval expression is evaluated in order, in the same global scope, after the script.

Prints exactly one JSON document on stdout:

    {"engine": "JavaScriptCore 2.50.6", "syntaxError": null, "exception": null,
     "evals": {"typeof __pwned": {"type": "string", "value": "undefined"}}}

`syntaxError` and `exception` are null or "Name: message (line N)". An eval that throws gives {"error": "..."};
`type` is the JavaScript typeof, and `value` is the value through JSON (null for undefined).
Exit status: 0 the harness worked (whatever the script did); 2 harness failure ({"harnessError": ...}).
"""
import argparse
import json
import sys

# The expression is spliced into a function body, so a throw is caught and reported instead of ending the run.
EVAL_JS = r"""(() => {
let v;
try { v = (
%s
); } catch (e) { return JSON.stringify({error: String(e)}); }
let value = null;
try { value = v === undefined ? null : JSON.parse(JSON.stringify(v) ?? 'null'); }
catch (e) { value = String(v); }
return JSON.stringify({type: typeof v, value});
})()"""


class HarnessError(Exception):
    pass


class Args(argparse.ArgumentParser):
    def error(self, message):   # keep the one-JSON-document contract for usage errors too
        raise HarnessError(f"usage: {message}")


def load_jsc():
    try:
        import gi
        gi.require_version("JavaScriptCore", "4.1")
        from gi.repository import JavaScriptCore
    except (ImportError, ValueError) as e:
        raise HarnessError(f"cannot load JavaScriptCore via PyGObject (use /usr/bin/python3): {e}")
    return JavaScriptCore


def describe(exception):
    if exception is None:
        return None
    return f"{exception.get_name()}: {exception.get_message()} (line {exception.get_line_number()})"


def run(args):
    jsc = load_jsc()
    try:
        with open(args.script, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise HarnessError(f"cannot read {args.script}: {e}")
    if "\0" in source:
        raise HarnessError("the script contains U+0000, which the C API cannot take")
    length = len(source.encode("utf-8"))
    context = jsc.Context.new()
    context.evaluate("globalThis.window = globalThis;", -1)
    status, exception = context.check_syntax(source, length, jsc.CheckSyntaxMode.SCRIPT, "script.js", 1)
    out = {
        "engine": f"JavaScriptCore {jsc.get_major_version()}.{jsc.get_minor_version()}.{jsc.get_micro_version()}",
        "syntaxError": None if status == jsc.CheckSyntaxResult.SUCCESS else describe(exception) or str(status),
        "exception": None,
        "evals": {},
    }
    if out["syntaxError"] is None:
        context.evaluate_with_source_uri(source, length, "script.js", 1)
        out["exception"] = describe(context.get_exception())
        context.clear_exception()
    for expression in args.eval:
        value = context.evaluate(EVAL_JS % expression, -1)
        failure = context.get_exception()
        context.clear_exception()
        if failure is not None:
            out["evals"][expression] = {"error": describe(failure)}
        else:
            out["evals"][expression] = json.loads(value.to_string())
    return out


def main(argv):
    parser = Args(prog="js_eval.py", description=__doc__.split("\n")[0])
    parser.add_argument("script")
    parser.add_argument("--eval", action="append", default=[], help="an expression to evaluate after the script")
    try:
        out = run(parser.parse_args(argv))
        status = 0
    except HarnessError as e:
        out, status = {"harnessError": str(e)}, 2
    json.dump(out, sys.stdout, ensure_ascii=True)
    sys.stdout.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
