// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr extract: save what the ring buffer holds now (after tr start) to a
 * trace.dat file.  Reading trace_pipe_raw consumes, so the buffer is empty
 * afterwards, as with trace-cmd extract.  --snapshot saves the snapshot
 * buffer instead (per_cpu/cpuN/snapshot_raw), where the kernel has one.
 * With a max-latency tracer current (tr start -p irqsoff) the file holds
 * the text of the trace file instead, the worst section the kernel kept,
 * as tr record writes it (rec_write_latency()); nothing is consumed.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "caps.h"
#include "rec.h"
#include "setup.h"
#include "tfs-persist.h"
#include "tfs.h"
#include "tfw.h"

struct args {
	struct opt_instance inst;
	const char *output;
	bool snapshot, quiet;
};

enum { OPT_SNAPSHOT = 0x100 };

static const struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "Write the trace to FILE (default trace.dat)", 0 },
	{ "snapshot", OPT_SNAPSHOT, NULL, 0, "Save the snapshot buffer instead", 0 },
	{ "quiet", 'q', NULL, 0, "Print no summary", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, NULL, NULL);
		return 0;
	case 'o':
		if (!*arg)
			argp_error(state, "empty output file name");
		a->output = arg;
		return 0;
	case OPT_SNAPSHOT:
		a->snapshot = true;
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/*
 * A persistent instance that holds the previous boot's data: its
 * last_boot_info, read now (reading the buffer out makes it "# Current"),
 * as trace-cmd 3.4's LAST_BOOT_INFO option, so report maps that boot's
 * addresses.  0 options for any other instance; a warning when the kernel's
 * text does not parse (the events are saved, their symbols unmapped).
 */
static size_t last_boot_option(const char *name, struct tfw_opt *o)
{
	struct tfs_persist p;
	size_t n = 0;

	if (!name || tfs_persist_get(name, &p))
		return 0;
	if (p.bad) {
		tr_warn("instance '%s': %s; its kernel addresses are saved unmapped", name, p.bad);
	} else if (p.last_boot) {
		o->id = TFW_OPT_LAST_BOOT_INFO;
		o->data.data = xasprintf("%s:%s", name, p.info);
		o->data.len = strlen(o->data.data) + 1;
		n = 1;
	}
	tfs_persist_clear(&p);
	return n;
}

static const struct argp argp = {
	options, parse, NULL,
	"Save what is in the ring buffer now to a trace.dat file.  The buffer is read "
	"consuming: it is empty afterwards.",
	opt_instance_children, NULL, NULL
};

int cmd_extract(int argc, char **argv)
{
	struct args a = { 0 };
	struct rec_kstats *before = NULL;
	struct rec_summary sum = { 0 };
	struct rec *rec = NULL;
	struct tfs_inst *in;
	char *copy = NULL, *kb = NULL, *tracer = NULL;
	int fd = -1, r, status = EXIT_RUNTIME;
	uint64_t limit = 0;
	struct tfw_opt *extra = NULL, boot = { 0 };
	size_t nextra = 0, nboot = 0;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (!a.output)
		a.output = "trace.dat";
	if (a.snapshot && caps_require(CAP_SNAPSHOT)) {
		tr_report(-EOPNOTSUPP, "cannot extract the snapshot");
		return EXIT_RUNTIME;
	}
	if (cmd_instance_open(a.inst.name, false, &in)) {
		tr_report(-ENOENT, "cannot extract");
		return EXIT_RUNTIME;
	}
	fd = open(a.output, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		tr_error("cannot write '%s': %s", a.output, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (!a.snapshot && !tfs_read(in, "current_tracer", &tracer) &&
	    setup_latency_tracer(str_rstrip(tracer))) {
		uint64_t max_us, bytes;

		r = rec_write_latency(fd, in, &max_us, &bytes);
		if (r) {
			tr_report(r, "cannot extract");
			unlink(a.output);
		} else {
			if (!a.quiet)
				rec_latency_print(stderr, tracer, max_us, bytes, a.output);
			status = EXIT_OK;
		}
		goto out;
	}
	/* While tracing runs the buffer refills: read at most twice its size. */
	if (!tfs_read(in, "buffer_size_kb", &kb))
		limit = 2 * 1024 * strtoull(kb, NULL, 10);
	free(kb);
	if (!a.snapshot)
		nboot = last_boot_option(a.inst.name, &boot);
	copy = xstrdup(a.output);
	r = rec_open(&(struct rec_opts){ .inst = in, .tmp_dir = dirname(copy),
					 .snapshot = a.snapshot, .drain = true,
					 .drain_limit = limit },
		     &rec);
	if (!r) {
		rec_stats_snapshot(in, rec_ncpus(rec), &before);
		rec_start(rec);
		r = rec_stop(rec);
		if (r)
			tr_warn("a reader stopped early: %s", strerror(-r));
		/*
		 * The file's extra options: for user stacks, the maps of the
		 * processes the instance traces (those still alive); then
		 * LAST_BOOT_INFO.
		 */
		rec_pid_maps(in, &extra, &nextra);
		if (nboot) {
			extra = xrealloc(extra, (nextra + 1) * sizeof(*extra));
			extra[nextra++] = boot;
			boot.data.data = NULL;
		}
		r = rec_write_file(rec, fd, in, NULL, before, REC_LOSS_SINCE_RESET | REC_FORMATS_FROM_DATA,
				   NULL, NULL, 0, NULL, extra, nextra, &sum);
	}
	if (r) {
		tr_report(r, "cannot extract");
		if (!sum.cpu)
			unlink(a.output);
	} else {
		if (!a.quiet)
			rec_summary_print(stderr, &sum, a.output);
		if (sum.dropped_kallsyms)
			tr_warn("no room for kernel symbols in '%s'", a.output);
		status = EXIT_OK;
	}
out:
	rec_free(rec);
	if (close(fd) && !status) {
		tr_error("cannot write '%s': %s", a.output, strerror(errno));
		status = EXIT_RUNTIME;
	}
	rec_summary_free(&sum);
	for (size_t i = 0; i < nextra; i++)
		free(extra[i].data.data);
	free(extra);
	free(boot.data.data);
	free(before);
	free(copy);
	free(tracer);
	return status;
}
