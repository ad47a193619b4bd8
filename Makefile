# Two set-up commands for a fresh machine: `make demo` and `make test`. Everything else builds on them.
SHELL := /bin/bash
SWIFT ?= swift
BIN := .build/debug/ipalinks
APT_PACKAGES := libzip-dev libplist-dev pkg-config zip unzip python3 python3-yaml gir1.2-webkit2-4.1 python3-gi xvfb \
  xauth bsdutils nodejs postgresql openssl
# python3-yaml parses the workflow docs/keeping-current.md shows (RecipeTests).
# The real engines the blocklist tests drive on Linux: WebKitGTK through PyGObject, under Xvfb; bsdutils gives
# util-linux script(1), the pseudo-terminal the colour test runs the binary in; Node runs the JavaScript guard.
WEBKIT_TYPELIB := $(wildcard /usr/lib/*-linux-gnu/girepository-1.0/WebKit2-4.1.typelib)
# PostgreSQL's server binaries, for the private servers tests start (Tests/TestServers/PostgresTestServer.swift). The
# check looks for initdb where the packages put it, off the PATH: Debian's in /usr/lib/postgresql/<version>/bin (with
# the postgres user the harness runs it as under root, which PostgreSQL refuses), Homebrew's keg-only in opt/.
POSTGRES_INITDB := $(wildcard /usr/lib/postgresql/*/bin/initdb /opt/homebrew/opt/postgresql@*/bin/initdb \
  /usr/local/opt/postgresql@*/bin/initdb)
BREW_PACKAGES := libzip libplist pkg-config node postgresql@16 pyyaml
# Suites that drive real engines (WebKitGTK under Xvfb, swiftc, Node); `make test` runs them after the rest.
ENGINE_SUITES := BlocklistEngineTests|NavigationCorpusTests|ReportEngineTests|OutputEscapingEngineTests|SwiftGuardCompileTests|JSGuardNodeTests
# On Linux `make setup` installs every tool the tests drive, so tests that need one fail instead of skipping.
REQUIRE_ENGINES := IPALINKS_REQUIRE_ENGINES=$$([ "$$(uname)" = Linux ] && echo 1)
# Suites that assert wall-clock bounds (the fetcher's timeouts and overlap): run on their own after the rest, since
# synchronous CPU-bound tests beside them hold both cooperative threads, and the bounds would measure that wait (CI
# saw 11 s for a 1 s timeout whose connection, by the server's clock, closed on time).
TIMING_SUITES := AASAFetcherTests
# Suites that act at a moment of a run in a child process (kill it, or take its database away, once it has written
# something): each runs on its own after the rest, since tests beside it that hold both cooperative threads would
# let the child finish before the test can act (CI saw a refresh end while the test waited to kill it).
MOMENT_SUITES := StoreFaultTests RefreshTests
# The concurrent code ThreadSanitizer checks: the fetcher, shared fetches across a batch, batches, the progress bar.
MOMENTS := $(subst $() ,|,$(MOMENT_SUITES))
TSAN_SUITES := AASAFetcherTests|SharedAASAFetchesTests|BatchInspectorTests|AuditCommandTests|NetworkCommandTests|URLScanTests
# Sanitized code runs TLS handshakes several times slower; timing tests scale their timeouts and bounds by this.
SANITIZED_ENV := IPALINKS_TEST_TIME_SCALE=4 SWIFT_BACKTRACE=enable=no
# Seconds each libFuzzer harness runs in `make fuzz`.
FUZZ_SECONDS ?= 60
# Where `make install` puts the binary, its man page and shell completions; DESTDIR is prepended, for packagers.
PREFIX ?= /usr/local
# The build `make install` installs; `make test` checks the install with the debug build it already has.
CONFIGURATION ?= release
# Release builds link Swift's runtime and Foundation into the binary on Linux: a command starts without loading and
# relocating a dozen shared libraries, so a short command such as a store query takes a third less time
# (docs/performance.md). Every release build here passes the same flag, since a build with other flags compiles all
# of .build/release again. macOS keeps the runtime in the OS.
STATIC_STDLIB := $(if $(filter Linux,$(shell uname)),-Xswiftc -static-stdlib)
RELEASE := -c release $(STATIC_STDLIB)
INSTALL_FLAGS := $(if $(filter release,$(CONFIGURATION)),$(STATIC_STDLIB))
TEST_FILTER := awk -f scripts/test-filter.awk
# `swift test` with a temporary directory of its own, removed after the run: the scratch folders of the tests and of
# the binaries they run go there, not in /tmp. Each run, its build included, is stopped after TEST_LIMIT: the main
# stage takes about 15 minutes from a fresh clone, and a test that hangs then fails, named, instead of holding CI.
TEST_LIMIT ?= 45m
SWIFT_TEST := sh scripts/with-tmpdir.sh --limit $(TEST_LIMIT) $(SWIFT) test

