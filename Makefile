# SPDX-License-Identifier: GPL-2.0-only
#
# make            build bin/robot (./robot holds the sources)
# make test       install what is missing, build, run every test
# make test-under-load  the same with a CPU hog on every core (scripts/under-load)
# make check      the unit and end-to-end tests under ASan+UBSan, leaks fatal
# make lint       clang-format (kernel style), cppcheck, purity of the core
# make bench      the benchmarks and simulations under tests/bench/
# make fuzz       every libFuzzer target for FUZZ_SECONDS each (tests/fuzz/)
# make demo       the main job: a real kernel bisection on the QEMU box
# make demo-quick a whole bisection on the toy kernel, in a minute or two
# make install    PREFIX=/usr/local DESTDIR=

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/robot
DATADIR ?= $(PREFIX)/share/robot
MANDIR ?= $(PREFIX)/share/man

CC ?= cc
VERSION := $(shell git describe --always --dirty 2>/dev/null | sed 's/^v//' || echo 0.1.0)
ifeq ($(VERSION),)
VERSION := 0.1.0
endif
PKGS := libgit2 libcurl yaml-0.1 sqlite3 jansson
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CRIT_CFLAGS = $(shell pkg-config --cflags criterion 2>/dev/null)
CRIT_LIBS = $(shell pkg-config --libs criterion 2>/dev/null)

WARNINGS := -Wall -Wextra -Werror -Wshadow -Wformat=2 $(WTRUNC) \
	-Wstrict-prototypes -Wold-style-definition -Wmissing-prototypes \
	-Wdeclaration-after-statement -Wvla -Wpointer-arith -Wcast-align \
	-Wwrite-strings -Wundef -Wno-unused-parameter
# clang (make fuzz) has no -Wformat-truncation
WTRUNC := $(if $(findstring clang,$(CC)),,-Wformat-truncation)
OPT ?= -O2 -g
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	-DROBOT_VERSION='"$(VERSION)"'
CFLAGS_ALL = $(BASE_CFLAGS) $(OPT) $(WARNINGS) $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lm -lpthread $(LDLIBS)


# `make V=1` shows the full compiler command lines.
ifeq ($(V),1)
Q :=
else
Q := @
endif

SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
B ?= build

