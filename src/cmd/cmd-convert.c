// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr convert: rewrite a trace.dat in the other file version (6 or 7) or
 * another compression (zstd, zlib, none), keeping everything trace-cmd
 * reads: formats, kallsyms, printk formats, cmdlines, the recording's
 * options, every buffer and the page data as it was.  trace-cmd convert
 * does the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "tfile-edit.h"

struct args {
	const char *input, *output;
	struct opt_file_format ff;
	bool quiet;
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "Read the trace from FILE (default trace.dat)", 0 },
	{ "output", 'o', "FILE", 0, "Write the converted trace to FILE (required)", 0 },
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
			argp_error(state, "empty %s file name", key == 'i' ? "input" : "output");
		*(key == 'i' ? &a->input : &a->output) = arg;
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
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child children[] = {
	{ &opt_file_format_argp, 0, "File:", 0 },
	{ 0 }
};

static const struct argp argp = {
	options, parse, NULL,
	"Rewrite a trace.dat file in another file version or compression.\v"
	"The default is what tr record and trace-cmd 3 write: version 7 compressed with zstd "
	"(zstd too for --file-version 7 alone).  "
	"Formats, kallsyms, printk formats, saved cmdlines, the recording's options (clock, "
	"date, offset, uname, stats), every buffer and the recorded pages are kept, so tr report "
	"and trace-cmd report print the same trace from both files, latency tracers' files "
	"(text) too.",
	children, NULL, NULL
};

/* Is path the file st describes (converting a file onto itself)? */
static bool same_file(const char *path, const struct stat *st)
{
	struct stat o;

	return !stat(path, &o) && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

int cmd_convert(int argc, char **argv)
{
	struct args a = { .ff.zip = -1 };
	struct tfile_edit_opts o;
	struct tfw_result res = { 0 };
	struct tfile *tf = NULL;
	struct stat st;
	char *dir = NULL, *slash;
	int fd = -1, r, status = EXIT_RUNTIME;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (!a.input)
		a.input = "trace.dat";
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
	fd = open(a.output, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
