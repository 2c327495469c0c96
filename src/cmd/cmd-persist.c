// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr persist: print the kernel command line (or bootconfig lines) that
 * makes a persistent instance, a ring buffer that survives a crash and a
 * reboot (Linux 6.12+), after checking what it can: the instance's name,
 * the size and alignment, the events on this kernel.  It changes nothing:
 * the kernel makes such an instance at boot only.
 *
 * What the line holds, and why: reserve_mem=SIZE:ALIGN:LABEL finds memory
 * at boot (memmap=SIZE$ADDR with --addr: always the same, so KASLR cannot
 * take it), trace_instance=NAME^traceoff@LABEL makes the instance there with
 * tracing off.  Events enabled at boot clear what the previous boot left
 * (the kernel resets a persistent buffer the first time it is written), so
 * without a backup instance the events are armed after the previous boot's
 * data is saved (tr extract, then tr start); with --backup, the kernel
 * copies the previous boot's data into a read-only instance at boot and
 * the events go on the line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "parse.h"
#include "tfs.h"

struct args {
	const char *name, *backup;
	struct strv events;
	uint64_t size, align, addr;
	bool have_addr, printk, bootconfig;
};

enum { OPT_ALIGN = 0x100, OPT_ADDR, OPT_BACKUP, OPT_PRINTK, OPT_BOOTCONFIG };

static const struct argp_option options[] = {
	{ "instance", 'B', "NAME", 0, "The persistent instance's name (default boot)", 0 },
	{ "event", 'e', "EVENT", 0, "An event to trace: SYSTEM, SYSTEM:EVENT or SYSTEM:* "
	  "(repeatable)", 0 },
	{ "buffer-size", 'b', "SIZE", 0, "Memory for the buffer, all CPUs together (default 12M; "
	  "k, M, G)", 0 },
	{ "align", OPT_ALIGN, "BYTES", 0, "reserve_mem's alignment (default 4096; a larger one "
	  "keeps the place more often across boots)", 0 },
	{ "addr", OPT_ADDR, "ADDR", 0, "Use the physical memory at ADDR (memmap=): the same "
	  "place at every boot", 0 },
	{ "backup", OPT_BACKUP, "NAME", 0, "Have the kernel copy the previous boot's data into "
	  "read-only instance NAME at boot, so tracing starts at boot", 0 },
	{ "printk", OPT_PRINTK, NULL, 0, "Send trace_printk() output to the instance", 0 },
	{ "bootconfig", OPT_BOOTCONFIG, NULL, 0, "Print bootconfig lines instead of a command "
	  "line", 0 },
	{ 0 }
};

/* A physical address: decimal, or hexadecimal after 0x; nothing after it. */
static int parse_addr(const char *s, uint64_t *out)
{
	char *end;

	if (strncmp(s, "0x", 2))
		return parse_u64(s, out);
	if (!s[2] || !strchr("0123456789abcdefABCDEF", s[2]))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s + 2, &end, 16);
	return errno || *end ? -EINVAL : 0;
}

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'B':
	case OPT_BACKUP:
		if (!tfs_inst_valid_name(arg) || strpbrk(arg, "^@,=:"))
			argp_error(state, "bad instance name '%s'", arg);
		*(key == 'B' ? &a->name : &a->backup) = arg;
		return 0;
	case 'e':
		if (!*arg || strpbrk(arg, ", \t\n^@="))
			argp_error(state, "bad event '%s': SYSTEM, SYSTEM:EVENT or SYSTEM:*", arg);
		strv_push(&a->events, arg);
		return 0;
	case 'b':
	case OPT_ALIGN:
		if (parse_size(arg, key == 'b' ? &a->size : &a->align))
			argp_error(state, "bad size '%s' (k, M, G)", arg);
		return 0;
	case OPT_ADDR:
		if (parse_addr(arg, &a->addr))
			argp_error(state, "bad address '%s' (0x for hex)", arg);
		a->have_addr = true;
		return 0;
	case OPT_PRINTK:
		a->printk = true;
		return 0;
	case OPT_BOOTCONFIG:
		a->bootconfig = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (a->backup && a->name && !strcmp(a->backup, a->name))
			argp_error(state, "--backup names the persistent instance itself");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, NULL,
	"Print the kernel command line that makes a persistent instance: a ring buffer that "
	"survives a crash and the reboot after it (Linux 6.12+).  Nothing is changed.\v"
	"After a crash: tr extract -B NAME -o last-boot.dat (it holds the previous boot's "
	"events, and tr report prints its addresses as that boot's symbols); then tr start -B "
	"NAME -e EVENT arms the instance again.  With --backup BK the events are traced from "
	"boot and the previous boot's data is read from BK.",
	NULL, NULL, NULL
};

