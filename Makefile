# SPDX-License-Identifier: GPL-2.0-or-later
# rtlat - real-time latency benchmark suite.

CC ?= cc
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
PYTHON ?= python3
VENV ?= .venv

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -pthread
LDLIBS += -pthread -lrt -lm

# src/ is in wings: core (shared), pair, timer, request, suite.
WINGS := core pair timer request suite
INCLUDES := -Isrc $(WINGS:%=-Isrc/%)
SRCS := $(wildcard src/*.c) $(foreach w,$(WINGS),$(wildcard src/$(w)/*.c))
OBJS := $(SRCS:src/%.c=build/%.o)
LIBOBJS := $(filter-out build/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BIN := build/unit-tests

all: rtlat

rtlat: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/%.o: src/%.c | build
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<

build:
	mkdir -p build

$(UNIT_BIN): $(UNIT_SRCS) tests/unit/unit.h $(LIBOBJS)
	$(CC) $(CFLAGS) $(INCLUDES) -o $@ $(UNIT_SRCS) $(LIBOBJS) $(LDLIBS)

-include $(OBJS:.o=.d)

# Test dependencies go into a local venv, never into the system.
$(VENV)/.done: tests/requirements.txt
	PYTHON=$(PYTHON) tests/install-deps
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q -r tests/requirements.txt
	touch $@

venv: $(VENV)/.done

check: rtlat $(UNIT_BIN) venv
	./$(UNIT_BIN)
	$(VENV)/bin/python -m pytest -q tests

# Chaos: CHAOS_TRIALS trials of each stop signal per subcommand and mode
# (make check runs one trial of each).
CHAOS_TRIALS ?= 20
chaos: rtlat venv
	CHAOS_TRIALS=$(CHAOS_TRIALS) $(VENV)/bin/python -m pytest -q tests/test_chaos.py

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

# The tests that run threads (pair threads mode, timer's display ring,
# request's client) against a ThreadSanitizer build; tests/tsan.supp says
# why each suppression is there. -f (fork) runs are left out: TSan does
# not follow a multithreaded fork, and those workers are processes.
TSAN_FLAGS := -O1 -g -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -pthread \
	-fsanitize=thread -fno-omit-frame-pointer
TSAN_TESTS := tests/test_pair.py tests/test_timer.py tests/test_request.py
# Also left out: tests that signal a run within its first few hundred ms
# and expect the handlers in place; the TSan runtime's start-up is slower
# than that (the run is then killed by the signal, as before main()).
TSAN_DESELECT := not fork and not -f] and not ptsem_types_end_by_signal and not endings_by_signal

check-tsan: venv
	rm -rf build-tsan && mkdir -p build-tsan
	clang $(TSAN_FLAGS) $(INCLUDES) -o build-tsan/rtlat $(SRCS) $(LDLIBS)
	RTLAT_BIN=$(CURDIR)/build-tsan/rtlat \
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$(CURDIR)/tests/tsan.supp" \
		$(VENV)/bin/python -m pytest -q -m "not slow" -k "$(TSAN_DESELECT)" $(TSAN_TESTS)

# libFuzzer harnesses (fuzz/*.c) with ASan+UBSan: each runs FUZZ_S seconds
# from its seed corpus (fuzz/corpus/NAME; new inputs go to build-fuzz/) and
# any crash, leak, UB or timeout fails. suite.c is included by fuzz_opts.c
# (its table is static), so it is left out of the library here.
FUZZ_S ?= 30
FUZZ_CC ?= clang
FUZZERS := $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_FLAGS := -O1 -g -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -pthread \
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_LIB_SRCS := $(filter-out src/main.c src/suite/suite.c,$(SRCS))

build-fuzz/%: fuzz/%.c $(FUZZ_LIB_SRCS) $(wildcard src/*/*.h)
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(INCLUDES) -o $@ $< \
		$(FUZZ_LIB_SRCS) $(LDLIBS)

fuzz-build: $(FUZZERS:%=build-fuzz/%)

fuzz: fuzz-build
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

install: rtlat
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 rtlat $(DESTDIR)$(BINDIR)/rtlat
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/

# Separate from install so it never clobbers an installed rt-tests. The
# names come from the registry (src/tests.c) through rtlat --list-compat.
install-compat: install
	names=$$(./rtlat --list-compat) && test -n "$$names" && \
	for n in $$names; do ln -sf rtlat $(DESTDIR)$(BINDIR)/$$n; done

clean: clean-asan
	rm -rf build rtlat build-fuzz build-tsan

.PHONY: all check check-asan asan-build clean-asan fuzz fuzz-build check-tsan chaos lint install install-compat clean venv
