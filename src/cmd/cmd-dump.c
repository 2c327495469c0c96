// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr dump: what a trace.dat file is made of, as trace-cmd dump shows it
 * (a command of its own rather than a report option: it reads the file's
 * layout, not its events, and says nothing about what was traced): the
 * header (version, byte order, long and page size, compression), the
 * parts in file order with their offsets and sizes (v7's sections, with
 * their compressed and full sizes), every option, and each buffer's CPUs
 * with where their data is.  --validate then reads every sub-buffer of
 * every CPU (tfile_check_cpu()) and exits 1 if any is wrong.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "tfile.h"

struct args {
	const char *input;
	bool validate;
};

enum { OPT_VALIDATE = 0x100 };

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "Read FILE (default trace.dat)", 0 },
	{ "validate", OPT_VALIDATE, NULL, 0, "Also read every sub-buffer of every CPU and check "
	  "its events (ids with a format, time running forward); exit 1 on a problem", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'i':
		if (!*arg)
			argp_error(state, "empty input file name");
		a->input = arg;
		return 0;
	case OPT_VALIDATE:
		a->validate = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, NULL,
	"Show how a trace.dat file is laid out: its header, sections, options and buffers "
	"(trace-cmd dump), and with --validate check every sub-buffer.",
	NULL, NULL, NULL
};

static const char *buffer_label(const struct tfile_buffer *b)
{
	return b->name[0] ? b->name : "(top)";
}

/* The several-machine options, decoded (trace-cmd dump shows them so). */
static void print_machines(const struct tfile_info *in)
{
	const struct tfile_tsync *t = in->tsync;

	if (in->has_trace_id)
		printf("trace id:     0x%" PRIx64 "\n", in->trace_id);
	if (t) {
		printf("time shift:   to the host of trace id 0x%" PRIx64 ", flags 0x%x%s, %d CPUs\n",
		       t->peer_id, t->flags,
		       t->flags & TFILE_TSYNC_INTERPOLATE ? " (interpolate)" : "", t->ncpus);
		for (int c = 0; c < t->ncpus; c++) {
			printf("  cpu %d: %u samples\n", c, t->cpus[c].n);
			for (uint32_t i = 0; i < t->cpus[c].n; i++) {
				const struct tfile_ts_sample *s = &t->cpus[c].s[i];

				printf("    time %" PRId64 "  offset %" PRId64 "  scaling %" PRId64
				       "  fraction %" PRId64 "\n", s->time, s->offset, s->scaling,
				       s->fraction);
			}
		}
	}
	for (int k = 0; k < in->nguests; k++) {
		const struct tfile_guest *g = &in->guests[k];

		printf("guest:        '%s', trace id 0x%" PRIx64 ", %d vCPUs\n", g->name,
		       g->trace_id, g->nvcpus);
		for (int c = 0; c < g->nvcpus; c++)
			printf("  vcpu %d: host task %d\n", c, g->pids[c]);
	}
}

static void print_layout(struct tfile *tf)
{
	const struct tfile_info *in = tfile_info(tf);
	const struct tfile_section *sec;
	const struct tfile_optent *opt;
	size_t n;

	printf("file:         %s (%" PRIu64 " bytes)\n", tfile_path(tf), in->file_size);
	printf("version:      %d, %s-endian, %d-byte long, page size %u\n", in->version,
	       in->big_endian ? "big" : "little", in->long_size, in->page_size);
	printf("compression:  %s%s%s\n", in->compression ? in->compression : "none",
	       in->compression_version && *in->compression_version ? " " : "",
	       in->compression_version ? in->compression_version : "");
	printf("cpus:         %d\n", in->cpus);
	sec = tfile_sections(tf, &n);
	printf("sections:     %zu\n", n);
	printf("  %12s %12s %12s %4s  %s\n", "offset", "size", "data", "id", "holds");
	for (size_t i = 0; i < n; i++) {
		char id[16] = "-";

		if (sec[i].id >= 0)
			snprintf(id, sizeof(id), "%d", sec[i].id);
		printf("  %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %4s  %s%s\n", sec[i].offset,
		       sec[i].size, sec[i].usize, id, sec[i].name,
		       sec[i].compressed ? " (compressed)" : "");
	}
	opt = tfile_option_entries(tf, &n);
	printf("options:      %zu\n", n);
	printf("  %12s %12s %4s  %s\n", "offset", "size", "id", "option");
	for (size_t i = 0; i < n; i++)
		printf("  %12" PRIu64 " %12u %4u  %s\n", opt[i].offset, opt[i].size, opt[i].id,
		       opt[i].name ? opt[i].name : "(unknown)");
	print_machines(in);
	printf("buffers:      %d\n", tfile_nbuffers(tf));
	for (int i = 0; i < tfile_nbuffers(tf); i++) {
		const struct tfile_buffer *b = tfile_buffer(tf, i);

		printf("  %s: clock %s, page size %u, %s", buffer_label(b),
		       b->clock && *b->clock ? b->clock : "-", b->page_size,
		       b->compressed ? "compressed" : "not compressed");
		if (b->latency) {
			printf(", latency text at %" PRIu64 " (%" PRIu64 " bytes)\n", b->text_offset,
			       b->text_size);
			continue;
		}
		printf(", %d CPUs with data\n", b->ncpus);
		for (int c = 0; c < b->ncpus; c++)
			printf("    cpu %-4d offset %12" PRIu64 "  size %12" PRIu64 "\n",
			       b->cpus[c].cpu, b->cpus[c].offset, b->cpus[c].size);
	}
}

/* One line per buffer and CPU; the number of CPUs with a problem. */
static int validate(struct tfile *tf)
{
	int bad = 0;

	printf("validate:\n");
	for (int i = 0; i < tfile_nbuffers(tf); i++) {
		const struct tfile_buffer *b = tfile_buffer(tf, i);

		for (int c = 0; !b->latency && c < b->ncpus; c++) {
			struct tfile_check k;
			bool ok;

			tfile_check_cpu(tf, i, c, &k);
			ok = !k.unreadable && !k.bad_pages && !k.bad_events && !k.unknown_ids &&
			     !k.backwards;
			bad += !ok;
			printf("  %s cpu %d: %" PRIu64 " sub-buffers, %" PRIu64 " events, %" PRIu64
			       " empty, %" PRIu64 " after lost events: %s%s\n", buffer_label(b),
			       b->cpus[c].cpu, k.pages, k.events, k.empty_pages, k.missed_pages,
			       ok ? "ok" : "BAD: ", ok ? "" : k.first_problem);
			if (!ok)
				printf("    %" PRIu64 " bad sub-buffers, %" PRIu64 " short events, %" PRIu64
				       " unknown ids, %" PRIu64 " backwards in time\n",
				       k.bad_pages, k.bad_events, k.unknown_ids, k.backwards);
		}
	}
	return bad;
}

int cmd_dump(int argc, char **argv)
{
	struct args a = { .input = "trace.dat" };
	struct tfile *tf = NULL;
	int r, bad;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	r = tfile_open(a.input, TFILE_NO_KALLSYMS, &tf);
	if (r) {
		tr_report(r, "cannot read '%s'", a.input);
		return EXIT_RUNTIME;
	}
	print_layout(tf);
	bad = a.validate ? validate(tf) : 0;
	tfile_close(tf);
	if (bad) {
		tr_error("'%s': %d CPU%s of data failed validation", a.input, bad,
			 bad == 1 ? "" : "s");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
