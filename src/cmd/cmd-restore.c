// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr restore: complete the trace.dat of a recording whose tr died (SIGKILL,
 * the OOM killer, a power cut of the session) from the spool it kept
 * beside the output, FILE.spool (rec.h): header, formats, kallsyms and
 * options from its start, cmdlines and every CPU's pages as of its last
 * flush.  The file is written under a temporary name and renamed into
 * place; then the spool is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "rec.h"

struct args {
	const char *file, *input, *output;
	struct opt_file_format ff;
	bool quiet, keep;
};

enum { OPT_KEEP = 0x100 };

static const struct argp_option options[] = {
	{ "input", 'i', "SPOOL", 0, "Read the spool directory SPOOL (default FILE.spool)", 0 },
	{ "output", 'o', "FILE", 0, "Write the trace to FILE (default: the recording's, FILE)", 0 },
	{ "keep", OPT_KEEP, NULL, 0, "Keep the spool once the file is written", 0 },
	{ "quiet", 'q', NULL, 0, "Print no summary", 0 },
	{ 0 }
};

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
			argp_error(state, "empty %s name", key == 'i' ? "spool" : "output file");
		*(key == 'i' ? &a->input : &a->output) = arg;
		return 0;
	case OPT_KEEP:
		a->keep = true;
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case ARGP_KEY_ARG:
		if (a->file)
			argp_error(state, "unexpected argument '%s'", arg);
		a->file = arg;
		return 0;
	case ARGP_KEY_END:
		if (a->file && (a->input || a->output))
			argp_error(state, "give FILE, or -i SPOOL and -o FILE, not both");
		if (!a->file && !(a->input && a->output))
			argp_error(state, "nothing to restore: give FILE (its spool is FILE.spool), "
					  "or -i SPOOL -o FILE");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, "FILE\n-i SPOOL -o FILE",
	"Write the trace.dat of a recording that ended abruptly (tr record killed) from the "
	"spool it left beside its output, FILE.spool.\v"
	"tr record keeps what it has read in FILE.spool while it runs, at most --flush-interval "
	"(1 s) behind the kernel, and removes it once FILE is written.  If tr died instead, "
	"FILE is empty and the spool holds the recording: tr restore writes FILE from it "
	"(header, formats and kernel symbols from the start, the task names and every CPU's "
	"events as of the last flush) and removes the spool.  'tr report --stat' shows the "
	"file was restored.  Version 7 with zstd unless --file-version or --compression say "
	"otherwise.",
	opt_file_format_children, NULL, NULL
};

int cmd_restore(int argc, char **argv)
{
	struct args a = { .ff.zip = -1 };
	struct rec_restore_result res;
	char *spool, *tmp, *parts = NULL;
	struct stat st;
	int fd, r, settled, status = EXIT_RUNTIME;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	if (!a.output)
		a.output = a.file;
	spool = a.input ? xstrdup(a.input) : rec_spool_path(a.file);
	if (stat(spool, &st) || !S_ISDIR(st.st_mode)) {
		const char *why = "not a directory";

		if (stat(spool, &st))
			why = strerror(errno);
		tr_error("cannot restore from '%s': %s", spool, why);
		free(spool);
		return EXIT_RUNTIME;
	}
	tmp = xasprintf("%s.XXXXXX", a.output);
	/* mkostemp's 0600, as tr record makes its output: it holds kallsyms and the events. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		tr_error("cannot write '%s': %s", a.output, strerror(errno));
		goto out;
	}
	r = rec_restore(spool, fd, rec_file_flags(a.ff.version, a.ff.zip), &res);
	if (!r && fdatasync(fd))
		r = tr_fail(-errno, "cannot write '%s': %s", a.output, strerror(errno));
	if (close(fd) && !r)
		r = tr_fail(-errno, "cannot write '%s': %s", a.output, strerror(errno));
	if (!r && rename(tmp, a.output))
		r = tr_fail(-errno, "cannot write '%s': %s", a.output, strerror(errno));
	if (r) {
		unlink(tmp);
		tr_report(r, "cannot restore '%s'", a.output);
		goto out;
	}
	/*
	 * A --rotate recording's parts are named after its FILE: the one given,
	 * or with -i the one the spool's owner file names while the spool is
	 * still its FILE.spool (one moved elsewhere says nothing of them).
	 */
	parts = a.file ? xstrdup(a.file) : rec_spool_output(spool);
	settled = parts ? rec_spool_settle(spool, parts) : 0;
	if (settled < 0) {
		tr_report(settled, "cannot restore '%s'", a.output);
		goto out;
	}
	if (!a.keep)
		rec_spool_remove(spool);
	if (!a.quiet) {
		fprintf(stderr, "restored '%s' from '%s': %d CPUs, %llu bytes of events, "
			"%llu bytes in all\n", a.output, spool, res.cpus,
			(unsigned long long)res.bytes, (unsigned long long)res.file_bytes);
		if (res.rotated && parts)
			fprintf(stderr, "'%s' also holds the part that was to become '%s.1' "
				"(tr died before it was written out)\n", a.output, parts);
		else if (res.rotated)
			fprintf(stderr, "'%s' also holds the part that was to become the "
				"recording's newest rotated part (tr died before it was written "
				"out)\n", a.output);
		if (settled)
			fprintf(stderr, "finished '%s.1', the part being written out when tr "
				"died\n", parts);
		if (res.kallsyms == REC_KSYMS_NOW)
			fprintf(stderr, "tr died before it kept the kernel's symbols: '%s' has "
				"this boot's, the recording's boot\n", a.output);
	}
	if (res.kallsyms == REC_KSYMS_LOST)
		tr_warn("'%s' has no kernel symbols: tr died before it kept them, and the "
			"machine has restarted since (addresses print as numbers)", a.output);
	status = EXIT_OK;
out:
	free(parts);
	free(tmp);
	free(spool);
	return status;
}
