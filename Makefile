# tr: a command-line front end to the kernel's ftrace.
#
#   make            build ./tr
#   make check      install what is missing, then run unit, host and VM tests
#   make run        install what is missing, build, and run the main job
#   make deps       install the Debian packages building and testing need
#   make install PREFIX=/usr/local

CC      ?= gcc
PREFIX  ?= /usr/local
DESTDIR ?=
PKGS    := libtracefs libtraceevent ncursesw libzstd zlib
CFLAGS  ?= -O2 -g
# CI sets CI=true: warnings are errors there.
WERROR  ?= $(filter true,$(CI))
WARN    := -Wall -Wextra $(if $(WERROR),-Werror)
# Recursive (=) on purpose: pkg-config runs when a recipe needs the flags,
# which is after "make deps" has installed the libraries.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lpthread
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(WARN) -Iinclude $(PKG_CFLAGS) $(CFLAGS)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

SRCS      := $(wildcard src/*.c)
LIB_SRCS  := $(filter-out src/tr.c,$(SRCS))
OBJS      := $(SRCS:src/%.c=build/obj/%.o)
ASAN_OBJS := $(SRCS:src/%.c=build/asan/%.o)
ASAN_LIB  := $(LIB_SRCS:src/%.c=build/asan/%.o)
UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/unit/%)
HEADERS   := $(wildcard include/*.h src/*.h)

.PHONY: all asan unit check check-unit check-integration check-vm deps run install clean

all: tr

tr: $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS)

build/obj/%.o: src/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The sanitized build the test suite runs.
asan: build/asan/tr
build/asan/tr: $(ASAN_OBJS)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS)

build/asan/%.o: src/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

unit: $(UNIT_BINS)
build/unit/%: tests/unit/%.c tests/unit/unit.h $(ASAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -Itests/unit -o $@ $< $(ASAN_LIB) $(PKG_LIBS)

deps:
	@scripts/deps

# Everything: unit tests, the integration suite on this host, and the VM tier.
check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory tr asan unit
	@tests/check all

check-unit: unit
	@tests/check unit

check-integration: tr asan
	@tests/check host

check-vm: tr asan
	@tests/check vm

# The main job, end to end, on this machine.
run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory tr
	@scripts/run-demo

install: tr
	install -D -m 0755 tr $(DESTDIR)$(PREFIX)/bin/tr
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -D -m 0644 completions/tr.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tr
	install -D -m 0644 completions/_tr $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_tr

clean:
	rm -rf build tr
