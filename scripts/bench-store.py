#!/usr/bin/env python3
"""Benchmark the audit store (`--store`, docs/store.md): what recording a run costs `inspect`, and
what a year of weekly runs costs in size and in the time of the commands that read the store.

Usage: scripts/bench-store.py [--count 10000] [--history-count 1000] [--weeks 52] [--runs 1]
                              [--history-backends sqlite[,postgres]] [--skip-postgres] [--pg-fsync]
                              [--seed 1] [--binary .build/release/ipalinks] [--out bench-out/store]
                              [--keep]

Corpora come from scripts/make-batch-ipas.py (OUT/corpus-<count>-seed<seed>, reused while their
manifest matches). PostgreSQL is a private server of this script's own: initdb and pg_ctl in a
temporary folder, on a free loopback port, password (SCRAM) logins over TCP, run as the postgres
user under root; with fsync=off unless --pg-fsync (SQLite keeps its own durability settings, so
PostgreSQL is favoured there). It is stopped at the end, whatever happens.

1. Ingest. --count apps (10,000) through
       BINARY inspect DIR/ipas --aasa-dir DIR/aasa --format jsonl --no-progress [--store S] > /dev/null
   without a store (the baseline), into a new SQLite file, and into a new PostgreSQL database, in
   that order (--runs times, 3 by default, interleaved; median). Goal (issue 46): the store costs
   at most 18% more time, baseline/store >= 0.85. Peak memory (the child's ru_maxrss from wait4) of each; the store's
   `store runs` line is checked against the corpus (inputs, apps, finished).
2. History. --weeks (52) weekly runs of the --history-count corpus (1,000 apps), each
       BINARY inspect ipas --aasa-dir CURRENT --store S --run-label week-N --format jsonl --no-progress
   into a new store per backend (--history-backends: sqlite, postgres or both), CURRENT being one
   folder the week's WEEKDIR is copied to before each run, as a site serves its file at one URL
   whatever week it is (the folder's name is in each answer's message). WEEKDIR starts as
   the corpus's aasa/ and, from week 2 on, 3 hosts change their file each week (a component
   {"/": "/week-N/*"} added to the first details entry; the queried host is one of them every 4th
   week), so the store sees a known number of distinct file versions. Then:
   - the store's size per app per run (SQLite: the file plus its -wal; PostgreSQL:
     pg_database_size less that of the new, empty database), rows and bytes per table, and
     aasa_files rows against the distinct file versions written (bytes are kept once per version);
   - median of 5 of `who-claims HOST --store S -q`, `history --host HOST --store S` and
     `history --app com.bench.app0001 --store S` (history is skipped, said so, when the binary
     has no such command; when it fails, how is printed and the run goes on). Goal: each under 100 ms, process start included (`--version` alone,
     and who-claims on LATEST.jsonl below, without a store, are printed beside them);
   - `report --store S -o PAGE` against `report LATEST.jsonl -o PAGE`, LATEST.jsonl being the last
     week's inspect output (median of 3, interleaved). Goal: store/jsonl <= 1.2;
   - after the reads, one more run with the last week's files, in which nothing changed: the
     bytes it adds per app, the store compacted (SQLite VACUUM, PostgreSQL VACUUM FULL) before
     and after it. Goal: at most 500;
   - the peak memory of week N against week 1, and the median time of the last fifth of the
     weeks against the first fifth: bounded as runs accumulate means ~1.

Prints a table (phase, backend, apps, median s, apps/s, peak MiB, store size), the query times
with PASS or over, then `ratio` lines for each goal, and how long each phase took. Exits 1 when
a run fails (its stderr tail is printed); a goal that is missed is printed, not an error.
Standard library only. SQLite stores and week folders go to a temporary folder under --out,
removed at the end unless --keep (PostgreSQL's databases go with their server).
"""
import argparse
import collections
import glob
import hashlib
import json
import os
import pwd
import random
import re
import secrets
import shlex
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

from batchcorpus import corpus, self_peak_mib, tail, warm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUMMARY = re.compile(r"(?P<inputs>\d+) inputs? in .*?: (?P<complete>\d+) complete")
QUERY_RUNS = 5
REPORT_RUNS = 3
QUERY_GOAL_MS = 100.0
INGEST_GOAL = 0.85
REPORT_GOAL = 1.2
CHANGES_PER_WEEK = 3
UNCHANGED_GOAL = 500


def log(text):
    print(text, file=sys.stderr, flush=True)






def mib(n):
    return n / 1048576.0


# -- corpora ------------------------------------------------------------------------------------





# -- running ipalinks ---------------------------------------------------------------------------

class Failed(Exception):
    """A run or a command that failed; code and stderr when it was an ipalinks run."""

    def __init__(self, message, code=None, stderr=""):
        super().__init__(message)
        self.code, self.stderr = code, stderr


