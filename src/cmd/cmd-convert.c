// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr convert: rewrite a trace.dat in the other file version (6 or 7) or
 * another compression (zstd, zlib, none), keeping everything trace-cmd
 * reads: formats, kallsyms, printk formats, cmdlines, the recording's
 * options, every buffer and the page data as it was.  trace-cmd convert
 * does the same.  Or, with --to perfetto (or an output named *.pftrace or
 * *.perfetto-trace), write Perfetto's trace format from one or more files
 * (pftrace.h), each its own machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "pftrace.h"
#include "tfile-edit.h"

struct args {
	struct strv inputs;
	const char *input, *output, *to;
	struct opt_file_format ff;
	bool quiet, no_compact;
};

enum { OPT_TO = 0x100, OPT_NO_COMPACT };

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0,
	  "Read the trace from FILE (default trace.dat); for Perfetto, repeat it to put several "
	  "files (machines) in one trace", 0 },
	{ "output", 'o', "FILE", 0,
	  "Write the converted trace to FILE (required); '-' writes Perfetto's format to the "
	  "standard output", 0 },
	{ "to", OPT_TO, "FORMAT", 0,
	  "tracedat (the default) or perfetto (the default for an output named *.pftrace or "
	  "*.perfetto-trace, or '-')", 0 },
	{ "no-compact-sched", OPT_NO_COMPACT, NULL, 0,
	  "Perfetto: write sched_switch and sched_waking as whole events, not in the bundles' "
	  "compact form", 0 },
	{ "quiet", 'q', NULL, 0, "Print no summary", 0 },
	{ 0 }
};

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind_file_format(state, &a->ff);
		return 0;
	case 'i':
	case 'o':
		if (!*arg)
			argp_error(state, "empty %s file name", key == 'i' ? "input" : "output");
		if (key == 'i')
			strv_push(&a->inputs, arg);
		else
			a->output = arg;
		return 0;
	case OPT_TO:
		if (strcmp(arg, "perfetto") && strcmp(arg, "tracedat"))
			argp_error(state, "bad format '%s' (perfetto or tracedat)", arg);
		a->to = arg;
		return 0;
	case OPT_NO_COMPACT:
		a->no_compact = true;
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (!a->output)
			argp_error(state, "no output file: give it with -o FILE");
		if (!a->to)
			a->to = ends_with(a->output, ".pftrace") || !strcmp(a->output, "-") ||
				ends_with(a->output, ".perfetto-trace") ? "perfetto" : "tracedat";
		if (!strcmp(a->to, "perfetto")) {
			if (a->ff.version || a->ff.zip >= 0)
				argp_error(state, "--file-version and --compression are for trace.dat "
					   "output, not Perfetto's");
		} else {
			if (a->inputs.n > 1)
				argp_error(state, "one input for a trace.dat output (several go into "
					   "one Perfetto trace: --to perfetto)");
			if (a->no_compact)
				argp_error(state, "--no-compact-sched is for Perfetto output");
			if (!strcmp(a->output, "-"))
				argp_error(state, "a trace.dat cannot go to the standard output");
		}
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, NULL,
	"Rewrite a trace.dat file in another file version or compression, or write it (and "
	"more) in Perfetto's trace format.\v"
	"The default is what tr record and trace-cmd 3 write: version 7 compressed with zstd "
	"(zstd too for --file-version 7 alone).  "
	"Formats, kallsyms, printk formats, saved cmdlines, the recording's options (clock, "
	"date, offset, uname, stats), every buffer and the recorded pages are kept, so tr report "
	"and trace-cmd report print the same trace from both files, latency tracers' files "
	"(text) too.  "
	"Perfetto's format (--to perfetto, or an output named *.pftrace): every event, per CPU, "
	"typed where Perfetto's schema has the event and generic otherwise, the clock pairing "
	"tr record stores, uname, the saved task names, lost events, and each input file as "
	"its own machine; trace_marker text in atrace form (B|pid|name, E|pid, "
	"C|pid|name|value) becomes slices and counters.  Open the file at ui.perfetto.dev.",
	opt_file_format_children, NULL, NULL
};

