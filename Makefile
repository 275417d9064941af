# SPDX-License-Identifier: GPL-2.0-or-later
# rtlat - real-time latency benchmark suite.

CC ?= cc
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
COMPLDIR = $(PREFIX)/share/bash-completion/completions
PYTHON ?= python3
VENV ?= .venv
QUICK ?= 0

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -pthread
LDLIBS += -pthread -lrt -lm

# src/ is in wings: core (shared), pair, timer, request, suite, the
# determinism benchmarks bintime, response, sync, and doctor, explain.
WINGS := core pair timer request suite bintime response sync doctor explain
INCLUDES := -Isrc $(WINGS:%=-Isrc/%)
SRCS := $(wildcard src/*.c) $(foreach w,$(WINGS),$(wildcard src/$(w)/*.c))
OBJS := $(SRCS:src/%.c=build/%.o)
LIBOBJS := $(filter-out build/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BIN := build/unit-tests

all: rtlat man

# Man pages and bash completion are written by rtlat from its option
# tables (rtlat --man NAME, rtlat --completion), so they never drift.
man: build/man/.done build/rtlat.bash

build/man/.done: rtlat
	rm -rf build/man && mkdir -p build/man
	for n in rtlat rtlat-report suite $$(./rtlat --help | awk '/^  [a-z]/ {print $$1}'); do \
		case $$n in rtlat*) f=$$n ;; *) f=rtlat-$$n ;; esac; \
		./rtlat --man $$n > build/man/$$f.1 || exit 1; \
	done
	touch $@

build/rtlat.bash: rtlat
	./rtlat --completion > $@

rtlat: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/%.o: src/%.c | build
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<

build:
	mkdir -p build

$(UNIT_BIN): $(UNIT_SRCS) tests/unit/unit.h $(LIBOBJS)
	$(CC) $(CFLAGS) $(INCLUDES) -o $@ $(UNIT_SRCS) $(LIBOBJS) $(LDLIBS)

-include $(OBJS:.o=.d)

# Test dependencies go into a local venv, never into the system.
$(VENV)/.done: tests/requirements.txt report/pyproject.toml
	PYTHON=$(PYTHON) tests/install-deps
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q -r tests/requirements.txt
	$(VENV)/bin/pip install -q -e report/
	touch $@

venv: $(VENV)/.done

check: rtlat $(UNIT_BIN) venv
	./$(UNIT_BIN)
	$(VENV)/bin/python -m pytest -q tests

# The same tests against an ASan+UBSan build.
check-asan:
	$(MAKE) clean-asan
	$(MAKE) -f Makefile BUILDDIR=build-asan asan-build
	./build-asan/unit-tests
	RTLAT_BIN=$(CURDIR)/build-asan/rtlat $(MAKE) venv
	RTLAT_BIN=$(CURDIR)/build-asan/rtlat $(VENV)/bin/python -m pytest -q -m "not slow" tests

ASAN_FLAGS := -O1 -g -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -pthread \
	-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

asan-build:
	mkdir -p build-asan
	$(CC) $(ASAN_FLAGS) $(INCLUDES) -o build-asan/rtlat $(SRCS) $(LDLIBS)
	$(CC) $(ASAN_FLAGS) $(INCLUDES) -o build-asan/unit-tests $(UNIT_SRCS) \
		$(filter-out src/main.c,$(SRCS)) $(LDLIBS)

clean-asan:
	rm -rf build-asan

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

# The binary, its man pages and bash completion (what debian/ packages).
install-bin: rtlat man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(COMPLDIR)
	install -m 755 rtlat $(DESTDIR)$(BINDIR)/rtlat
	install -m 644 build/man/*.1 $(DESTDIR)$(MANDIR)/
	install -m 644 build/rtlat.bash $(DESTDIR)$(COMPLDIR)/rtlat

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
# names come from the registry (src/tests.c) through rtlat --list-compat.
install-compat: install-bin
	names=$$(./rtlat --list-compat) && test -n "$$names" && \
	for n in $$names; do ln -sf rtlat $(DESTDIR)$(BINDIR)/$$n; \
		ln -sf rtlat $(DESTDIR)$(COMPLDIR)/$$n; done

# Removes what install and install-compat put there; a compatible name
# only when it is our link (never an installed rt-tests).
uninstall:
	for n in $$(./rtlat --list-compat); do \
		for d in $(DESTDIR)$(BINDIR) $(DESTDIR)$(COMPLDIR); do \
			[ "$$(readlink $$d/$$n 2>/dev/null)" = rtlat ] && rm -f $$d/$$n; \
		done; \
	done; true
	rm -f $(DESTDIR)$(BINDIR)/rtlat $(DESTDIR)$(COMPLDIR)/rtlat
	for f in build/man/*.1; do rm -f $(DESTDIR)$(MANDIR)/$${f##*/}; done
	[ "$$(readlink $(DESTDIR)$(BINDIR)/rtlat-report 2>/dev/null)" != "$(REPORT_VENV)/bin/rtlat-report" ] || \
		rm -f $(DESTDIR)$(BINDIR)/rtlat-report
	rm -rf $(DESTDIR)$(REPORT_VENV)

# The Debian package (debian/), built from the committed tree (git archive
# HEAD) in build/deb, so nothing is written outside the checkout; lintian
# must find no error.
VERSION := $(shell sed -n 's/.*RTLAT_VERSION "\(.*\)"/\1/p' src/core/version.h)
deb:
	rm -rf build/deb && mkdir -p build/deb/rtlat-$(VERSION)
	git archive HEAD | tar -x -C build/deb/rtlat-$(VERSION)
	cd build/deb/rtlat-$(VERSION) && dpkg-buildpackage -us -uc -b
	lintian --fail-on error build/deb/rtlat_$(VERSION)_*.changes

clean: clean-asan
	rm -rf build rtlat

.PHONY: all bench check check-asan asan-build clean-asan lint install install-bin install-report install-compat uninstall deb man clean venv