/* "12M" for the command line: the largest unit that divides the size. */
static char *size_text(uint64_t n)
{
	static const char units[] = "GMK";

	for (int i = 0; i < 3; i++) {
		uint64_t u = 1ull << (10 * (3 - i));

		if (n >= u && !(n % u))
			return xasprintf("%llu%c", (unsigned long long)(n / u), units[i]);
	}
	return xasprintf("%llu", (unsigned long long)n);
}

/* An event this kernel does not have would be dropped at boot without a word. */
static int check_events(const struct args *a)
{
	struct tfs_inst *top;

	if (tfs_open())
		return 0;	/* no tracefs here: the line is for another machine */
	top = tfs_top();
	for (size_t i = 0; i < a->events.n; i++) {
		const char *e = a->events.v[i], *colon = strchr(e, ':');
		char *dir = colon && strcmp(colon + 1, "*")
				    ? xasprintf("events/%.*s/%s", (int)(colon - e), e, colon + 1)
				    : xasprintf("events/%.*s", (int)(colon ? colon - e : (int)strlen(e)), e);
		bool ok = tfs_exists(top, dir);

		free(dir);
		if (!ok)
			return tr_error("no event '%s' on this kernel", e);
	}
	return 0;
}

int cmd_persist(int argc, char **argv)
{
	struct args a = { .name = "boot", .size = 12 << 20, .align = 4096 };
	char *size, *place, *events = NULL, *bad = NULL;
	const char *flags;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.size < (1 << 20) || a.size % 4096)
		bad = xasprintf("size %llu: 1M or more, a multiple of 4096",
				(unsigned long long)a.size);
	else if (a.align < 4096 || (a.align & (a.align - 1)))
		bad = xasprintf("alignment %llu: a power of two, 4096 or more",
				(unsigned long long)a.align);
	else if (a.have_addr && a.addr % 4096)
		bad = xasprintf("address 0x%llx: not page-aligned", (unsigned long long)a.addr);
	if (bad) {
		tr_error("bad %s", bad);
		free(bad);
		strv_free(&a.events);
		return EXIT_USAGE;
	}
	if (check_events(&a)) {
		strv_free(&a.events);
		return EXIT_RUNTIME;
	}
	/* Events on the line only with a backup: they would clear the previous boot's data. */
	for (size_t i = 0; a.backup && i < a.events.n; i++)
		xstrcatf(&events, ",%s", a.events.v[i]);
	size = size_text(a.size);
	if (a.have_addr)
		place = xasprintf("0x%llx:%s", (unsigned long long)a.addr, size);
	else
		place = xstrdup(a.name);
	flags = a.backup ? (a.printk ? "^traceprintk" : "") : (a.printk ? "^traceoff^traceprintk"
								      : "^traceoff");
	if (a.bootconfig) {
		printf("kernel {\n");
		if (a.have_addr)
			printf("\tmemmap = \"%s$0x%llx\"\n", size, (unsigned long long)a.addr);
		else
			printf("\treserve_mem = \"%s:%llu:%s\"\n", size, (unsigned long long)a.align,
			       a.name);
		printf("\ttrace_instance = \"%s%s@%s%s\"%s\n", a.name, flags, place,
		       events ? events : "", a.backup ? "," : "");
		if (a.backup)
			printf("\t\t\"%s=%s\"\n", a.backup, a.name);
		printf("}\n");
	} else {
		if (a.have_addr)
			printf("memmap=%s$0x%llx", size, (unsigned long long)a.addr);
		else
			printf("reserve_mem=%s:%llu:%s", size, (unsigned long long)a.align, a.name);
		printf(" trace_instance=%s%s@%s%s", a.name, flags, place, events ? events : "");
		if (a.backup)
			printf(" trace_instance=%s=%s", a.backup, a.name);
		putchar('\n');
	}
	if (!a.backup) {
		char *ev = NULL;

		for (size_t i = 0; i < a.events.n; i++)
			xstrcatf(&ev, " -e %s", a.events.v[i]);
		fprintf(stderr, "after each boot: tr extract -B %s -o last-boot.dat, then tr start "
				"-B %s%s to arm it again\n", a.name, a.name, ev ? ev : " -e EVENT");
		free(ev);
	}
	free(size);
	free(place);
	free(events);
	strv_free(&a.events);
	return EXIT_OK;
}