/* Is path the file st describes (converting a file onto itself)? */
static bool same_file(const char *path, const struct stat *st)
{
	struct stat o;

	return !stat(path, &o) && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

/* The finished trace in fd (n bytes) to stdout. */
static int copy_out(int fd, uint64_t n)
{
	char buf[1 << 16];
	uint64_t done = 0;

	if (lseek(fd, 0, SEEK_SET))
		return tr_fail(-errno, "cannot read the converted trace back: %s", strerror(errno));
	while (done < n) {
		ssize_t got = read(fd, buf, sizeof(buf)), off = 0;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return tr_fail(got ? -errno : -EIO, "cannot read the converted trace back: %s",
				       got ? strerror(errno) : "short file");
		while (off < got) {
			ssize_t w = write(STDOUT_FILENO, buf + off, (size_t)(got - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return tr_fail(-errno, "cannot write the standard output: %s",
					       strerror(errno));
			off += w;
		}
		done += (uint64_t)got;
	}
	return 0;
}

/*
 * Perfetto's format: into a temporary file beside the output, renamed over
 * it when complete (or copied to stdout for '-'), so that a bad input
 * leaves no half-written trace.
 */
static int to_perfetto(struct args *a)
{
	struct tfile **tfs = xcalloc(a->inputs.n, sizeof(*tfs));
	struct pf_opts o = { .no_compact_sched = a->no_compact };
	struct pf_result res = { 0 };
	bool out_std = !strcmp(a->output, "-");
	char *tmp = out_std ? xstrdup("/tmp/tr-convert.XXXXXX") : xasprintf("%s.XXXXXX", a->output);
	const char *tmpdir = getenv("TMPDIR");
	int fd = -1, r = 0, status = EXIT_RUNTIME;
	struct stat ost;

	if (out_std && tmpdir && *tmpdir) {
		free(tmp);
		tmp = xasprintf("%s/tr-convert.XXXXXX", tmpdir);
	}
	for (size_t i = 0; i < a->inputs.n; i++) {
		struct stat st;

		if (tfile_open(a->inputs.v[i], TFILE_LAZY_KALLSYMS, &tfs[i])) {
			tr_report(-EIO, "cannot read '%s'", a->inputs.v[i]);
			goto out;
		}
		if (!out_std && !stat(a->inputs.v[i], &st) && same_file(a->output, &st)) {
			tr_error("'%s' is an input file: write the converted trace elsewhere",
				 a->output);
			status = EXIT_USAGE;
			goto out;
		}
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		tr_error("cannot write '%s': %s", out_std ? tmp : a->output, strerror(errno));
		goto out;
	}
	if (out_std)
		unlink(tmp);
	r = pf_convert(tfs, a->inputs.n, fd, &o, &res);
	if (!r && out_std)
		r = copy_out(fd, res.bytes);
	/*
	 * mkstemp's 0600 stays for a new output, as tr record's (it holds the
	 * kernel's symbols and every traced task's events); one replaced keeps
	 * the mode it had.
	 */
	if (!r && !out_std && !stat(a->output, &ost) && fchmod(fd, ost.st_mode & 07777))
		r = tr_fail(-errno, "cannot write '%s': %s", a->output, strerror(errno));
	if (close(fd) && !r)
		r = tr_fail(-errno, "cannot write '%s': %s", a->output, strerror(errno));
	if (!r && !out_std && rename(tmp, a->output))
		r = tr_fail(-errno, "cannot write '%s': %s", a->output, strerror(errno));
	if (r) {
		if (!out_std)
			unlink(tmp);
		tr_report(r, "cannot convert to '%s'", a->output);
		goto out;
	}
	if (!a->quiet) {
		for (size_t i = 0; i < res.notes.n; i++)
			fprintf(stderr, "%s\n", res.notes.v[i]);
		fprintf(stderr, "%s: perfetto, %llu packets, %llu events (%llu typed, %llu compact "
			"sched, %llu generic), %llu lost%s, %llu bytes\n",
			out_std ? "(stdout)" : a->output, (unsigned long long)res.packets,
			(unsigned long long)(res.typed + res.compact + res.generic),
			(unsigned long long)res.typed, (unsigned long long)res.compact,
			(unsigned long long)res.generic, (unsigned long long)res.lost,
			res.lost_unknown ? " (and more)" : "", (unsigned long long)res.bytes);
		if (res.latency_buffers)
			fprintf(stderr, "%s: %d latency tracer buffer(s) left out (text, no events)\n",
				out_std ? "(stdout)" : a->output, res.latency_buffers);
	}
	status = EXIT_OK;
out:
	pf_result_free(&res);
	for (size_t i = 0; i < a->inputs.n; i++)
		tfile_close(tfs[i]);
	free(tfs);
	free(tmp);
	return status;
}

/* A trace.dat in another version or compression. */
static int to_tracedat(struct args *args)
{
	struct args a = *args;
	struct tfile_edit_opts o;
	struct tfw_result res = { 0 };
	struct tfile *tf = NULL;
	struct stat st;
	char *dir = NULL, *slash;
	int fd = -1, r, status = EXIT_RUNTIME;

	a.input = a.inputs.v[0];
	if (tfile_open(a.input, TFILE_KEEP_FORMATS | TFILE_LAZY_KALLSYMS, &tf)) {
		tr_report(-EIO, "cannot read '%s'", a.input);
		return EXIT_RUNTIME;
	}
	if (!a.ff.version)
		a.ff.version = 7;
	o = (struct tfile_edit_opts){ .version = a.ff.version,
				      .zip = a.ff.version == 7 && a.ff.zip < 0 ? TFW_ZIP_ZSTD : a.ff.zip };
	if (!stat(a.input, &st) && same_file(a.output, &st)) {
		tr_error("'%s' is the input file: write the converted trace elsewhere", a.output);
		tfile_close(tf);
		return EXIT_USAGE;
	}
	/* 0600 when new, as tr record's output; an old one keeps its mode. */
	fd = open(a.output, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		tr_error("cannot write '%s': %s", a.output, strerror(errno));
		goto out;
	}
	/* Decompressed pages are staged beside the output, where the room is. */
	dir = xstrdup(a.output);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	o.tmp_dir = slash ? dir : ".";
	r = tfile_convert(tf, fd, &o, &res);
	if (close(fd) && !r)
		r = tr_fail(-errno, "cannot write '%s': %s", a.output, strerror(errno));
	if (r) {
		tr_report(r, "cannot convert '%s'", a.input);
		unlink(a.output);
		status = r == -ENOTSUP ? EXIT_USAGE : EXIT_RUNTIME;
		goto out;
	}
	if (!a.quiet)
		fprintf(stderr, "%s: version %d%s%s, %llu bytes (from %llu)\n", a.output, a.ff.version,
			a.ff.version == 7 ? ", " : "",
			a.ff.version == 7 ? (o.zip == TFW_ZIP_ZSTD ? "zstd" :
					  o.zip == TFW_ZIP_ZLIB ? "zlib" : "uncompressed") : "",
			(unsigned long long)res.bytes,
			(unsigned long long)tfile_info(tf)->file_size);
	status = EXIT_OK;
out:
	free(dir);
	tfile_close(tf);
	return status;
}

int cmd_convert(int argc, char **argv)
{
	struct args a = { .ff.zip = -1 };
	int status;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (!a.inputs.n)
		strv_push(&a.inputs, "trace.dat");
	status = !strcmp(a.to, "perfetto") ? to_perfetto(&a) : to_tracedat(&a);
	strv_free(&a.inputs);
	return status;
}
