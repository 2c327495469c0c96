// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr check-events: do the event formats of the running kernel (or of a
 * trace file, -i) parse with libtraceevent?  One line per event that does
 * not, and a count; exit 1 when any does not.  trace-cmd report
 * --check-events does the same for a file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "fmt.h"
#include "tfile.h"
#include "tfs.h"

struct args {
	struct opt_instance inst;
	const char *input;
	bool plugins, quiet;
};

enum { OPT_PLUGINS = 0x100 };

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "Check the formats stored in the trace file FILE instead", 0 },
	{ "plugins", OPT_PLUGINS, NULL, 0, "With libtraceevent's plugins loaded", 0 },
	{ "quiet", 'q', NULL, 0, "Print only the events that do not parse", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, NULL, NULL);
		return 0;
	case 'i':
		a->input = arg;
		return 0;
	case OPT_PLUGINS:
		a->plugins = true;
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (a->input && a->inst.name)
			argp_error(state, "-i FILE and -B exclude each other");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, NULL,
	"Check that every event format of the running kernel (or of a trace file) parses with "
	"libtraceevent, and name those that do not.\v"
	"A format that does not parse loses its event (tr report prints it as [unknown]); one "
	"whose print fmt does not parse prints its fields as name=value.  Exit status 1 when "
	"any does not parse.",
	opt_instance_children, NULL, NULL
};

static int collect(const char *sys, const char *ev, char *content, void *ctx)
{
	(void)ev;
	strv_push_owned(ctx, xasprintf("%s\n%s", sys, content));
	return 0;
}

/* The running kernel's formats: events/SYS/EVENT/format of the instance. */
static int kernel_formats(const char *instance, struct strv *out)
{
	struct tfs_inst *in = NULL;
	int r = tfs_open();

	if (r == -EACCES)
		return tr_fail(r, "permission denied on tracefs");
	if (r)
		return tr_fail(r, "cannot find tracefs");
	r = cmd_instance_open(instance, false, &in);
	if (r)
		return r;
	tfs_each_event_file(in, "format", collect, out);
	if (!out->n)
		return tr_fail(-ENOENT, "no event formats under %s/events", tfs_root());
	return 0;
}

int cmd_check_events(int argc, char **argv)
{
	struct args a = { 0 };
	struct fmt_try_parse_opts o = { 0 };
	struct fmt_try_parse_result res = { 0 };
	struct strv formats = { 0 };
	struct tfile *tf = NULL;
	const char *what;
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	o.plugins = a.plugins;
	if (a.input) {
		r = tfile_open(a.input, TFILE_KEEP_FORMATS | TFILE_NO_KALLSYMS, &tf);
		if (!r) {
			const struct tfile_info *info = tfile_info(tf);

			o.long_size = info->long_size;
			o.big_endian = info->big_endian;
			r = fmt_try_parse_formats(tfile_formats(tf), &o, &res);
		}
		what = a.input;
	} else {
		r = kernel_formats(a.inst.name, &formats);
		if (!r)
			r = fmt_try_parse_formats(&formats, &o, &res);
		what = "this kernel";
	}
	if (r) {
		tr_report(r, "cannot check the event formats");
		strv_free(&formats);
		tfile_close(tf);
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < res.bad.n; i++)
		printf("%s\n", res.bad.v[i]);
	if (!a.quiet)
		printf("%zu event formats in %s: %zu parse, %zu do not\n", res.total, what,
		       res.total - res.bad.n, res.bad.n);
	r = res.bad.n ? EXIT_RUNTIME : EXIT_OK;
	fmt_try_parse_result_free(&res);
	strv_free(&formats);
	tfile_close(tf);
	return r;
}