def run(cmd, stdout_path=os.devnull, ok=(0,), cpu=None, env=None):
    """One timed run of cmd, stdout to stdout_path, in env (this script's environment if None);
    returns (seconds, peak MiB, exit code, stderr), and appends the run's CPU seconds (user +
    system) to cpu if given. Raises Failed (with the stderr tail) unless the exit code is in ok.

    As in bench-batch.py: a child's ru_maxrss starts at this script's own peak, which is kept small
    (nothing is held whole; see the floor printed at the end)."""
    with open(stdout_path, "wb") as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:  # Ctrl-C, SIGTERM: the run goes too, before the server stops
            proc.kill()
            proc.wait()
            raise
        elapsed = time.perf_counter() - start
        if cpu is not None:
            cpu.append(usage.ru_utime + usage.ru_stime)
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if code not in ok:
        raise Failed("%s exited %d; stderr tail:\n%s" % (masked(cmd), code, tail(stderr)), code,
                     stderr)
    return elapsed, usage.ru_maxrss / 1024.0, code, stderr  # KiB -> MiB on Linux


def masked(cmd):
    return " ".join(shlex.quote(re.sub(r"(postgres://[^:/@]+:)[^@]*@", r"\1***@", c)) for c in cmd)


def has_command(binary, name):
    """Whether `binary --help` lists the subcommand `name`."""
    res = subprocess.run([binary, "--help"], capture_output=True, text=True)
    listing = res.stdout.split("SUBCOMMANDS:", 1)[-1]
    return any(line.split()[:1] == [name] for line in listing.splitlines())


def summary_inputs(stderr):
    found = [m for m in (SUMMARY.search(ln) for ln in stderr.splitlines()) if m]
    return int(found[-1].group("inputs")) if found else None


