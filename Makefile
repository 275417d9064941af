# SPDX-License-Identifier: GPL-2.0-or-later
# rtlat - real-time latency benchmark suite.

# Cross builds: make CROSS_COMPILE=aarch64-linux-gnu- (or CC=...-gcc).
# The man pages and completion are then written by a host build of rtlat
# (HOSTCC), never by the target binary.
CROSS_COMPILE ?=
ifneq ($(CROSS_COMPILE),)
CC = $(CROSS_COMPILE)gcc
endif
HOSTCC ?= cc
TARGET := $(shell $(CC) -dumpmachine 2>/dev/null)
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
COMPLDIR = $(PREFIX)/share/bash-completion/completions
DATADIR = $(PREFIX)/share/rtlat
PYTHON ?= python3
VENV ?= .venv
QUICK ?= 0

CFLAGS ?= -O2 -g
# override: CFLAGS given on the command line (Buildroot's make CFLAGS=...)
# keep what rtlat needs.
override CFLAGS += -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -pthread
override LDLIBS += -pthread -lrt -lm

# src/ is in layers (docs/architecture.md): the library by role (util,
# measure, system), explain, fleet (verdicts and fleet outputs, over the
# library only), harness (the lifecycle), determinism (what bintime,
# response and sync share), the tests' wings (pair, timer, request,
# bintime, response, sync, doctor), suite, then the registry and main.c.
# Includes name their folder: "util/opts.h".
# Every folder under src/ is compiled: a new test is one folder (docs/architecture.md).
INCLUDES := -Isrc
SRCS := $(wildcard src/*.c src/*/*.c)
OBJS := $(SRCS:src/%.c=build/%.o)
LIBOBJS := $(filter-out build/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BIN := build/unit-tests

all: rtlat man

# Man pages and bash completion are written by rtlat from its option
# tables (rtlat --man NAME, rtlat --completion), so they never drift.
man: build/man/.done build/rtlat.bash

# GEN: the rtlat that writes them; a host build when CC makes binaries
# for another machine (its -dumpmachine differs from HOSTCC's).
CROSS := $(if $(filter $(TARGET),$(shell $(HOSTCC) -dumpmachine 2>/dev/null)),,1)
ifeq ($(CROSS),1)
GEN := build/host/rtlat
else
GEN := ./rtlat
endif

# rtlat-report(1) from rtlat-report's own argument parser (standard
# library only: the build host's python3, no venv); without python3 the
# page is left out, said in one line.
RTLAT_DATE := $(shell sed -n 's/^\#define RTLAT_DATE "\(.*\)"/\1/p' src/util/version.h)
build/man/.done: $(GEN) $(wildcard report/rtlat_report/*.py report/rtlat_report/*/*.py)
	rm -rf build/man && mkdir -p build/man
	for n in rtlat suite $$($(GEN) --help | awk '/^  [a-z]/ {print $$1}'); do \
		case $$n in rtlat*) f=$$n ;; *) f=rtlat-$$n ;; esac; \
		$(GEN) --man $$n > build/man/$$f.1 || exit 1; \
	done
	if command -v $(PYTHON) >/dev/null; then \
		PYTHONPATH=report $(PYTHON) -m rtlat_report.cli.manpage $(RTLAT_DATE) \
			> build/man/rtlat-report.1 || exit 1; \
	else echo "make: no $(PYTHON): rtlat-report(1) left out" >&2; fi
	touch $@

build/rtlat.bash: $(GEN)
	$(GEN) --completion > $@

