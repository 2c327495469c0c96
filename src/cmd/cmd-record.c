// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr record: set up events (and a tracer), record every CPU's ring buffer
 * into a trace.dat file while COMMAND runs, for --duration, or until
 * SIGINT, then put tracefs back.  The recorder's own threads are filtered
 * out of the events it enables (common_pid != ...) unless --no-filter.
 * At the end a per-CPU summary of events, losses and bytes goes to stderr.
 *
 * A max-latency tracer (-p irqsoff, wakeup, ...) is recorded as trace-cmd
 * does: no ring buffer readers; at the end the text of the trace file,
 * which shows the worst section the kernel kept, goes into a v6 "latency"
 * file with tracing_max_latency (reset to 0 at the start, and left as it
 * ends) in its first line.
 *
 * With a snapshot trigger (--trigger SYS:EV:snapshot...) the instance's
 * snapshot buffer is saved too, at the end, as the file's buffer
 * "snapshot".
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "parse.h"
#include "caps.h"
#include "net.h"
#include "rec.h"
#include "session.h"
#include "setup.h"
#include "tfs.h"
#include "tfw.h"

struct args {
	struct opt_instance inst;
	struct opt_events ev;
	struct tr_setup setup;
	const char *output;
	bool quiet, verbose, fail_on_loss;
	struct opt_run run;
	char **command;
	struct opt_file_format ff;
	const char *net;	/* -N HOST:PORT as given */
	struct rec_net rn;
};

enum { OPT_FAIL_ON_LOSS = 0x100, OPT_PSK };

static const struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "Write the trace to FILE (default trace.dat)", 0 },
	/* -F is the print filter of report and stream (tr.1, OPTION LETTERS). */
	{ NULL, 'F', NULL, OPTION_HIDDEN, NULL, 0 },
	{ "net", 'N', "HOST:PORT", 0, "Send the recording to 'tr listen' or 'trace-cmd listen' "
				      "at HOST:PORT instead of writing a file", 0 },
	{ "psk", OPT_PSK, "FILE", 0, "With -N: TLS 1.3 with the pre-shared key in FILE (tr listen "
				     "--psk with the same file)", 0 },
	{ "quiet", 'q', NULL, 0, "Print no summary and no status line", 0 },
	{ "verbose", 'v', NULL, 0, "Also say which reader each CPU used (mmap, splice, read) "
				   "and its wake-up figures", 0 },
	{ "fail-on-loss", OPT_FAIL_ON_LOSS, NULL, 0, "Exit with 1 if any event was lost", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, &a->ev, &a->setup);
		opt_bind_file_format(state, &a->ff);
		opt_bind_run(state, &a->run);
		return 0;
	case 'o':
		if (!*arg)
			argp_error(state, "empty output file name");
		a->output = arg;
		return 0;
	case 'F':
		argp_error(state, "-F filters what report and stream print; to trace only COMMAND "
				  "use --follow (trace-cmd record's -F)");
		return 0;
	case 'N': {
		char *host;

		if (net_hostport_parse(arg, &host, &a->rn.port))
			argp_error(state, "%s", tr_failure());
		a->net = arg;
		a->rn.host = host;
		return 0;
	}
	case OPT_PSK:
		a->rn.psk_file = arg;
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case 'v':
		a->verbose = true;
		return 0;
	case OPT_FAIL_ON_LOSS:
		a->fail_on_loss = true;
		return 0;
	case ARGP_KEY_ARG:
		/* COMMAND and everything after it are the command's. */
		a->command = &state->argv[state->next - 1];
		state->next = state->argc;
		return 0;
	case ARGP_KEY_END:
		opt_check_follow(state, a->run.follow, a->command, &a->setup);
		if (!a->ev.list.n && !a->setup.tracer)
			argp_error(state, "nothing to record: give events with -e or a tracer with -p");
		if (a->rn.psk_file && !a->net)
			argp_error(state, "--psk goes with -N");
		if (a->net && a->output)
			argp_error(state, "-N sends the recording to a listener: no -o");
		if (a->net && (setup_latency_tracer(a->setup.tracer) || a->ff.version || a->ff.zip >= 0))
			argp_error(state, "-N sends the ring buffer's pages as trace-cmd does: no latency "
					  "tracer, --file-version or --compression (the listener "
					  "chooses)");
		if (setup_latency_tracer(a->setup.tracer) && a->inst.name)
			argp_error(state, "latency tracer '%s' works in the top-level buffer only, "
					  "not with -B", a->setup.tracer);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child children[] = {
	{ &opt_instance_argp, 0, "Instance:", 0 },
	{ &opt_events_argp, 0, "Events:", 0 },
	{ &opt_setup_argp, 0, "Tracer and buffer:", 0 },
	{ &opt_cpus_argp, 0, "CPUs:", 0 },
	{ &opt_pids_argp, 0, "Processes:", 0 },
	{ &opt_file_format_argp, 0, "File:", 0 },
	{ &opt_run_argp, 0, "Run:", 0 },
	{ 0 }
};

static const struct argp argp = {
	options, parse, "[COMMAND [ARGS...]]",
	"Record events into a trace.dat file (trace-cmd's format) while COMMAND runs, "
	"for --duration, or until interrupted.\v"
	"Events of the ftrace system (ftrace:print, the trace_marker writes) are always "
	"in the buffer and need no enabling.  The file opens with 'trace-cmd report' and "
	"KernelShark.  Files are version 7, compressed with zstd, unless --file-version or "
	"--compression say otherwise.",
	children, NULL, NULL
};

static char *dir_of(const char *path)
{
	char *copy = xstrdup(path), *d = xstrdup(dirname(copy));

	free(copy);
	return d;
}