def store_runs(binary, store):
    """The runs `store runs --format jsonl` lists."""
    res = subprocess.run([binary, "store", "runs", "--store", store, "--format", "jsonl"],
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise Failed("store runs exited %d: %s" % (res.returncode, tail(res.stderr)))
    return [json.loads(line) for line in res.stdout.splitlines() if line.strip()]


def check_last_run(binary, store, manifest, label, warnings):
    """The last run recorded every input and bundle of the corpus, and finished."""
    runs = store_runs(binary, store)
    if not runs:
        warnings.append("%s: `store runs` lists no run" % label)
        return
    last = runs[-1]
    e = manifest["expected"]
    got = (last.get("inputs"), last.get("apps"), last.get("finishedAt") is not None)
    if got != (e["inputs"], e["bundles"], True):
        warnings.append("%s: last run has %s inputs, %s apps, finished %s; the corpus has %d inputs, "
                        "%d bundles" % (label, got[0], got[1], got[2], e["inputs"], e["bundles"]))


# -- a private PostgreSQL server ----------------------------------------------------------------

def locate_postgres():
    """The folder holding initdb, pg_ctl, postgres and psql, as PostgresTestServer.swift finds it:
    the PATH first (a symlink's target folder, then its own), then /usr/lib/postgresql/<v>/bin
    and Homebrew's opt/postgresql@<v>/bin, newest first."""
    def complete(folder):
        return all(os.access(os.path.join(folder, t), os.X_OK)
                   for t in ("initdb", "pg_ctl", "postgres", "psql"))

    def newest_first(pattern):
        def key(path):
            return [int(n) for n in re.findall(r"\d+", path)]
        return sorted(glob.glob(pattern), key=key, reverse=True)

    candidates = []
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        initdb = os.path.join(entry, "initdb")
        if entry and os.access(initdb, os.X_OK):
            candidates += [os.path.dirname(os.path.realpath(initdb)), entry]
    candidates += newest_first("/usr/lib/postgresql/*/bin")
    for prefix in ("/opt/homebrew", "/usr/local"):
        candidates += newest_first(prefix + "/opt/postgresql*/bin") + [prefix + "/bin"]
    for c in candidates:
        if complete(c):
            return c
    raise Failed("PostgreSQL's server binaries (initdb, pg_ctl, postgres, psql) are not on the PATH "
                 "or in /usr/lib/postgresql/*/bin: `make setup`, or apt-get install postgresql "
                 "(or pass --skip-postgres)")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """initdb + pg_ctl in a private folder on a free loopback port; a role `ipalinks` logs in by
    password over TCP. Under root, the tools run as the postgres user (runuser). stop() stops it
    and removes the folder; call it in a finally."""

    def __init__(self, fsync=False):
        self.bin = locate_postgres()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                raise Failed("running as root, which PostgreSQL refuses, and there is no postgres "
                             "user to run it as (Debian's postgresql package creates it)")
        self.fsync = fsync
        self.port = None
        self.password = "bench-" + secrets.token_hex(16)
        self.folder = tempfile.mkdtemp(prefix="pg-")  # short: the socket path must fit sockaddr_un
        self.data = os.path.join(self.folder, "data")
        self.log_path = os.path.join(self.folder, "server.log")
        self.started = False

    def _run(self, tool, args, as_postgres=None):
        argv = [os.path.join(self.bin, tool) if "/" not in tool else tool] + args
        if self.as_root if as_postgres is None else as_postgres:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        # A file, not a pipe: the postmaster pg_ctl leaves running must not hold our pipe open.
        with tempfile.TemporaryFile() as out:
            code = subprocess.call(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                   cwd=self.folder, env=env)
            out.seek(0)
            return code, out.read().decode("utf-8", "replace")

    def _check(self, tool, args):
        code, output = self._run(tool, args)
        if code != 0:
            raise Failed("%s %s exited %d:\n%s" % (tool, " ".join(args), code, tail(output)))
        return output

    def start(self):
        if self.as_root:
            # The postgres user must traverse every folder above ours (o+x, not listing).
            parent = os.path.dirname(self.folder)
            above = parent
            while above != "/":
                above = os.path.dirname(above)
                if not os.stat(above).st_mode & 0o001:
                    raise Failed("the postgres user cannot reach %s: set TMPDIR to a folder it can"
                                 % above)
            if not os.stat(parent).st_mode & 0o001:
                os.chmod(parent, os.stat(parent).st_mode | 0o001)
        pwfile = os.path.join(self.folder, "superuser-password")
        with open(pwfile, "w") as f:
            f.write(secrets.token_hex(16) + "\n")  # TCP logins as postgres are never used
        if self.as_root:
            subprocess.check_call(["chown", "-R", "postgres:postgres", self.folder])
        self._check("initdb", ["-D", self.data, "--auth-local=trust", "--auth-host=scram-sha-256",
                               "--username=postgres", "--pwfile=" + pwfile, "--encoding=UTF8",
                               "--locale=C", "--no-sync"])
        os.remove(pwfile)
        reason = ""
        for _ in range(5):
            port = free_port()
            options = "-p %d -k %s -c listen_addresses=127.0.0.1" % (port, shlex.quote(self.folder))
            if not self.fsync:
                options += " -c fsync=off"
            code, output = self._run("pg_ctl", ["start", "-w", "-t", "60", "-D", self.data,
                                                "-l", self.log_path, "-o", options])
            if code == 0:
                self.port = port
                self.started = True
                break
            reason = "pg_ctl start exited %d: %s" % (code, output.strip())
            if "could not bind" not in self.log() and "already in use" not in self.log():
                break
        if not self.started:
            raise Failed("PostgreSQL did not start: %s\nserver.log:\n%s" % (reason, tail(self.log())))
        self.sql("CREATE ROLE ipalinks LOGIN PASSWORD '%s'" % self.password)
        return self

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def sql(self, statement, database="postgres"):
        """Runs statement as the superuser over the Unix socket; returns psql's unaligned output."""
        return self._check("psql", ["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-h",
                                    self.folder, "-p", str(self.port), "-U", "postgres", "-d",
                                    database, "-c", statement]).strip()

    def create_database(self, name):
        self.sql('CREATE DATABASE "%s" OWNER ipalinks' % name)
        return "postgres://ipalinks:%s@127.0.0.1:%d/%s" % (self.password, self.port, name)

    def postmaster_pid(self):
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                return int(f.readline().strip())
        except (OSError, ValueError):
            return None

    def cpu_seconds(self):
        """The CPU seconds (user + system) the postmaster and its processes have used so far, from
        /proc; None where there is none. Read before and after a run: the server's share of it."""
        pid = self.postmaster_pid()
        if pid is None or not os.path.exists("/proc/%d/stat" % pid):
            return None
        ticks = os.sysconf("SC_CLK_TCK")
        pids = [pid] + [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)],
                                                         capture_output=True, text=True).stdout.split()]
        total = 0
        for p in pids:
            try:
                with open("/proc/%d/stat" % p) as f:
                    # utime, stime, cutime, cstime: after the name, which may hold spaces.
                    total += sum(int(x) for x in f.read().rsplit(")", 1)[1].split()[11:15])
            except OSError:
                pass  # a process that ended between the listing and the read
        return total / ticks

    def stop(self):
        """pg_ctl stop -m immediate (nothing here is kept); SIGKILL to the postmaster if that
        fails; waits until it is gone, then removes the folder."""
        pid = self.postmaster_pid()
        if pid is not None:
            code, _ = self._run("pg_ctl", ["stop", "-D", self.data, "-m", "immediate", "-w",
                                           "-t", "30"])
            if code != 0:
                try:
                    os.kill(pid, signal.SIGKILL)  # its children exit when the postmaster dies
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                log("WARNING: the PostgreSQL postmaster (pid %d) is still running" % pid)
        shutil.rmtree(self.folder, ignore_errors=True)
        self.started = False


# -- stores -------------------------------------------------------------------------------------