# The host's rtlat, only to write the man pages and completion.
HOST_CFLAGS ?= -O1
HOST_LDFLAGS ?=
build/host/rtlat: $(SRCS) $(wildcard src/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -pthread \
		$(INCLUDES) $(HOST_LDFLAGS) -o $@ $(SRCS) $(LDLIBS)

rtlat: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Objects are rebuilt when the target machine changes (a cross build
# after a native one in the same tree).
build/.target: FORCE | build
	@[ "$$(cat $@ 2>/dev/null)" = "$(TARGET)" ] || echo "$(TARGET)" > $@

build/%.o: src/%.c build/.target | build
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<

FORCE:

build:
	mkdir -p build

$(UNIT_BIN): $(UNIT_SRCS) tests/unit/unit.h $(LIBOBJS)
	$(CC) $(CFLAGS) $(INCLUDES) -o $@ $(UNIT_SRCS) $(LIBOBJS) $(LDLIBS)

-include $(OBJS:.o=.d)

# make static: one self-contained build/static/ARCH/rtlat linked with
# musl, for any Linux of its architecture (ARCH: x86_64, aarch64...). musl-gcc (musl-tools) for this machine;
# with CROSS_COMPILE=aarch64-linux-gnu- the wrapper of Debian's
# musl-dev:arm64, aarch64-linux-musl-gcc (tests/install-deps --cross).
MUSL_CC ?= $(if $(CROSS_COMPILE),$(subst -gnu,-musl,$(CROSS_COMPILE))gcc,musl-gcc)
STATIC_ARCH = $(firstword $(subst -, ,$(shell $(MUSL_CC) -dumpmachine 2>/dev/null)))
static:
	@command -v $(MUSL_CC) >/dev/null || { echo "make static: no $(MUSL_CC) (apt-get install musl-tools; arm64: tests/install-deps --cross)" >&2; exit 1; }
	$(MAKE) build/static/$(STATIC_ARCH)/rtlat

build/static/%/rtlat: $(SRCS) $(wildcard src/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(MUSL_CC) -static $(CFLAGS) $(INCLUDES) $(LDFLAGS) -o $@ $(SRCS) $(LDLIBS)

# Test dependencies go into a local venv, never into the system.
$(VENV)/.done: tests/requirements.txt report/pyproject.toml
	PYTHON=$(PYTHON) tests/install-deps
	$(PYTHON) -m venv $(VENV)
	# One resolver run, then the bytecode at once on both CPUs (4 s): with
	# PYTHONDONTWRITEBYTECODE set, as some environments have it, nothing
	# is ever compiled on import and each rtlat-report run compiled
	# matplotlib anew (1.3 s instead of 0.4 s to import it).
	$(VENV)/bin/pip install -q --no-compile --disable-pip-version-check \
		-r tests/requirements.txt -e report/
	$(VENV)/bin/python -m compileall -q -j 0 $(VENV)/lib >/dev/null
	touch $@

venv: $(VENV)/.done

# What the system lacks is installed first, one apt-get at a time. The
# RT kernel's stage (QEMU, about 50 s of both CPUs) then runs at nice 19
# beside the venv, the unit tests and the integration tests, in the CPU
# time they leave (their runs sleep most of the time; their measuring
# threads are SCHED_FIFO), and tests/kernels is judged last, once the
# stage is done; its lines follow pytest's. SQUAD's venv for the fleet
# tests (tests/squad_venv.py, made once) is made beside them too, and the
# test venv beside the build. The integration tests run in four groups
# at once (tests/run-tests).
check:
	PYTHON=$(PYTHON) tests/install-deps
	tests/kernels/install-deps || [ $$? = 77 ]
	@mkdir -p build; $(MAKE) venv > build/venv.log 2>&1 & v=$$!; \
	$(MAKE) -j2 rtlat $(UNIT_BIN) || { wait $$v; exit 1; }; \
	nice -n 19 tests/kernels/run --quick > build/kernels-stage.log 2>&1 & k=$$!; \
	$(PYTHON) tests/squad_venv.py > build/squad-venv.log 2>&1 & s=$$!; \
	wait $$v; vr=$$?; cat build/venv.log; \
	[ $$vr = 0 ] && ./$(UNIT_BIN) && \
	RTLAT_KERNELS_BACKGROUND=1 tests/run-tests $(VENV)/bin/python; rc=$$?; \
	wait $$s; wait $$k; kr=$$?; cat build/kernels-stage.log; \
	[ $$rc = 0 ] && [ $$kr = 0 ]

# make cross-check: rtlat and the unit tests built for each of
# CROSS_TRIPLETS with Debian's cross compilers (warnings are errors), then
# the unit tests and a short run of every subcommand under qemu-user
# (tests/cross-check: exit status, output format, JSON, nothing left
# behind). An architecture whose tools cannot be installed is skipped with
# the reason. Not in make check (over its 6 minutes); .ci/run runs it.
CROSS_TRIPLETS ?= aarch64-linux-gnu arm-linux-gnueabihf riscv64-linux-gnu
CROSS_FLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -pthread
# These builds run under qemu-user only. They name the toolchain's own loader
# and C library (interpreter and DT_RPATH), so qemu needs no -L: with -L
# qemu maps every absolute path the program opens into the sysroot first,
# "/" included, and a walk from "/" (outfile.c) finds no /tmp there. The
# RPATH also keeps a foreign architecture's Debian libc (ld.so.cache) out.
cross_ld = -Wl,--dynamic-linker=$(firstword $(wildcard /usr/$(1)/lib/ld-linux*.so.*)) \
	-Wl,--disable-new-dtags -Wl,-rpath,/usr/$(1)/lib
cross-check:
	-tests/install-deps --cross
	tests/isolated $(PYTHON) tests/cross-check $(CROSS_TRIPLETS)

build/cross/%/rtlat: $(SRCS) $(wildcard src/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$*-gcc $(CROSS_FLAGS) $(call cross_ld,$*) $(INCLUDES) -o $@ $(SRCS) $(LDLIBS)

# tests/cross-check's probe of qemu-user itself (not rtlat).
build/cross/%/fork-thread: tests/cross/fork-thread.c
	@mkdir -p $(dir $@)
	$*-gcc $(CROSS_FLAGS) $(call cross_ld,$*) -o $@ $<

build/cross/%/unit-tests: $(UNIT_SRCS) tests/unit/unit.h $(SRCS) $(wildcard src/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$*-gcc $(CROSS_FLAGS) $(call cross_ld,$*) $(INCLUDES) -o $@ $(UNIT_SRCS) $(filter-out src/main.c,$(SRCS)) $(LDLIBS)

# Real kernels under QEMU (tests/kernels, docs/guide.md "Real kernels"): Debian's
# PREEMPT_RT and stock 6.1 (KERNELS="rt stock"), or one's own with
# KERNEL=/boot/vmlinuz-V MODULES=/lib/modules/V. make check runs --quick.
KERNELS ?= rt stock
check-kernels: rtlat venv
	KERNEL="$(KERNEL)" MODULES="$(MODULES)" tests/kernels/run $(KERNELS)
	$(VENV)/bin/python -m pytest -q tests/kernels

# The one test that takes a CPU offline (timer -c 1 losing its CPU): alone,
# after make check, never beside other tests; .ci/run runs it.
check-offline: rtlat venv
	RTLAT_TEST_CPU_OFFLINE=1 tests/isolated $(VENV)/bin/python -m pytest -q \
		tests/test_attacks_timer.py -k offline

# make image: a FROM scratch OCI image of the static binary (nothing is
# pulled), localhost/rtlat:VERSION and build/image/rtlat-oci.tar, with
# podman or buildah (packaging/oci/build-image; docs/guide.md "Containers
# and VMs").
image: static
	packaging/oci/build-image

# The image run rootful by podman in several shapes (cpuset, quota,
# capabilities, privileged): tests/test_containers.py. Not in make check
# (installing podman and building the image); .ci/run runs it.
check-containers: rtlat venv
	-tests/install-deps --containers
	RTLAT_TEST_CONTAINERS=1 tests/isolated $(VENV)/bin/python -m pytest -q tests/test_containers.py

# Chaos: CHAOS_TRIALS trials of each stop signal per subcommand and mode
# (make check runs one trial of each).
CHAOS_TRIALS ?= 20
chaos: rtlat venv
	CHAOS_TRIALS=$(CHAOS_TRIALS) tests/isolated $(VENV)/bin/python -m pytest -q tests/test_chaos.py

# The same tests against an ASan+UBSan build.
check-asan:
	$(MAKE) clean-asan
	$(MAKE) -f Makefile BUILDDIR=build-asan asan-build
	./build-asan/unit-tests
	RTLAT_BIN=$(CURDIR)/build-asan/rtlat $(MAKE) venv
	RTLAT_BIN=$(CURDIR)/build-asan/rtlat tests/isolated $(VENV)/bin/python -m pytest -q -m "not slow" tests

ASAN_FLAGS := -O1 -g -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -pthread \
	-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

asan-build:
	mkdir -p build-asan
	$(CC) $(ASAN_FLAGS) $(INCLUDES) -o build-asan/rtlat $(SRCS) $(LDLIBS)
	$(CC) $(ASAN_FLAGS) $(INCLUDES) -o build-asan/unit-tests $(UNIT_SRCS) \
		$(filter-out src/main.c,$(SRCS)) $(LDLIBS)

clean-asan:
	rm -rf build-asan

# The tests that run threads (pair threads mode, timer's display ring,
# request's client, the determinism benchmarks: bintime, response and
# sync's three tests) against a ThreadSanitizer build; tests/tsan.supp says
# why each suppression is there. -f (fork) runs are left out: TSan does
# not follow a multithreaded fork, and those workers are processes.
# request's processes are forked by its spawner, which has no thread
# (src/request/request_spawn.c), so request runs whole, --explain too.
TSAN_FLAGS := -O1 -g -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -pthread \
	-fsanitize=thread -fno-omit-frame-pointer
# clang, or Debian's versioned one (clang-14 ... clang-19) where only that
# is installed (clang-tidy pulls it in without the plain name).
CLANG ?= $(or $(shell for c in clang clang-19 clang-18 clang-17 clang-16 \
	clang-15 clang-14; do command -v $$c && break; done),clang)
# clang when missing: installed as make check installs what it needs
# (tests/install-deps), or one line naming the package, never Error 127.
need-clang:
	@CLANG=$(CLANG) tests/install-deps --clang

TSAN_TESTS := tests/test_pair.py tests/test_timer.py tests/test_request.py \
	tests/test_explain.py tests/test_cyclictest.py tests/test_timer_cpus.py \
	tests/test_determinism.py
# Also left out: tests that signal a run within its first few hundred ms
# and expect the handlers in place; the TSan runtime's start-up is slower
# than that (the run is then killed by the signal, as before main()).
# sync's stop in test 2: the test waits for test 2's threads by counting
# them, and TSan's own background thread makes test 1 look like test 2.
TSAN_DESELECT := not fork and not -f] and not ptsem_types_end_by_signal and not endings_by_signal \
	and not sync_switch_stops_on_sigint_in_test_2

check-tsan: need-clang venv
	rm -rf build-tsan && mkdir -p build-tsan
	$(CLANG) $(TSAN_FLAGS) $(INCLUDES) -o build-tsan/rtlat $(SRCS) $(LDLIBS)
	RTLAT_BIN=$(CURDIR)/build-tsan/rtlat \
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$(CURDIR)/tests/tsan.supp" \
		tests/isolated $(VENV)/bin/python -m pytest -q -m "not slow" -k "$(TSAN_DESELECT)" $(TSAN_TESTS)

# libFuzzer harnesses (fuzz/*.c) with ASan+UBSan: each runs FUZZ_S seconds
# from its seed corpus (fuzz/corpus/NAME; new inputs go to build-fuzz/) and
# any crash, leak, UB or timeout fails. main.c and manpage.c (the command
# line's own modules) are left out of the library here.
FUZZ_S ?= 30
FUZZ_CC ?= $(CLANG)
FUZZERS := $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_FLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -pthread \
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_LIB_SRCS := $(filter-out src/main.c src/manpage.c,$(SRCS))
FUZZ_LIB_OBJS := $(FUZZ_LIB_SRCS:src/%.c=build-fuzz/lib/%.o)

# The library compiled once for every harness, instrumented for
# libFuzzer's coverage (fuzzer-no-link); each harness is linked with it.
build-fuzz/lib/%.o: src/%.c $(wildcard src/*.h src/*/*.h) | need-clang
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(INCLUDES) -c -o $@ $<

$(FUZZERS:%=build-fuzz/%): build-fuzz/%: fuzz/%.c $(FUZZ_LIB_OBJS) | need-clang
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(INCLUDES) -o $@ $< \
		$(FUZZ_LIB_OBJS) $(LDLIBS)

fuzz-build: $(FUZZERS:%=build-fuzz/%)

# fuzz/fuzz_report.py: rtlat-report's loader under hypothesis (in the venv).
fuzz: fuzz-build venv
	FUZZ_S=$(FUZZ_S) $(VENV)/bin/python fuzz/fuzz_report.py
	@for f in $(FUZZERS); do \
		mkdir -p build-fuzz/corpus/$$f && \
		echo "fuzz: $$f for $(FUZZ_S) s" && \
		./build-fuzz/$$f -max_total_time=$(FUZZ_S) -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=build-fuzz/$$f- \
			build-fuzz/corpus/$$f fuzz/corpus/$$f \
			2>build-fuzz/$$f.log || \
		{ tail -40 build-fuzz/$$f.log; exit 1; }; \
		grep -E 'stat::number_of_executed_units' build-fuzz/$$f.log; \
	done

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr --std=c11 -D_GNU_SOURCE -D__linux__ --suppress=missingIncludeSystem src tests/unit
	clang-tidy --quiet $(SRCS) -- -std=gnu11 -D_GNU_SOURCE $(INCLUDES) 2>&1 | \
		{ grep -E 'warning:|error:' && exit 1 || exit 0; }

# Every benchmark under bench/, against its peer; rewrites bench/RESULTS.md.
# QUICK=1: each script under a minute.
bench: rtlat
	QUICK=$(QUICK) bench/run-all

install: install-bin install-report

# The binary, its man pages, bash completion and the JSON Schema of its
# results (what debian/ packages).
install-bin: rtlat man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(COMPLDIR)
	install -m 755 rtlat $(DESTDIR)$(BINDIR)/rtlat
	install -m 644 build/man/*.1 $(DESTDIR)$(MANDIR)/
	install -m 644 build/rtlat.bash $(DESTDIR)$(COMPLDIR)/rtlat
	install -D -m 644 schema/rtlat.schema.json $(DESTDIR)$(DATADIR)/rtlat.schema.json

# rtlat-report (Python, matplotlib) in its own venv under PREFIX/lib, never
# into the system's Python; BINDIR/rtlat-report links to it. Packagers
# install report/ with their Python tooling instead (pip install ./report).
REPORT_VENV = $(PREFIX)/lib/rtlat-report
install-report:
	$(PYTHON) -m venv --clear $(DESTDIR)$(REPORT_VENV)
	$(DESTDIR)$(REPORT_VENV)/bin/pip install -q ./report
	install -d $(DESTDIR)$(BINDIR)
	ln -sf $(REPORT_VENV)/bin/rtlat-report $(DESTDIR)$(BINDIR)/rtlat-report

# Separate from install so it never clobbers an installed rt-tests. The
# names come from the registry (src/registry.c) through rtlat --list-compat.
install-compat: install-bin $(GEN)
	names=$$($(GEN) --list-compat) && test -n "$$names" && \
	for n in $$names; do ln -sf rtlat $(DESTDIR)$(BINDIR)/$$n; \
		ln -sf rtlat $(DESTDIR)$(COMPLDIR)/$$n; done

# Removes what install and install-compat put there; a compatible name
# only when it is our link (never an installed rt-tests).
uninstall:
	for n in $$($(GEN) --list-compat); do \
		for d in $(DESTDIR)$(BINDIR) $(DESTDIR)$(COMPLDIR); do \
			[ "$$(readlink $$d/$$n 2>/dev/null)" = rtlat ] && rm -f $$d/$$n; \
		done; \
	done; true
	rm -f $(DESTDIR)$(BINDIR)/rtlat $(DESTDIR)$(COMPLDIR)/rtlat
	rm -f $(DESTDIR)$(DATADIR)/rtlat.schema.json
	rmdir $(DESTDIR)$(DATADIR) 2>/dev/null || true
	for f in build/man/*.1; do rm -f $(DESTDIR)$(MANDIR)/$${f##*/}; done
	[ "$$(readlink $(DESTDIR)$(BINDIR)/rtlat-report 2>/dev/null)" != "$(REPORT_VENV)/bin/rtlat-report" ] || \
		rm -f $(DESTDIR)$(BINDIR)/rtlat-report
	rm -rf $(DESTDIR)$(REPORT_VENV)

# The Debian packages (debian/: rtlat and rtlat-report), built from the
# committed tree (git archive HEAD) in build/deb, so nothing is written
# outside the checkout, with Debian's own tools first on the PATH (not a
# pyenv or venv python); lintian must find nothing, pedantic tags included;
# then debian/tests (autopkgtest) run against the packages
# (tests/deb-autopkgtest). DEB_ARCH=arm64: a cross build of the rtlat
# package (dpkg-buildpackage -aarm64), lintian, no autopkgtest.
VERSION := $(shell sed -n 's/.*RTLAT_VERSION "\(.*\)"/\1/p' src/util/version.h)
DEB_ARCH ?=
DEB_ENV := PATH=/usr/sbin:/usr/bin:/sbin:/bin
# Every tag shown (pedantic and experimental too) fails. Not --fail-on
# info: lintian 2.116 then fails on a tag its own screen masks
# (dist-info/top_level.txt of a Python package) without showing it.
LINTIAN = lintian -I -E --pedantic --fail-on error,warning $(1) > build/deb/lintian.txt; \
	rc=$$?; cat build/deb/lintian.txt; [ $$rc = 0 ] && ! grep -q '^[EWIPX]: ' build/deb/lintian.txt
deb:
	tests/install-deps --deb $(DEB_ARCH)
	rm -rf build/deb && mkdir -p build/deb/rtlat-$(VERSION)
	git archive HEAD | tar -x -C build/deb/rtlat-$(VERSION)
ifeq ($(DEB_ARCH),)
	cd build/deb/rtlat-$(VERSION) && $(DEB_ENV) dpkg-buildpackage -us -uc -b
	$(DEB_ENV) $(call LINTIAN,build/deb/rtlat_$(VERSION)_*.changes)
	$(DEB_ENV) tests/deb-autopkgtest build/deb
else
	cd build/deb/rtlat-$(VERSION) && $(DEB_ENV) DEB_BUILD_OPTIONS=nocheck \
		CC=$$(dpkg-architecture -a$(DEB_ARCH) -qDEB_HOST_GNU_TYPE 2>/dev/null)-gcc \
		dpkg-buildpackage -us -uc -a$(DEB_ARCH) -Pcross,nocheck -B
	$(DEB_ENV) $(call LINTIAN,build/deb/rtlat_$(VERSION)_$(DEB_ARCH).changes)
endif

# make dist: the release tarball DISTDIR/rtlat-VERSION.tar.gz of the
# committed tree (git archive HEAD, under rtlat-VERSION/; gzip -n: the
# same bytes for the same commit), and the Buildroot package that
# downloads it, DISTDIR/buildroot/rtlat: its rtlat.hash is the committed
# one (the LICENSE's sha256) with the tarball's added, and its site
# defaults to DISTDIR (file://), to be set to a server once the tarball
# is published (BR2_PACKAGE_RTLAT_SITE). docs/guide.md "Buildroot and
# Yocto".
DISTDIR ?= build/dist
DIST_TAR = rtlat-$(VERSION).tar.gz
dist:
	rm -rf $(DISTDIR) && mkdir -p $(DISTDIR)/buildroot
	git archive --format=tar --prefix=rtlat-$(VERSION)/ HEAD | gzip -n -9 > $(DISTDIR)/$(DIST_TAR)
	git archive --format=tar --prefix=buildroot/ HEAD:packaging/buildroot | tar -x -C $(DISTDIR)
	cd $(DISTDIR) && { echo "# Locally computed by rtlat's make dist:"; \
		echo "sha256  $$(sha256sum $(DIST_TAR) | cut -d' ' -f1)  $(DIST_TAR)"; \
		cat buildroot/rtlat/rtlat.hash; } > rtlat.hash && mv rtlat.hash buildroot/rtlat/
	sed -i 's|^\tdefault ""$$|\tdefault "file://$(abspath $(DISTDIR))"|' \
		$(DISTDIR)/buildroot/rtlat/Config.in
	grep -q '^	default "file://' $(DISTDIR)/buildroot/rtlat/Config.in
	@echo "dist: $(DISTDIR)/$(DIST_TAR) and the Buildroot package $(DISTDIR)/buildroot/rtlat"

clean: clean-asan
	rm -rf build rtlat build-fuzz build-tsan

.PHONY: dist check-offline check-containers image FORCE static cross-check all bench check check-asan asan-build clean-asan fuzz fuzz-build check-tsan need-clang chaos lint install install-bin install-report install-compat uninstall deb man clean venv
