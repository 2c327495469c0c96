// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr snapshot take|show|clear|free: the snapshot buffer, a second ring
 * buffer the live one is swapped into (by hand here, or by a snapshot
 * trigger).  --cpu N acts on one CPU's buffer where the kernel allows it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "parse.h"
#include "caps.h"
#include "tfs.h"

enum op { OP_NONE, OP_TAKE, OP_SHOW, OP_CLEAR, OP_FREE };

struct args {
	struct opt_instance inst;
	enum op op;
	int cpu;
};

enum { OPT_CPU = 0x100 };

static const struct argp_option options[] = {
	{ "cpu", OPT_CPU, "N", 0, "Only CPU N's snapshot buffer", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	static const char *const ops[] = { NULL, "take", "show", "clear", "free", NULL };
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, NULL, NULL);
		return 0;
	case OPT_CPU:
		if (parse_int(arg, 0, 4095, &a->cpu))
			argp_error(state, "bad cpu '%s'", arg);
		return 0;
	case ARGP_KEY_ARG:
		if (a->op != OP_NONE)
			argp_error(state, "too many arguments");
		a->op = opt_action(state, arg, ops);
		return 0;
	case ARGP_KEY_END:
		if (a->op == OP_NONE)
			a->op = OP_SHOW;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { options, parse, "take|show|clear|free",
				  "Take a snapshot of the ring buffer, print it, clear it or "
				  "free it.  'tr extract --snapshot' saves it to a file.",
				  opt_instance_children, NULL, NULL };

static int show(const char *path)
{
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && !tr_stop)
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			break;
	close(fd);
	return n < 0 ? -errno : 0;
}

int cmd_snapshot(int argc, char **argv)
{
	/* Writing 1 takes a snapshot, 2 clears it, 0 frees it (see ftrace.rst). */
	static const char *const value[] = { NULL, "1", NULL, "2", "0" };
	struct args a = { .cpu = -1 };
	struct tfs_inst *in;
	char *file, *path;
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	r = caps_require(CAP_SNAPSHOT);
	if (!r)
		r = cmd_instance_open(a.inst.name, false, &in);
	if (r)
		return tr_report(r, "snapshot"), EXIT_RUNTIME;
	file = a.cpu >= 0 ? xasprintf("per_cpu/cpu%d/snapshot", a.cpu) : xstrdup("snapshot");
	if (!tfs_exists(in, file)) {
		tr_error("no cpu %d in this kernel", a.cpu);
		free(file);
		return EXIT_RUNTIME;
	}
	path = tfs_path(in, file);
	if (a.op == OP_SHOW) {
		r = show(path);
		if (r)
			tr_report(r, "cannot read '%s'", path);
	} else {
		r = tfs_write(in, file, value[a.op], false);
		if (r == -EINVAL && a.cpu >= 0 && a.op == OP_TAKE)
			tr_report(r, "cannot snapshot cpu %d alone (the kernel needs "
				     "CONFIG_RING_BUFFER_ALLOW_SWAP)", a.cpu);
		else if (r == -EBUSY)
			tr_report(r, "cannot %s the snapshot: the buffer is busy (a latency tracer "
				     "uses it, or it is memory-mapped)", a.op == OP_TAKE ? "take" : "change");
		else if (r)
			tr_report(r, "cannot write '%s'", path);
	}
	free(path);
	free(file);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