/* The summary and warnings on stderr; the exit status. */
static int finish(const struct args *a, const struct rec_record_result *res)
{
	const struct rec_summary *sum = &res->sum;

	if (res->latency) {
		if (!a->quiet)
			rec_latency_print(stderr, a->setup.tracer, res->max_us, res->latency_bytes,
					  a->output);
		return EXIT_OK;
	}
	if (res->reader_err == -ENOSPC)
		tr_warn("no space left on the file system of '%s': recording stopped early",
			a->output);
	else if (res->reader_err)
		tr_warn("a reader stopped early: %s", strerror(-res->reader_err));
	if (a->verbose)
		rec_readers_print(stderr, sum);
	if (!a->quiet)
		rec_summary_print(stderr, sum, a->net ? NULL : a->output);
	if (!a->quiet && a->net)
		fprintf(stderr, "sent to '%s'\n", a->net);
	if (sum->fell_back_v6)
		tr_warn("no room to compress '%s': it was written as version 6", a->output);
	if (sum->dropped_kallsyms)
		tr_warn("no room for kernel symbols in '%s': addresses will not be named",
			a->output);
	if (sum->dropped_cmdlines)
		tr_warn("no room for the saved command names in '%s'", a->output);
	if (sum->dropped_bytes)
		tr_warn("no room for %llu bytes of events: the newest were left out",
			(unsigned long long)sum->dropped_bytes);
	if (res->reader_err)
		return EXIT_RUNTIME;
	if (a->fail_on_loss && sum->total.lost) {
		tr_error("%llu events were lost", (unsigned long long)sum->total.lost);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* The status line at a terminal: what was drawn last, to rate events and to erase it. */
struct status {
	bool drawn;
	uint64_t last_ns, last_events;
};

/*
 * One line on stderr, redrawn in place: elapsed, events/s since the last
 * line, MB written, and the CPUs that lost events so far.
 */
static void status_draw(void *arg, const struct rec_progress *p)
{
	struct status *st = arg;
	double dt = (p->elapsed_ns - st->last_ns) / 1e9;
	double rate = dt > 0 ? (p->events - st->last_events) / dt : 0;
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "\r%.1f s, %.0f events/s, %.1f MB written",
		     p->elapsed_ns / 1e9, rate, p->bytes / 1e6);
	for (int c = 0, first = 1; c < p->ncpus && n < (int)sizeof(line) - 40; c++) {
		if (!p->lost[c])
			continue;
		n += snprintf(line + n, sizeof(line) - n, "%s cpu%d %llu", first ? ", lost:" : "",
			      c, (unsigned long long)p->lost[c]);
		first = 0;
	}
	fprintf(stderr, "%s\033[K", line);
	fflush(stderr);
	st->drawn = true;
	st->last_ns = p->elapsed_ns;
	st->last_events = p->events;
}

static void status_erase(struct status *st)
{
	if (st->drawn)
		fputs("\r\033[K", stderr);
	st->drawn = false;
}

/*
 * The version and compression asked for, as rec_write_file() flags.  The
 * default is v7 with zstd, as trace-cmd's: see README (files about a
 * tenth of v6's for a little CPU after recording, and no events lost).
 */
static unsigned file_flags(const struct args *a)
{
	if (a->ff.version == 6)
		return 0;
	return REC_FILE_V7 | REC_ZIP(a->ff.zip < 0 ? TFW_ZIP_ZSTD : a->ff.zip);
}

int cmd_record(int argc, char **argv)
{
	struct args a = { .ff.zip = -1 };
	struct rec_record_result res = { 0 };
	struct status st = { 0 };
	bool status_line, created = false;
	struct tfs_inst *in;
	char *dir = NULL;
	int fd = -1, status = EXIT_RUNTIME;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	if (a.net)
		goto record;
	if (!a.output)
		a.output = "trace.dat";
	/*
	 * An output we cannot write fails before tracefs is touched.  An old
	 * file is emptied only when the recording starts (rec_record()): a
	 * session that fails to open (a command not found) leaves it as it was.
	 */
	fd = open(a.output, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(a.output, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		tr_error("cannot write '%s': %s", a.output, strerror(errno));
		goto out;
	}
	dir = dir_of(a.output);
record:
	/* Only a person at a terminal wants it; logs and pipes get the summary alone. */
	status_line = !a.quiet && isatty(STDERR_FILENO);
	if (cmd_instance_open(a.inst.name, true, &in) ||
	    rec_record(&(struct rec_record_opts){ .inst = in, .setup = &a.setup,
						  .events = &a.ev.list, .follow = a.run.follow,
						  .no_filter = a.run.no_filter, .command = a.command,
						  .duration_ns = a.run.duration_ns, .fd = fd,
						  .tmp_dir = dir, .net = a.net ? &a.rn : NULL,
						  .file_flags = file_flags(&a),
						  .progress = status_line ? status_draw : NULL,
						  .progress_arg = &st },
		       &res)) {
		status_erase(&st);
		tr_report(-EIO, "cannot record");
		/* Nothing was recorded: leave no empty file behind. */
		if (created && !res.sum.cpu && !res.latency && !a.net)
			unlink(a.output);
		goto out;
	}
	status_erase(&st);
	status = finish(&a, &res);
out:
	if (fd >= 0 && close(fd) && !status) {
		tr_error("cannot write '%s': %s", a.output, strerror(errno));
		status = EXIT_RUNTIME;
	}
	free(dir);
	free((char *)a.rn.host);
	rec_summary_free(&res.sum);
	evsel_list_free(&a.ev.list);
	setup_free(&a.setup);
	return status;
}