CORE_SRC := $(sort $(wildcard robot/*.c))
CLI_SRC := $(sort $(filter-out robot/cli/main.c,$(wildcard robot/cli/*.c)))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
# the fuzz targets, also linked into the unit tests (their regression inputs)
FUZZ_SRC := $(sort $(filter-out tests/fuzz/libfuzzer.c,\
	$(wildcard tests/fuzz/*.c)))
# in-memory parts the unit tests and the simulation share
TLIB_SRC := $(sort $(wildcard tests/lib/*.c))
HDRS := $(wildcard robot/*.h robot/cli/*.h tests/unit/*.h tests/fuzz/*.h \
	tests/lib/*.h)

# the manual pages, built into the binary for `robot help` (scripts/embed-man)
MAN_PAGES := $(sort $(wildcard doc/*.1))
CORE_OBJ := $(CORE_SRC:%.c=$(B)/obj/%.o) $(CLI_SRC:%.c=$(B)/obj/%.o) \
	$(B)/obj/gen/manpages.o
TLIB_OBJ := $(TLIB_SRC:%.c=$(B)/obj/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(B)/obj/%.o) $(FUZZ_SRC:%.c=$(B)/obj/%.o) \
	$(TLIB_OBJ)

# The binary is bin/robot: ./robot is the source directory.
all: bin/robot

bin/robot: $(B)/robot
	@mkdir -p bin
	@ln -sf ../$(B)/robot bin/robot

$(B)/robot: $(CORE_OBJ) $(B)/obj/robot/cli/main.o
	@echo "  LINK  $@"
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)

$(B)/obj/robot/%.o: robot/%.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(B)/gen/manpages.c: $(MAN_PAGES) scripts/embed-man
	@mkdir -p $(dir $@)
	@echo "  GEN   $@"
	$(Q)scripts/embed-man $@ $(MAN_PAGES)

$(B)/obj/gen/manpages.o: $(B)/gen/manpages.c robot/cli/manpage.h Makefile
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_ALL) -Irobot -c -o $@ $<

# Test files: criterion's macros define functions without prototypes.
$(B)/obj/tests/unit/%.o: tests/unit/%.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(CRIT_CFLAGS) -Wno-missing-prototypes \
		-Wno-declaration-after-statement -Irobot -Itests/lib \
		-c -o $@ $<

$(B)/obj/tests/lib/%.o: tests/lib/%.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_ALL) -Irobot -c -o $@ $<

$(B)/obj/tests/fuzz/%.o: tests/fuzz/%.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS_ALL) -Irobot -c -o $@ $<

$(B)/unit-tests: $(UNIT_OBJ) $(CORE_OBJ)
	@echo "  LINK  $@"
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL) $(CRIT_LIBS)

deps:
	@scripts/install-deps test
	@scripts/install-deps lava

deps-demo:
	@scripts/install-deps demo

# The unit tests print criterion's closing "Synthesis" line; the end-to-end
# cases then run against the freshly built robot.
test: deps
	@$(MAKE) --no-print-directory bin/robot $(B)/unit-tests
	@$(MAKE) --no-print-directory run-tests

run-tests:
	$(B)/unit-tests -j2 --timeout 600
	ROBOT=$(CURDIR)/$(B)/robot tests/e2e/run-all

# The whole suite again while stress-ng keeps every core busy (twice over):
# fixtures must not depend on a quiet machine. UNDER_LOAD= sets the hog.
test-under-load: deps
	@$(MAKE) --no-print-directory bin/robot $(B)/unit-tests
	@scripts/under-load $(MAKE) --no-print-directory run-tests

unit: bin/robot $(B)/unit-tests
	$(B)/unit-tests -j2 --timeout 600

check: deps
	@$(MAKE) --no-print-directory B=build-san OPT="-O1 -g $(SAN)" \
		build-san/robot build-san/unit-tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		build-san/unit-tests -j2 --timeout 900
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ROBOT_CHECK=1 ROBOT=$(CURDIR)/build-san/robot tests/e2e/run-all

LINT_SRC := $(CORE_SRC) $(CLI_SRC) robot/cli/main.c $(UNIT_SRC) \
	$(wildcard tests/bench/*.c tests/lib/*.c tests/fuzz/*.c) $(HDRS)
lint:
	clang-format --dry-run --Werror $(LINT_SRC)
	cppcheck --quiet --error-exitcode=1 --std=c11 --inline-suppr \
		--enable=warning,performance,portability \
		--suppress=missingIncludeSystem -D_GNU_SOURCE \
		-D__GNUC__ -Irobot robot robot/cli
	scripts/check-purity
	scripts/check-shell
	scripts/check-man
	scripts/check-readme
	@# make fuzz builds with clang, whose warnings differ from gcc's
	@if command -v clang >/dev/null; then \
		echo "clang -fsyntax-only (make fuzz's compiler)"; \
		clang -fsyntax-only $(BASE_CFLAGS) \
			$(filter-out -Wformat-truncation,$(WARNINGS)) \
			$(PKG_CFLAGS) $(CRIT_CFLAGS) -Irobot -Itests/lib \
			$(CORE_SRC) $(CLI_SRC) robot/cli/main.c \
			$(FUZZ_SRC); \
	else \
		echo "no clang: make fuzz's warnings not checked" \
			"(scripts/install-deps fuzz)"; \
	fi

bench: bin/robot
	tests/bench/run-all

# Benchmark programs linked with the core into $(B)/bench/<name> (run by
# tests/bench/run-all): add a name here for a tests/bench/<name>.c.
BENCH_BIN := $(B)/bench/stats-sim
bench: $(BENCH_BIN)
$(BENCH_BIN): $(B)/bench/%: tests/bench/%.c $(CORE_OBJ) $(TLIB_OBJ) $(HDRS) \
		Makefile
	@mkdir -p $(dir $@)
	@echo "  LINK  $@"
	$(Q)$(CC) $(CFLAGS_ALL) -Irobot -Itests/lib -o $@ $< $(CORE_OBJ) \
		$(TLIB_OBJ) $(LDFLAGS) $(LDLIBS_ALL)

# libFuzzer targets (tests/fuzz/fuzz-<name>.c, clang): the core built
# once more into build-fuzz/ with ASan+UBSan and coverage, one binary per
# target; tests/fuzz/run seeds each from tests/data and runs it for
# FUZZ_SECONDS (default 60). Crashes land in build-fuzz/crashes/; the
# fixed ones go to tests/data/fuzz/<name>/, which `make test` replays.
# At most 256 atomic jobs a job file there (10000 otherwise): the same
# code, its limit reached by inputs that cost less to run.
FUZZ_NAMES := $(subst -,_,$(patsubst tests/fuzz/fuzz-%.c,%,\
	$(filter-out tests/fuzz/fuzz-util.c,$(FUZZ_SRC))))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
fuzz: deps-fuzz
	@$(MAKE) --no-print-directory B=build-fuzz CC=clang \
		OPT="-O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
		-fsanitize-coverage-ignorelist=tests/fuzz/coverage-ignore.txt \
		-DJOB_MAX_ATOMIC=256" \
		$(FUZZ_NAMES:%=build-fuzz/fuzz/%)
	@tests/fuzz/run $(FUZZ_NAMES)

deps-fuzz:
	@scripts/install-deps fuzz

build-fuzz/fuzz/%: tests/fuzz/libfuzzer.c $(FUZZ_SRC) $(CORE_OBJ) $(HDRS) \
		Makefile
	@mkdir -p $(dir $@)
	@echo "  LINK  $@"
	$(Q)$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -Irobot \
		-DFUZZ_TARGET=fuzz_$* -o $@ tests/fuzz/libfuzzer.c \
		tests/fuzz/fuzz-util.c tests/fuzz/fuzz-$(subst _,-,$*).c \
		$(CORE_OBJ) $(LDFLAGS) $(LDLIBS_ALL)

# The main job: a real kernel bisection. A Linux tree made once from
# Debian's linux-source-6.1 with an injected do_mmap() slowdown
# (scripts/demo-tree), kernels built by the kbuild hook (ccache), booted in
# the QEMU box (TCG, -icount) and measured with stress-ng over ssh. The
# tree, the ccache and the store are kept under ~/.cache/robot, so a second
# `make demo` re-runs the bisection in minutes.
demo: deps-demo
	@$(MAKE) --no-print-directory bin/robot
	@scripts/demo/run

# A whole bisection on the toy kernel (tests/lib/toy-kernel.sh): a generated
# repository whose "kernel" is a library preloaded into stress-ng, one
# commit in it slows the mapping path down. A minute or two.
DEMO_QUICK := build/demo-quick
demo-quick: deps
	@$(MAKE) --no-print-directory bin/robot
	rm -rf $(DEMO_QUICK) && mkdir -p $(DEMO_QUICK)
	scripts/toy-kernel --seed 1 --commits 120 --break random \
		--info $(DEMO_QUICK)/toy.info $(DEMO_QUICK)/toy
	TOP=$(CURDIR) sh -c '. tests/lib/toy-kernel.sh && toy_lab "$$@"' sh \
		$(DEMO_QUICK)/lab.yaml 1 $(CURDIR)/$(DEMO_QUICK)/toy \
		$(CURDIR)/$(DEMO_QUICK)/work
	bin/robot bisect --lab $(DEMO_QUICK)/lab.yaml \
		--job jobs/stress-ng-toy.yaml --good v1.0 --bad master \
		--metric stress-ng.mmapaddr.ops_per_sec \
		--json $(DEMO_QUICK)/result.json
	@. ./$(DEMO_QUICK)/toy.info && \
		echo "(the injected culprit was $$TOY_CULPRIT)"

install: bin/robot
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/hooks \
		$(DESTDIR)$(DATADIR)/jobs $(DESTDIR)$(DATADIR)/kconfigs \
		$(DESTDIR)$(MANDIR)/man1
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 755 $(B)/robot $(DESTDIR)$(BINDIR)/robot
	for f in scripts/hooks/*; do \
		[ -f "$$f" ] && install -m 755 "$$f" $(DESTDIR)$(LIBEXECDIR)/hooks/; \
	done; true
	for f in jobs/*.yaml; do \
		[ -f "$$f" ] && install -m 644 "$$f" $(DESTDIR)$(DATADIR)/jobs/; \
	done; true
	for f in kconfigs/*; do \
		[ -f "$$f" ] && install -m 644 "$$f" $(DESTDIR)$(DATADIR)/kconfigs/; \
	done; true

clean:
	rm -rf build build-san build-fuzz bin

.PHONY: demo demo-quick all bin/robot test test-under-load run-tests unit check lint bench install clean deps \
	deps-demo fuzz deps-fuzz
.DELETE_ON_ERROR:
