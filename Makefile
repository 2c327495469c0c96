# tr: a command-line front end to the kernel's ftrace.
#
#   make            build ./tr
#   make check      install what testing needs, then run unit, host and VM tests
#   make run        install what running needs, build, and run the main job
#   make deps       install the Debian packages building and running need
#   make deps-test  ...and those the test tiers need (QEMU, kernel build tools)
#   make install PREFIX=/usr/local

CC      ?= gcc
PREFIX  ?= /usr/local
DESTDIR ?=
PKGS    := libtracefs libtraceevent ncursesw libzstd zlib libssl libcrypto libcrypt
CFLAGS  ?= -O2 -g
# CI sets CI=true: warnings are errors there.
WERROR  ?= $(filter true,$(CI))
WARN    := -Wall -Wextra $(if $(WERROR),-Werror)
# Recursive (=) on purpose: pkg-config runs when a recipe needs the flags,
# which is after "make deps" has installed the libraries.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
# libm only where a math function is called (as-needed): mapped, it costs
# every tr command some 300 KB of RSS, and tr calls none today.
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lpthread -Wl,--push-state,--as-needed -lm -Wl,--pop-state
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(WARN) -Iinclude $(PKG_CFLAGS) $(CFLAGS)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

SRCS      := $(wildcard src/*.c src/*/*.c)
LIB_SRCS  := $(filter-out src/tr.c,$(SRCS))
OBJS      := $(SRCS:src/%.c=build/obj/%.o)
ASAN_OBJS := $(SRCS:src/%.c=build/asan/%.o)
ASAN_LIB  := $(LIB_SRCS:src/%.c=build/asan/%.o)
UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/unit/%)
HEADERS   := $(wildcard include/*.h src/*/*.h)
# Private headers live beside their layer's sources (src/fmt/fmt-local.h ...).
PRIV_INC  := $(addprefix -I,$(sort $(dir $(wildcard src/*/*.h))))
# libtr-user, the user events library for applications: its own code and
# the field-format parser it shares with tr (which needs nothing of tr's).
ULIB      := build/lib/libtr-user.a
ULIB_OBJS := build/lib/tr-user.o build/lib/user-format.o
EXAMPLES  := build/examples/user-events build/examples/user-events-word

.PHONY: all lib examples asan unit replay fuzz check check-unit check-fuzz check-integration \
	check-vm check-vm-full deps deps-test run install clean

all: tr lib examples

tr: $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS)

build/obj/%.o: src/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

lib: $(ULIB)
$(ULIB): $(ULIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

build/lib/%.o: lib/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -D_GNU_SOURCE $(WARN) -Iinclude -fPIC $(CFLAGS) -c -o $@ $<
build/lib/user-format.o: src/user/user-format.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -D_GNU_SOURCE $(WARN) -Iinclude -fPIC $(CFLAGS) -c -o $@ $<

# Programs that use the library the way applications do (the tests run them).
examples: $(EXAMPLES)
build/examples/%: examples/%.c $(ULIB) include/tr-user.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) -Iinclude $(CFLAGS) -o $@ $< $(ULIB) -lpthread

# The sanitized build the test suite runs (and the example program it drives).
asan: build/asan/tr examples
build/asan/tr: $(ASAN_OBJS)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS)

build/asan/%.o: src/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

unit: $(UNIT_BINS)
# Each unit test with the fixtures they share (tests/unit/fixtures.h).
UNIT_FIX := tests/unit/fixtures.c
build/unit/%: tests/unit/%.c tests/unit/unit.h tests/unit/fixtures.h $(UNIT_FIX) $(ASAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -Itests/unit $(PRIV_INC) -o $@ $< $(UNIT_FIX) $(ASAN_LIB) $(PKG_LIBS)

# The fuzz targets (tests/fuzz/fuzz-*.c) three ways: linked with libFuzzer
# by clang for `make fuzz`; and, for `make check`'s replay of the
# regression corpus, with a main that runs each file given, built with the
# sanitizers (asan) and without (for valgrind, which sees inside
# libtraceevent where ASan cannot).
FUZZ_CC     ?= clang
FUZZ_NAMES  := $(patsubst tests/fuzz/fuzz-%.c,%,$(wildcard tests/fuzz/fuzz-*.c))
FUZZ_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_LIB    := $(LIB_SRCS:src/%.c=build/fuzz/obj/%.o)
PLAIN_LIB   := $(LIB_SRCS:src/%.c=build/obj/%.o)
FUZZ_BINS   := $(FUZZ_NAMES:%=build/fuzz/fuzz-%)
REPLAY_BINS := $(FUZZ_NAMES:%=build/replay/asan-%) $(FUZZ_NAMES:%=build/replay/plain-%)
FUZZ_DEPS   := tests/fuzz/fuzz-common.h tests/fuzz/replay-main.c

# Kept between builds: make would take them for intermediate files and remove them.
.SECONDARY: $(FUZZ_LIB)

build/fuzz/obj/%.o: src/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_DEPS) $(FUZZ_LIB)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer $(PRIV_INC) -o $@ $< $(FUZZ_LIB) $(PKG_LIBS)

build/replay/asan-%: tests/fuzz/fuzz-%.c $(FUZZ_DEPS) $(ASAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) $(PRIV_INC) -o $@ $< tests/fuzz/replay-main.c $(ASAN_LIB) $(PKG_LIBS)

build/replay/plain-%: tests/fuzz/fuzz-%.c $(FUZZ_DEPS) $(PLAIN_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIV_INC) -o $@ $< tests/fuzz/replay-main.c $(PLAIN_LIB) $(PKG_LIBS)

replay: $(REPLAY_BINS)

# make fuzz [FUZZ_TIME=seconds] [FUZZ_TARGET=NAME, of tests/fuzz/fuzz-NAME.c]: run the fuzzers
# (niced, one at a time) from the seed corpus; see tests/fuzz/README.md.
FUZZ_TIME ?= 600
fuzz:
	@$(MAKE) --no-print-directory deps-test
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@tests/fuzz/run $(FUZZ_TIME) $(or $(FUZZ_TARGET),$(FUZZ_NAMES))

# make run needs only the build; make check also the test tools and the VM tier's.
deps:
	@scripts/deps

deps-test:
	@scripts/deps --test

# Everything: unit tests, the integration suite on this host, and the VM tier
# (each guest runs the test files that name its kernel; see tests/README).
# The builds use every core: serially they took minutes of a fresh CI run.
NPROC := $(shell nproc 2>/dev/null || echo 2)
# The guest kernels start building (in the background, niced) before tr's
# own builds, and a failed build ends them.
check:
	@$(MAKE) --no-print-directory deps-test
	@tests/check prepare
	@t0=$$(date +%s); $(MAKE) --no-print-directory -j$(NPROC) tr asan unit examples replay && \
		echo "== builds: $$(( $$(date +%s) - t0 )) s" || { tests/check prepare-stop; exit 1; }
	@tests/check all

check-unit: unit
	@tests/check unit

check-fuzz: replay
	@tests/check fuzz

check-integration: tr asan examples
	@tests/check host

check-vm: tr asan examples
	@tests/check vm

# Every test file on both guest kernels, not only those that name them: for a
# release or a change to the VM tier itself.
check-vm-full: tr asan examples
	@TR_SUITE_ALL=1 tests/check vm

# The main job, end to end, on this machine.
run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory tr
	@scripts/run-demo

install: tr lib
	install -D -m 0755 tr $(DESTDIR)$(PREFIX)/bin/tr
	install -D -m 0644 include/tr-user.h $(DESTDIR)$(PREFIX)/include/tr-user.h
	install -D -m 0644 $(ULIB) $(DESTDIR)$(PREFIX)/lib/libtr-user.a
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -D -m 0644 completions/tr.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tr
	install -D -m 0644 completions/_tr $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_tr

clean:
	rm -rf build tr