.PHONY: setup build demo install test test-asan test-tsan fuzz lint format bench bench-match bench-scan bench-scan-count bench-fetch bench-refresh bench-batch bench-expansion bench-report bench-store report-demo samples clean

## Install the C libraries we link (libzip, libplist) if pkg-config cannot find them.
setup:
	@if pkg-config --exists libzip libplist-2.0 2>/dev/null && command -v zip >/dev/null && command -v openssl >/dev/null \
	  && python3 -c 'import yaml' 2>/dev/null \
	  && command -v node >/dev/null && { [ -n "$(POSTGRES_INITDB)" ] \
	    || { [ "$$(uname)" = Darwin ] && command -v initdb >/dev/null; }; } \
	  && { [ "$$(uname)" = Darwin ] || { command -v xvfb-run >/dev/null && [ -n "$(WEBKIT_TYPELIB)" ] \
	    && [ -x /usr/bin/script ]; }; }; then \
	  exit 0; \
	elif [ "$$(uname)" = Darwin ]; then \
	  echo "+ brew install $(BREW_PACKAGES)"; brew install $(BREW_PACKAGES); \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "+ apt-get install $(APT_PACKAGES)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
	  echo "+ sudo apt-get install $(APT_PACKAGES)"; \
	  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	else \
	  echo "Missing system packages. Run:"; echo "  sudo apt-get install -y $(APT_PACKAGES)"; exit 1; \
	fi

## Build, failing on any warning in our own code (dependencies' warnings are not ours to fix).
build: setup
	@set -o pipefail; $(SWIFT) build 2>&1 | tee .build-log.txt | grep -vE '^\[[0-9]+/[0-9]+\]' || { rm -f .build-log.txt; exit 1; }
	@if grep -E '/(Sources|Tests|Benchmarks)/[^ ]*: warning:' .build-log.txt; then \
	  echo "error: warnings in our code (listed above)"; rm -f .build-log.txt; exit 1; fi; rm -f .build-log.txt

## The main job on bundled samples, offline: AASA files come from samples/aasa instead of the network.
demo: build
	$(BIN) inspect samples/Store.ipa --aasa-dir samples/aasa
	$(BIN) inspect samples/Nested.ipa --aasa-dir samples/aasa
	$(BIN) blocklist samples/Store.ipa samples/Nested.ipa --aasa-dir samples/aasa --format patterns
	$(BIN) who-claims https://shop.example.com/buy/1 samples --aasa-dir samples/aasa

## The binary, its man page (from swift-argument-parser's generate-manual plugin) and bash, zsh and fish
## completions (from the binary itself), under $(DESTDIR)$(PREFIX).
install: setup
	$(SWIFT) build -c $(CONFIGURATION) $(INSTALL_FLAGS) --product ipalinks
	@# The page is the same from any build. The plugin's debug build never takes the flag: its host tools are built
	@# in .build/debug, and relinking them with -static-stdlib fails.
	$(SWIFT) package plugin generate-manual --configuration debug >/dev/null
	@set -e; bin=$$($(SWIFT) build -c $(CONFIGURATION) $(INSTALL_FLAGS) --show-bin-path)/ipalinks; \
	  root="$(DESTDIR)$(PREFIX)"; \
	  install -d "$$root/bin" "$$root/share/man/man1" "$$root/share/bash-completion/completions" \
	    "$$root/share/zsh/site-functions" "$$root/share/fish/vendor_completions.d"; \
	  install -m 755 "$$bin" "$$root/bin/ipalinks"; \
	  install -m 644 .build/plugins/GenerateManual/outputs/ipalinks/ipalinks.1 "$$root/share/man/man1/ipalinks.1"; \
	  "$$bin" --generate-completion-script bash > "$$root/share/bash-completion/completions/ipalinks"; \
	  "$$bin" --generate-completion-script zsh > "$$root/share/zsh/site-functions/_ipalinks"; \
	  "$$bin" --generate-completion-script fish > "$$root/share/fish/vendor_completions.d/ipalinks.fish"; \
	  echo "installed ipalinks $$("$$root/bin/ipalinks" --version) in $$root"