class Store:
    """A fresh store of one backend: its location for --store, its size and its aasa_files rows."""

    def __init__(self, backend, work, name, server=None):
        self.backend = backend
        self.server = server
        self.name = name
        if backend == "sqlite":
            self.path = os.path.join(work, name + ".sqlite")
            self.location = self.path
        else:
            self.location = server.create_database(name)
        # What the store takes before any run: nothing for a new SQLite file, PostgreSQL's
        # catalog (some 7.5 MiB) for a new database.
        self.empty = self.size()

    def size(self):
        if self.backend == "sqlite":
            return sum(os.path.getsize(p) for p in (self.path, self.path + "-wal")
                       if os.path.exists(p))
        return int(self.server.sql("SELECT pg_database_size(current_database())", self.name))

    def compacted_size(self):
        """The size after the database gives back what it no longer uses (SQLite's VACUUM, after
        which the -wal is empty; PostgreSQL's VACUUM FULL): what the rows themselves take."""
        if self.backend == "sqlite":
            db = sqlite3.connect(self.path)
            try:
                db.execute("VACUUM")
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                db.close()
        else:
            self.server.sql("VACUUM FULL", self.name)
        return self.size()

    def count(self, table):
        sql = "SELECT COUNT(*) FROM %s" % table
        if self.backend == "sqlite":
            db = sqlite3.connect("file:%s?mode=ro" % self.path, uri=True)
            try:
                return db.execute(sql).fetchone()[0]
            finally:
                db.close()
        return int(self.server.sql(sql, self.name))

    def tables(self):
        """(table, rows, bytes with its indexes) for the store's tables, biggest first; bytes is
        None where SQLite was built without the dbstat table."""
        if self.backend == "sqlite":
            db = sqlite3.connect("file:%s?mode=ro" % self.path, uri=True)
            try:
                names = [r[0] for r in db.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
                rows = {t: db.execute('SELECT COUNT(*) FROM "%s"' % t).fetchone()[0] for t in names}
                owner = dict(db.execute("SELECT name, tbl_name FROM sqlite_master"))
                try:
                    sizes = collections.Counter()
                    for name, size in db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
                        sizes[owner.get(name, name)] += size
                except sqlite3.Error:
                    sizes = None
            finally:
                db.close()
        else:
            out = self.server.sql("SELECT relname, n_live_tup, pg_total_relation_size(relid) "
                                  "FROM pg_stat_user_tables", self.name)
            names, sizes = [], {}
            for line in out.splitlines():
                t, _, size = line.split("|")
                names.append(t)
                sizes[t] = int(size)
            rows = {t: self.count(t) for t in names}
        result = [(t, rows[t], None if sizes is None else sizes.get(t, 0)) for t in names]
        return sorted(result, key=lambda r: -(r[2] or r[1]))


# -- the weekly AASA folders ------------------------------------------------------------------

def aasa_files(folder):
    """host file name -> path, for the files of an aasa/ folder."""
    return {n: os.path.join(folder, n) for n in sorted(os.listdir(folder))}


def changeable(path):
    """Whether the file has applinks details with a components list (the modern form)."""
    with open(path) as f:
        doc = json.load(f)
    details = (doc.get("applinks") or {}).get("details") or []
    return bool(details) and isinstance(details[0].get("components"), list)


def host_of_file(name):
    return name[:-len(".json")] if name.endswith(".json") else name


def make_weeks(base, work, weeks, seed, query_host):
    """work/weeks/week-NN for N in 1..weeks: week 1 is the corpus's aasa/, each later week the
    one before (hard links) with CHANGES_PER_WEEK hosts' files rewritten with a component
    {"/": "/week-N/*"} added to their first details entry; the query host is one of them every
    4th week. Returns (folders, distinct sha256 over every week's files, changed host names)."""
    files = aasa_files(base)
    candidates = [n for n, p in files.items() if changeable(p)]
    query_file = next((n for n in candidates if host_of_file(n) == query_host), None)
    rng = random.Random("%s:weeks" % seed)
    root = os.path.join(work, "weeks")
    folders, versions, changed = [], set(), set()
    previous = base
    for w in range(1, weeks + 1):
        folder = os.path.join(root, "week-%02d" % w)
        os.makedirs(folder)
        picks = []
        if w > 1:
            if query_file and w % 4 == 0:
                picks.append(query_file)
            others = [n for n in candidates if n not in picks]
            picks += rng.sample(others, min(CHANGES_PER_WEEK - len(picks), len(others)))
        for name in files:
            src, dst = os.path.join(previous, name), os.path.join(folder, name)
            if name in picks:
                with open(src) as f:
                    text = f.read()
                doc = json.loads(text)
                doc["applinks"]["details"][0]["components"].append({"/": "/week-%d/*" % w})
                with open(dst, "w") as f:  # the file's own style: pretty or compact
                    if text.startswith("{\n"):
                        json.dump(doc, f, indent=2)
                    else:
                        json.dump(doc, f, separators=(",", ":"))
                    f.write("\n")
                changed.add(host_of_file(name))
            else:
                try:
                    os.link(src, dst)
                except OSError:
                    shutil.copyfile(src, dst)
            with open(dst, "rb") as f:
                versions.add(hashlib.sha256(f.read()).hexdigest())
        folders.append(folder)
        previous = folder
    return folders, versions, changed


# -- the phases ---------------------------------------------------------------------------------

def ingest(args, binary, d, manifest, backends, server, work, warnings):
    """Baseline, SQLite and PostgreSQL runs of the big corpus; returns
    {backend: [(seconds, peak MiB, store bytes)]} and {backend: [(command CPU s, server CPU s)]}:
    CPU seconds vary less than wall time on a shared machine, and say what the store costs in all."""
    base = [binary, "inspect", os.path.join(d, "ipas"), "--aasa-dir", os.path.join(d, "aasa"),
            "--format", "jsonl", "--no-progress"]
    results = collections.OrderedDict((b, []) for b in ["baseline"] + backends)
    cpu = collections.OrderedDict((b, []) for b in results)
    for r in range(args.runs):
        for backend in results:
            label = "ingest %s, run %d/%d" % (backend, r + 1, args.runs)
            store = None
            cmd = list(base)
            if backend != "baseline":
                store = Store(backend, work, "ingest_%d" % (r + 1), server)
                cmd += ["--store", store.location]
            command = []
            server_before = server.cpu_seconds() if backend == "postgres" else None
            secs, peak, _, stderr = run(cmd, cpu=command)
            if backend == "postgres":
                time.sleep(0.5)  # the run's backend exits after the command: let the postmaster reap it
            server_after = server.cpu_seconds() if backend == "postgres" else None
            cpu[backend].append((command[0], None if server_before is None or server_after is None
                                 else server_after - server_before))
            n = summary_inputs(stderr)
            if n != manifest["expected"]["inputs"]:
                warnings.append("%s: the summary says %s inputs, the corpus has %d"
                                % (label, n, manifest["expected"]["inputs"]))
            size = None
            if store:
                check_last_run(binary, store.location, manifest, label, warnings)
                size = store.size()
            results[backend].append((secs, peak, size))
            log("[%s] %.2f s, %.1f MiB%s" % (label, secs, peak,
                                             "" if size is None else ", store %.1f MiB" % mib(size)))
    return results, cpu


def history(binary, d, manifest, backend, server, work, folders, latest_path, warnings):
    """--weeks runs into a new store; returns (store, [(seconds, peak MiB, store bytes)])."""
    store = Store(backend, work, "history", server)
    weeks = []
    current = os.path.join(work, "aasa-current")
    for w, folder in enumerate(folders, 1):
        serve(folder, current)
        cmd = [binary, "inspect", os.path.join(d, "ipas"), "--aasa-dir", current, "--store",
               store.location, "--run-label", "week-%d" % w, "--format", "jsonl", "--no-progress"]
        last = w == len(folders)
        secs, peak, _, stderr = run(cmd, latest_path if last else os.devnull)
        n = summary_inputs(stderr)
        if n != manifest["expected"]["inputs"]:
            warnings.append("history %s week %d: the summary says %s inputs, the corpus has %d"
                            % (backend, w, n, manifest["expected"]["inputs"]))
        size = store.size()
        weeks.append((secs, peak, size))
        log("[history %s week %d/%d] %.2f s, %.1f MiB, store %.1f MiB"
            % (backend, w, len(folders), secs, peak, mib(size)))
    check_last_run(binary, store.location, manifest, "history %s" % backend, warnings)
    runs = store_runs(binary, store.location)
    if len(runs) != len(folders):
        warnings.append("history %s: `store runs` lists %d runs, %d were made"
                        % (backend, len(runs), len(folders)))
    return store, weeks


def serve(folder, current):
    """The week's files at one path, as a site serves its file at one URL week after week: the
    folder's name is in each retrieval's message, and a name that changed every week would make
    every answer a new one."""
    shutil.rmtree(current, ignore_errors=True)
    shutil.copytree(folder, current)


def unchanged_run(binary, d, store, folder, n):
    """One more run of the history corpus with the last week's files, in which nothing changed:
    the bytes it adds per app, compacted before and after (VACUUM), and its time."""
    before = store.compacted_size()
    current = os.path.normpath(os.path.join(os.path.dirname(folder), os.pardir, "aasa-current"))
    serve(folder, current)
    cmd = [binary, "inspect", os.path.join(d, "ipas"), "--aasa-dir", current, "--store",
           store.location, "--run-label", "unchanged", "--format", "jsonl", "--no-progress"]
    secs, _, _, _ = run(cmd)
    after = store.compacted_size()
    log("[unchanged run %s] %.2f s, %+d bytes" % (store.backend, secs, after - before))
    return (after - before) / n, secs


def queries(binary, store, host, app, history_available, work, latest_path):
    """Median ms of each read query (None: not available; a string: how it failed), and the
    report times and sizes. Query names that start with "(" are references without the store,
    not held to the goal."""
    s = ["--store", store.location]
    commands = collections.OrderedDict([
        ("who-claims %s -q" % host, ([binary, "who-claims", host] + s + ["-q"], (0,))),
        ("(who-claims --inventory LATEST.jsonl)",
         ([binary, "who-claims", host, "--inventory", latest_path, "-q"], (0,))),
        # Exit 1 is "no history for it": a failure here, where both have one.
        ("history --host %s" % host, ([binary, "history", "--host", host] + s, (0,))),
        ("history --app %s" % app, ([binary, "history", "--app", app] + s, (0,))),
    ])
    times = collections.OrderedDict()
    for name, (cmd, ok) in commands.items():
        if name.startswith("history") and not history_available:
            times[name] = None
            continue
        try:
            runs = [run(cmd, ok=ok)[0] for _ in range(QUERY_RUNS)]
        except Failed as e:
            if not name.startswith("history"):
                raise
            # A command still being written: say how it failed, and go on.
            first = (e.stderr.strip().splitlines() or ["(no stderr)"])[0]
            times[name] = "exit %s: %s" % (e.code, first)
            log("[%s %s] failed: %s" % (store.backend, name, e))
            continue
        times[name] = statistics.median(runs) * 1000
        log("[%s %s] %s ms" % (store.backend, name, " ".join("%.0f" % (t * 1000) for t in runs)))
    pages = {"store": os.path.join(work, "report-%s-store.html" % store.backend),
             "jsonl": os.path.join(work, "report-%s-jsonl.html" % store.backend)}
    cmds = {"store": [binary, "report"] + s + ["-o", pages["store"], "--no-progress", "-q"],
            "jsonl": [binary, "report", latest_path, "-o", pages["jsonl"], "--no-progress", "-q"]}
    report = {"store": [], "jsonl": []}
    for _ in range(REPORT_RUNS):
        for k in ("store", "jsonl"):
            secs, peak, _, _ = run(cmds[k], ok=(0, 1))
            report[k].append((secs, peak))
    result = {k: (statistics.median(t for t, _ in v), max(p for _, p in v),
                  os.path.getsize(pages[k])) for k, v in report.items()}
    log("[%s report] store %s s, jsonl %s s" % (
        store.backend, " ".join("%.2f" % t for t, _ in report["store"]),
        " ".join("%.2f" % t for t, _ in report["jsonl"])))
    return times, result


def pick_host(manifest, aasa_dir):
    """The most popular shared host (the lowest K) that has an AASA file with components."""
    files = aasa_files(aasa_dir)
    for k in range(50):
        host = "shared-%d.example" % k
        for name in (host, host + ".json"):
            if name in files and changeable(files[name]):
                return host
    return "shared-0.example"


# -- main -----------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=10000, help="apps in the ingest corpus")
    ap.add_argument("--history-count", type=int, default=1000, help="apps in each weekly run")
    ap.add_argument("--weeks", type=int, default=52, help="weekly runs")
    ap.add_argument("--runs", type=int, default=3,
                    help="ingest runs per configuration, interleaved (median; the machine's speed drifts)")
    ap.add_argument("--history-backends", default="sqlite",
                    help="comma-separated: sqlite, postgres (default sqlite)")
    ap.add_argument("--skip-postgres", action="store_true", help="no PostgreSQL at all")
    ap.add_argument("--pg-fsync", action="store_true",
                    help="run PostgreSQL with fsync on (default off: a benchmark's throwaway cluster)")
    ap.add_argument("--seed", default="1", help="corpus seed")
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/ipalinks"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench-out", "store"),
                    help="where the corpora go (and, meanwhile, the stores)")
    ap.add_argument("--keep", action="store_true", help="keep the stores and week folders")
    args = ap.parse_args()
    if args.count < 1 or args.history_count < 2 or args.weeks < 1 or args.runs < 1:
        ap.error("--count, --weeks and --runs must be at least 1, --history-count at least 2")
    history_backends = [b.strip() for b in args.history_backends.split(",") if b.strip()]
    if not history_backends or set(history_backends) - {"sqlite", "postgres"}:
        ap.error("--history-backends takes sqlite, postgres or both")
    if args.skip_postgres:
        history_backends = [b for b in history_backends if b != "postgres"] or ["sqlite"]
    ingest_backends = ["sqlite"] + ([] if args.skip_postgres else ["postgres"])
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit("no executable at %s (make bench-store builds it)" % binary)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    # SIGTERM too goes through the finally below, which stops the server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    phases = collections.OrderedDict()
    warnings = []
    load_at_start = os.getloadavg()[0]
    t0 = time.perf_counter()
    big_dir, big, line = corpus(out, args.count, args.seed, quiet=True)
    log(line)
    hist_dir, hist, line = corpus(out, args.history_count, args.seed, quiet=True)
    log(line)
    for d, m in ((big_dir, big), (hist_dir, hist)):
        warm(d, m)
    phases["corpora"] = time.perf_counter() - t0
    history_available = has_command(binary, "history")
    startup = [run([binary, "--version"])[0] for _ in range(QUERY_RUNS)]
    host = pick_host(hist, os.path.join(hist_dir, "aasa"))
    app = "com.bench.app0001"

    work = tempfile.mkdtemp(prefix="run-", dir=out)
    server = None
    try:
        if not args.skip_postgres:
            t = time.perf_counter()
            server = PostgresServer(fsync=args.pg_fsync).start()
            phases["postgres start"] = time.perf_counter() - t
            log("PostgreSQL %s on 127.0.0.1:%d (fsync %s)"
                % (server.bin, server.port, "on" if args.pg_fsync else "off"))

        t = time.perf_counter()
        ingested, ingest_cpu = ingest(args, binary, big_dir, big, ingest_backends, server, work,
                                      warnings)
        phases["ingest"] = time.perf_counter() - t

        t = time.perf_counter()
        folders, versions, changed = make_weeks(os.path.join(hist_dir, "aasa"), work, args.weeks,
                                                args.seed, host)
        phases["week folders"] = time.perf_counter() - t
        latest = os.path.join(work, "LATEST.jsonl")
        histories, reads = collections.OrderedDict(), collections.OrderedDict()
        unchanged = {}
        for backend in history_backends:
            t = time.perf_counter()
            store, weeks = history(binary, hist_dir, hist, backend, server, work, folders,
                                   latest, warnings)
            phases["history %s (%d runs)" % (backend, args.weeks)] = time.perf_counter() - t
            t = time.perf_counter()
            histories[backend] = (store, weeks, store.count("aasa_files"), store.tables())
            reads[backend] = queries(binary, store, host, app, history_available, work,
                                     latest)
            # After the reads, which are timed on the weeks' runs alone.
            unchanged[backend] = unchanged_run(binary, hist_dir, store, folders[-1],
                                               args.history_count)
            phases["queries %s" % backend] = time.perf_counter() - t
    except Failed as e:
        sys.exit("FAIL: %s" % e)
    finally:
        if server is not None:
            server.stop()
        if args.keep:
            log("kept the SQLite stores, week folders, LATEST.jsonl and pages in %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)

    # -- the table ----------------------------------------------------------------------------
    print()
    name = os.path.relpath(binary, ROOT) if binary.startswith(ROOT + os.sep) else binary
    print("ipalinks store benchmark (%s); inspect --format jsonl --aasa-dir --no-progress > /dev/null"
          % name)
    if server is not None:
        print("PostgreSQL: a private server on loopback, fsync %s%s"
              % ("on" if args.pg_fsync else "off",
                 "" if args.pg_fsync else " (no durability cost; SQLite keeps its own)"))
    print(f"{'phase':<22} {'backend':<9} {'apps':>6} {'median s':>9} {'apps/s':>8} "
          f"{'peak MiB':>9} {'store MiB':>10}  runs (s)")
    med = {}
    for backend, rows in ingested.items():
        times = [s for s, _, _ in rows]
        med[backend] = statistics.median(times)
        size = rows[-1][2]
        print(f"{'ingest':<22} {backend:<9} {args.count:>6} {med[backend]:>9.2f} "
              f"{args.count / med[backend]:>8.1f} {max(p for _, p, _ in rows):>9.1f} "
              f"{'-' if size is None else '%.1f' % mib(size):>10}  "
              f"{' '.join('%.2f' % t for t in times)}")
    n = args.history_count
    for backend, (store, weeks, _, _) in histories.items():
        secs = [s for s, _, _ in weeks]
        rows = [("history week 1", weeks[0][0], weeks[0][1], weeks[0][2])]
        if len(weeks) > 1:
            rows += [("history week %d" % len(weeks), weeks[-1][0], weeks[-1][1], weeks[-1][2]),
                     ("history median week", statistics.median(secs),
                      statistics.median(p for _, p, _ in weeks), None)]
        for label, s, p, size in rows:
            print(f"{label:<22} {backend:<9} {n:>6} {s:>9.2f} {n / s:>8.1f} {p:>9.1f} "
                  f"{'-' if size is None else '%.1f' % mib(size):>10}")

    print()
    print("reads after %d weekly runs of %d apps (median of %d; goal under %.0f ms)"
          % (args.weeks, n, QUERY_RUNS, QUERY_GOAL_MS))
    print(f"  {'-':<9} {'ipalinks --version (process start alone)':<40} "
          f"{statistics.median(startup) * 1000:>7.0f} ms")
    for backend, (times, report) in reads.items():
        for q, ms in times.items():
            if ms is None:
                print(f"  {backend:<9} {q:<40} history: not available in this build")
            elif isinstance(ms, str):
                print(f"  {backend:<9} {q:<40} FAILED: {ms}")
                warnings.append("%s %s failed: %s" % (backend, q, ms))
            else:
                verdict = ("reference, no store" if q.startswith("(") else
                           "PASS" if ms < QUERY_GOAL_MS else "over")
                print(f"  {backend:<9} {q:<40} {ms:>7.0f} ms  {verdict}")
        for k, label in (("store", "report --store S -o PAGE"),
                         ("jsonl", "report LATEST.jsonl -o PAGE")):
            s, p, size = report[k]
            print(f"  {backend:<9} {label:<40} {s * 1000:>7.0f} ms  (median of {REPORT_RUNS}; "
                  f"peak {p:.1f} MiB, page {mib(size):.2f} MiB)")

    print()
    for backend in ingest_backends:
        r = med["baseline"] / med[backend]
        # Each run's ratio against the baseline run just before it: how far one pair alone can land.
        pairs = [b / s for (b, _, _), (s, _, _) in zip(ingested["baseline"], ingested[backend])]
        spread = "" if len(pairs) < 2 else f", run by run {min(pairs):.2f}-{max(pairs):.2f}"
        print(f"ratio ingest {backend}: baseline/store = {r:.2f} (goal >= {INGEST_GOAL}) "
              f"{'PASS' if r >= INGEST_GOAL else 'MISSED'}{spread}; peak memory "
              f"{max(p for _, p, _ in ingested[backend]):.1f} MiB vs baseline "
              f"{max(p for _, p, _ in ingested['baseline']):.1f} MiB")
        command = statistics.median(c for c, _ in ingest_cpu[backend])
        servers = [v for _, v in ingest_cpu[backend] if v is not None]
        served = statistics.median(servers) if servers else 0.0
        base_cpu = statistics.median(c for c, _ in ingest_cpu["baseline"])
        print(f"cpu ingest {backend}: baseline/store = {base_cpu / (command + served):.2f} "
              f"({base_cpu:.2f} s / {command:.2f} s"
              + (f" + {served:.2f} s the server's" if servers else "")
              + f"; medians of {len(ingest_cpu[backend])}, user + system)")
    for backend, (store, weeks, rows, tables) in histories.items():
        size = weeks[-1][2]
        net = size - store.empty
        print(f"ratio history {backend}: store size {net / (n * args.weeks):,.0f} bytes per app "
              f"per run ({mib(net):.1f} MiB for {n} apps x {args.weeks} runs"
              + (")" if not store.empty else
                 f"; pg_database_size {mib(size):.1f} MiB less {mib(store.empty):.1f} MiB for the "
                 f"empty database)"))
        added, secs = unchanged[backend]
        print(f"ratio history {backend}: a run in which nothing changed adds {added:,.0f} bytes per app "
              f"(goal <= {UNCHANGED_GOAL}) {'PASS' if added <= UNCHANGED_GOAL else 'MISSED'}; "
              f"compacted before and after; {secs:.2f} s")
        print(f"      {backend} tables: " + ", ".join(
            "%s %d rows%s" % (t, r, "" if b is None else " %.1f MiB" % mib(b)) for t, r, b in tables))
        print(f"ratio history {backend}: aasa_files rows {rows} for {len(versions)} distinct file "
              f"versions written ({len(changed)} hosts changed over the weeks) "
              f"{'PASS' if rows == len(versions) else 'MISMATCH'}")
        times, report = reads[backend]
        r = report["store"][0] / report["jsonl"][0]
        print(f"ratio history {backend}: report store/jsonl = {r:.2f} (goal <= {REPORT_GOAL}) "
              f"{'PASS' if r <= REPORT_GOAL else 'MISSED'}")
        if len(weeks) > 1:
            print(f"ratio history {backend}: peak memory week {len(weeks)}/week 1 = "
                  f"{weeks[-1][1] / weeks[0][1]:.2f} ({weeks[0][1]:.1f} -> {weeks[-1][1]:.1f} MiB; "
                  f"bounded means ~1), highest week {max(p for _, p, _ in weeks):.1f} MiB")
            k = max(1, len(weeks) // 5)  # a fifth of the weeks at each end: one week is noisy
            first = statistics.median(t for t, _, _ in weeks[:k])
            last = statistics.median(t for t, _, _ in weeks[-k:])
            span = ("week %d / week 1" % len(weeks) if k == 1 else
                    "weeks %d-%d / weeks 1-%d" % (len(weeks) - k + 1, len(weeks), k))
            print(f"ratio history {backend}: time {span} = {last / first:.2f} "
                  f"(medians {first:.2f} -> {last:.2f} s; flat means ~1)")
    print()
    print("phases: " + ", ".join("%s %.1f s" % (k, v) for k, v in phases.items()))
    e = hist["expected"]
    print(f"history corpus: {e['inputs']} inputs, {e['bundles']} bundles, {e['hosts']} hosts "
          f"({e['hosts_missing']} without an AASA file), {hist['aasa_files']} AASA files; "
          f"queried host {host}, app {app}")
    floor = self_peak_mib()
    print(f"this script's own peak RSS: {floor:.1f} MiB (a child's peak MiB cannot read lower)")
    if load_at_start > 0.5:
        print(f"note: machine not idle (load average {load_at_start:.2f} at the start): times are noisy")
    for w in warnings:
        print("WARNING: " + w)


if __name__ == "__main__":
    main()