## Every test: unit, end-to-end on the built binary, bad inputs, plus the sample generator check.
test: build lint
	python3 scripts/make-samples.py --check
	@# The install from this build: binary, man page and completions, each non-empty and each what it claims to be.
	@set -e; root=$$(mktemp -d); $(MAKE) --no-print-directory install CONFIGURATION=debug PREFIX=$$root >/dev/null; \
	  "$$root/bin/ipalinks" --version | grep -qx '[0-9.]*'; \
	  grep -q '^\.Dt IPALINKS 1' "$$root/share/man/man1/ipalinks.1"; \
	  grep -q '_ipalinks' "$$root/share/bash-completion/completions/ipalinks"; \
	  grep -q '#compdef ipalinks' "$$root/share/zsh/site-functions/_ipalinks"; \
	  grep -q '^complete -c .ipalinks' "$$root/share/fish/vendor_completions.d/ipalinks.fish"; \
	  rm -rf "$$root"; echo "make install: binary, man page and completions checked"
	node --check Sources/IPALinksKit/Resources/ipalinks-guard.js
	node --check Sources/IPALinksKit/Resources/ipalinks-report.js
	set -o pipefail; $(REQUIRE_ENGINES) $(SWIFT_TEST) --skip '$(ENGINE_SUITES)|$(TIMING_SUITES)|$(MOMENTS)' 2>&1 \
	  | $(TEST_FILTER)
	set -o pipefail; $(SWIFT_TEST) --skip-build --filter '$(TIMING_SUITES)' 2>&1 | $(TEST_FILTER)
	@# A loop's status is its last command's: each suite's failure is kept, or only the last suite's would count.
	set -o pipefail; failed=0; for suite in $(MOMENT_SUITES); do $(REQUIRE_ENGINES) $(SWIFT_TEST) --skip-build \
	  --filter "$$suite" 2>&1 | $(TEST_FILTER) || failed=1; done; exit $$failed
	@# The real-engine suites run on their own: they load both cores, and the fetcher's timeout tests beside them
	@# would measure the starvation instead of the timeouts.
	set -o pipefail; $(REQUIRE_ENGINES) $(SWIFT_TEST) --skip-build --filter '$(ENGINE_SUITES)' 2>&1 | $(TEST_FILTER)

## The whole suite under AddressSanitizer (its own build folder), then the concurrent suites under ThreadSanitizer.
## Leak checking is off: the Swift runtime and Foundation keep caches for the process's life, which LSan reports.
test-asan: setup
	set -o pipefail; $(SANITIZED_ENV) ASAN_OPTIONS=detect_leaks=0 $(REQUIRE_ENGINES) $(SWIFT_TEST) --sanitize=address \
	  --scratch-path .build-asan --skip '$(ENGINE_SUITES)|$(TIMING_SUITES)|$(MOMENTS)' 2>&1 | $(TEST_FILTER)
	set -o pipefail; $(SANITIZED_ENV) ASAN_OPTIONS=detect_leaks=0 $(SWIFT_TEST) --sanitize=address --scratch-path .build-asan \
	  --skip-build --filter '$(TIMING_SUITES)' 2>&1 | $(TEST_FILTER)
	set -o pipefail; failed=0; for suite in $(MOMENT_SUITES); do $(SANITIZED_ENV) ASAN_OPTIONS=detect_leaks=0 $(REQUIRE_ENGINES) \
	  $(SWIFT_TEST) --sanitize=address --scratch-path .build-asan --skip-build --filter "$$suite" 2>&1 \
	  | $(TEST_FILTER) || failed=1; done; exit $$failed
	@# The navigation corpus is WebKit and Python against a compiled guard: a sanitizer sees nothing of it there.
	set -o pipefail; $(SANITIZED_ENV) ASAN_OPTIONS=detect_leaks=0 $(REQUIRE_ENGINES) \
	  $(SWIFT_TEST) --sanitize=address --scratch-path .build-asan --skip-build --filter '$(ENGINE_SUITES)' \
	  --skip NavigationCorpusTests 2>&1 | $(TEST_FILTER)
	$(MAKE) test-tsan

test-tsan: setup
	@# The fetcher's timing suite runs on its own here too: beside the other suites, its overlap test measured
	@# their load (arrivals spread over 4.4 s against a 3.6 s bound in one CI run).
	set -o pipefail; $(SANITIZED_ENV) TSAN_OPTIONS=halt_on_error=1 $(SWIFT_TEST) --sanitize=thread --scratch-path .build-tsan \
	  --filter '$(TSAN_SUITES)' --skip '$(TIMING_SUITES)' 2>&1 | $(TEST_FILTER)
	set -o pipefail; $(SANITIZED_ENV) TSAN_OPTIONS=halt_on_error=1 $(SWIFT_TEST) --sanitize=thread --scratch-path .build-tsan \
	  --skip-build --filter '$(TIMING_SUITES)' 2>&1 | $(TEST_FILTER)

## libFuzzer on every parser that reads untrusted bytes, FUZZ_SECONDS each (scripts/fuzz.sh; harnesses in Fuzz/).
fuzz: setup
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

## swift format, and a /// comment on every public declaration (scripts/undocumented.py).
lint:
	$(SWIFT) format lint --strict --recursive --configuration .swift-format Sources Tests Benchmarks Fuzz/Sources Package.swift Fuzz/Package.swift Plugins
	python3 scripts/undocumented.py

format:
	$(SWIFT) format --in-place --recursive --configuration .swift-format Sources Tests Benchmarks Fuzz/Sources Package.swift Fuzz/Package.swift Plugins

## Regenerate the committed samples and fixtures (deterministic).
samples:
	python3 scripts/make-samples.py

## A few hundred generated apps, with hosts shared directly and through wildcards, as one report page (offline).
REPORT_DEMO_APPS ?= 300
report-demo: build
	python3 scripts/make-batch-ipas.py .build/report-demo --count $(REPORT_DEMO_APPS) --subdomains --quiet
	$(BIN) report .build/report-demo/ipas --aasa-dir .build/report-demo/aasa -o .build/report-demo/report.html \
	  --no-progress -q || [ $$? = 1 ]
	@echo "report-demo: open .build/report-demo/report.html ($$(du -h .build/report-demo/report.html | cut -f1))"

## Memory and speed of `inspect` on a 1 GiB IPA with a 300 MB executable, against `unzip -p`.
bench: setup
	$(SWIFT) build $(RELEASE) --product ipalinks
	python3 scripts/bench-inspect.py

## URLs per second of the matcher against a naive NSRegularExpression baseline.
bench-match: setup
	$(SWIFT) run $(RELEASE) MatchBenchmark

## Instructions and simulated cache misses per URL of the same scan and of the per-app matcher, under callgrind:
## figures a shared machine's speed does not move (a few minutes; installs valgrind when it can).
bench-scan-count: setup
	$(SWIFT) build $(RELEASE) --product ScanBenchmark
	python3 scripts/bench-scan-count.py

## URLs per second of who-claims --urls's scan (host and prefix indexes) on 1,000 generated apps and 1,000,000 URLs,
## against every app's matcher asked in turn, with peak memory.
bench-scan: setup
	$(SWIFT) run $(RELEASE) ScanBenchmark

## Peak memory, time and size of every blocklist format for AASA files at the $(…) expansion limit, against literal rules.
bench-expansion: setup
	$(SWIFT) build $(RELEASE) --product ipalinks
	python3 scripts/bench-expansion.py

## 200 loopback domains with 200 ms latency each: sequential vs concurrent fetching, against the ideal.
bench-fetch: setup
	$(SWIFT) run $(RELEASE) FetchBenchmark

## `refresh` of a store whose apps claim 10,000 hosts, from a loopback server answering after 200 ms, against the
## ideal time at --concurrency 64 and against fetching the same hosts without a store.
bench-refresh: setup
	$(SWIFT) run $(RELEASE) RefreshBenchmark

## 1,000 generated IPAs through `inspect --format jsonl --aasa-dir`: throughput at --jobs 1 and 2, peak memory.
bench-batch: setup
	$(SWIFT) build $(RELEASE) --product ipalinks
	python3 scripts/bench-batch.py

## The audit store: 10,000 generated apps through `inspect --store` into SQLite and a private PostgreSQL server against
## no store (goal: baseline/store >= 0.8), then 52 weekly runs of 1,000 apps: size per app per run, AASA bytes kept
## once per version, who-claims and history times (goal: under 100 ms), report from the store against a saved inventory.
bench-store: setup
	$(SWIFT) build $(RELEASE) --product ipalinks
	python3 scripts/bench-store.py

## Page size and render time of `report` for 300 and 2,000 generated apps, and the search's time in WebKit; pass
## BEFORE=path/to/older/ipalinks to compare with another build in the same run.
bench-report: build
	python3 scripts/bench-report.py $(if $(BEFORE),--before $(BEFORE))

clean:
	rm -rf .build bench-out
