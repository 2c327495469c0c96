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
 *
 * Several buffers, as trace-cmd's -B: each -B NAME starts a buffer whose
 * options (the set-up and event groups) are those up to the next -B; the
 * top level's are those before the first (record-buffers.c).  The first
 * buffer is the session's own, the others go beside it (session_buf), and
 * all end up in one file.  Where the file, its temporary data and its
 * spool go is the recorder's to say (rec-paths.h).
 *
 * The parse switch stores; check_record() checks the whole line at its end.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "parse.h"
#include "caps.h"
#include "net.h"
#include "rec-paths.h"
#include "rec.h"
#include "session.h"
#include "setup.h"
#include "tfs.h"
#include "record-buffers.h"
#include "record-local.h"

struct args {
	struct record_bufs b;	/* -B buffers and -A guests (record-buffers.h) */
	const char *instance;	/* --instance: the whole command in one instance */
	bool keep, ignore_missing, poll;
	bool date, has_ts_offset;	/* --date, --ts-offset */
	int64_t ts_offset;
	bool tsc2nsec;			/* --tsc2nsec, and the kernel's conversion */
	uint32_t tsc_mult, tsc_shift;
	int rt_prio;
	unsigned idle_ms;
	const char *temp_dir;
	const char *user;
	uid_t uid;
	gid_t gid;
	const char *output;
	bool quiet, verbose, fail_on_loss;
	struct opt_run run;
	char **command;
	struct opt_file_format ff;
	unsigned flush_ms;
	uint64_t max_size;
	unsigned rotate;	/* --rotate N: parts kept beside the output */
	const char *net;	/* -N HOST:PORT as given */
	unsigned nnet;		/* how many -N and -V */
	struct rec_net rn;
	unsigned tsync_ms;
	bool has_tsync;
};

enum { OPT_FAIL_ON_LOSS = 0x100, OPT_INSTANCE, OPT_POLL, OPT_TEMP, OPT_MODULE, OPT_USER,
       OPT_FLUSH_INTERVAL, OPT_MAX_SIZE, OPT_ROTATE, OPT_PSK, OPT_PROFILE, OPT_DATE,
       OPT_TS_OFFSET, OPT_TSYNC, OPT_TSC2NSEC };

static const struct argp_option options[] = {
	{ NULL, 'B', "NAME", 0, "Record the instance NAME as a buffer of its own: the options "
	  "after -B NAME (events, filters, triggers, tracer, clock, buffer size, options, CPUs) "
	  "are its, up to the next -B; those before the first -B are the top level's, which "
	  "is recorded when it has events or a tracer (as trace-cmd's -B)", 0 },
	{ "instance", OPT_INSTANCE, "NAME", 0, "Record everything in the instance NAME, wherever "
	  "the option comes (not with -B)", 0 },
	{ "output", 'o', "FILE", 0, "Write the trace to FILE (default trace.dat)", 0 },
	/* -F is the print filter of report and stream (tr.1, OPTION LETTERS). */
	{ NULL, 'F', NULL, OPTION_HIDDEN, NULL, 0 },
	{ "net", 'N', "HOST:PORT", 0, "Send the recording to 'tr listen' or 'trace-cmd listen' "
				      "at HOST:PORT instead of writing a file", 0 },
	{ "vsock", 'V', "CID:PORT", 0, "As -N, over vsock: to 'tr listen --vsock' or 'trace-cmd "
				       "listen -V' on the machine of context id CID", 0 },
	{ "agent", 'A', "NAME@ADDR:PORT", 0, "Also record the machine whose 'tr agent --tcp' or "
	  "'trace-cmd agent -N' is at ADDR:PORT (or whose 'tr agent' or 'trace-cmd agent' is on "
	  "vsock: NAME@CID[:PORT], port 823 by default) into OUTPUT-NAME.dat, its clock offset "
	  "measured and stored there: the -e, -f and -C after it are its own (default: this "
	  "machine's events). Repeatable", 0 },
	{ "tsync-interval", OPT_TSYNC, "MS", 0, "With -A: measure the guests' clock offsets every "
	  "MS milliseconds while recording (default: at the start and the end)", 0 },
	{ "psk", OPT_PSK, "FILE", 0, "With -N or -A: TLS 1.3 with the pre-shared key in FILE (tr "
				     "listen --psk, tr agent --psk with the same file)", 0 },
	{ "quiet", 'q', NULL, 0, "Print no summary and no status line", 0 },
	{ "verbose", 'v', NULL, 0, "Also say which reader each CPU used (mmap, splice, read) "
				   "and its wake-up figures", 0 },
	{ "fail-on-loss", OPT_FAIL_ON_LOSS, NULL, 0, "Exit with 1 if any event was lost", 0 },
	{ "keep", 'k', NULL, 0, "Leave the set-up and the buffers as the recording ends them: "
	  "tracing on, the events enabled, the buffers not cleared (tr show reads what comes "
	  "after; tr reset undoes it)", 0 },
	{ "ignore-missing", 'i', NULL, 0, "An event that does not exist is a warning, not an "
	  "error: the others are recorded", 0 },
	{ "stacktrace", 'T', NULL, 0, "A kernel stack trace with every event of the buffer "
	  "(the stacktrace option)", 0 },
	{ "profile", OPT_PROFILE, NULL, 0, "Record what tr report --profile reads, in the buffer "
	  "(as -e after -B): sched_switch with the stack of each blocking one (a stacktrace "
	  "trigger), sched_wakeup, raw_syscalls and, where the kernel has them, the page fault "
	  "events", 0 },
	{ "module", OPT_MODULE, "MOD", 0, "Function tracers: trace only the functions of module "
	  "MOD (set_ftrace_filter :mod:MOD). Repeatable", 0 },
	{ "rt-prio", 'r', "PRIO", 0, "Run the readers at SCHED_FIFO priority PRIO (1-99) "
	  "instead of nice -20", 0 },
	{ "sleep", 's', "USECS", 0, "The readers' longest sleep when idle (default 200000), "
	  "and with --poll their interval", 0 },
	{ "poll", OPT_POLL, NULL, 0, "Readers do not wait for the kernel's wake-up: they read "
	  "every -s USECS", 0 },
	{ "temp", OPT_TEMP, "DIR", 0, "Keep the per-CPU temporary files in DIR (default: the "
	  "output's directory)", 0 },
	{ "user", OPT_USER, "USER", 0, "Run COMMAND as USER (its uid, gid and groups); tracing "
	  "stays root's", 0 },
	{ "date", OPT_DATE, NULL, 0, "Store the wall-clock time of the trace clock's zero, so "
	  "reports (tr's and trace-cmd's) print timestamps as dates: seconds since the epoch "
	  "(trace-cmd's --date; a clock in nanoseconds)", 0 },
	{ "ts-offset", OPT_TS_OFFSET, "NS", 0, "Store NS nanoseconds (may be negative) to add to "
	  "every timestamp when the file is read (trace-cmd's --ts-offset)", 0 },
	{ "tsc2nsec", OPT_TSC2NSEC, NULL, 0, "Record with the x86-tsc clock and store the "
	  "kernel's conversion of the TSC to nanoseconds, which reports (tr's and "
	  "trace-cmd's) apply (trace-cmd's --tsc2nsec; where the kernel gives user space "
	  "the conversion)", 0 },
	{ "flush-interval", OPT_FLUSH_INTERVAL, "TIME", 0, "Write what was read to FILE.spool "
	  "at least this often (default 1s), for tr restore after a crash", 0 },
	{ "max-size", OPT_MAX_SIZE, "SIZE", 0, "Stop before FILE grows past SIZE (k, M, G)", 0 },
	{ "rotate", OPT_ROTATE, "N", 0, "With --max-size: instead of stopping, move each full "
	  "part to FILE.1 (FILE.1 to FILE.2, ...), keeping N of them; the last part is FILE", 0 },
	{ 0 }
};

/*
 * --tsc2nsec: every buffer records with x86-tsc.  -N carries the option to
 * the listener's file; -A's guests have clocks of their own.
 */
static void check_tsc2nsec(struct argp_state *state, struct args *a)
{
	if (a->b.nguests)
		argp_error(state, "--tsc2nsec goes with the host alone: no -A");
	for (size_t i = 0; i < a->b.ndone; i++) {
		struct tr_setup *s = &a->b.done[i].setup;

		if (s->clock && strcmp(s->clock, "x86-tsc"))
			argp_error(state, "--tsc2nsec records with the x86-tsc clock: no -C %s",
				   s->clock);
		s->clock = "x86-tsc";
	}
}

/* -N HOST:PORT or -V CID:PORT: the listener (the count is checked at the end). */
static void add_listener(struct argp_state *state, struct args *a, bool vsock, const char *arg)
{
	char *host;
	uint32_t cid;

	if (vsock ? net_vsock_parse(arg, &cid, &a->rn.port)
		  : net_hostport_parse(arg, &host, &a->rn.port))
		argp_error(state, "%s", tr_failure());
	free((char *)a->rn.host);
	a->rn.host = vsock ? xasprintf("%u", cid) : host;
	a->rn.vsock = vsock;
	a->net = arg;
	a->nnet++;
}

/* -A: what its guests need (--psk and --tsync-interval are theirs or -N's), then guests_check(). */
static void check_guests(struct argp_state *state, struct args *a)
{
	struct tr_setup **host;

	if (a->rn.psk_file && !a->net && !a->b.nguests)
		argp_error(state, "--psk goes with -N, -V or -A");
	if (a->has_tsync && !a->b.nguests)
		argp_error(state, "--tsync-interval goes with -A");
	if (!a->b.nguests)
		return;
	if (a->net || setup_latency_tracer(a->b.done[0].setup.tracer))
		argp_error(state, "-A records into files here: no -N or -V, no latency tracer");
	host = xcalloc(a->b.ndone, sizeof(*host));
	for (size_t i = 0; i < a->b.ndone; i++)
		host[i] = &a->b.done[i].setup;
	guests_check(state, a->b.guests, a->b.nguests, &a->b.done[0].ev.list, host, a->b.ndone);
	free(host);
}

/* -N and -V: a listener gets one buffer's pages, and nothing stays here. */
static void check_net(struct argp_state *state, const struct args *a)
{
	if (!a->net)
		return;
	if (a->output)
		argp_error(state, "-N and -V send the recording to a listener: no -o");
	if (a->b.ndone > 1)
		argp_error(state, "-N and -V send one buffer, as trace-cmd does: no second -B");
	if (a->temp_dir || a->max_size || a->flush_ms)
		argp_error(state, "-N and -V keep nothing on this machine: no --temp, "
				  "--max-size or --flush-interval");
	if (setup_latency_tracer(a->b.done[0].setup.tracer) || a->ff.version || a->ff.zip >= 0)
		argp_error(state, "-N and -V send the ring buffer's pages as trace-cmd "
				  "does: no latency tracer, --file-version or --compression "
				  "(the listener chooses)");
}

/*
 * At the end of the line, once: the buffers (check_buffers()), then what
 * goes with what.  The parse switch only stores (and parses each value).
 */
static void check_record(struct argp_state *state, struct args *a)
{
	if (a->nnet > 1)
		argp_error(state, "-N and -V name one listener: give one");
	if (a->date && a->has_ts_offset)
		argp_error(state, "--date and --ts-offset exclude each other");
	bufs_end(state, &a->b, a->instance);
	opt_check_follow(state, a->run.follow, a->command, &a->b.done[0].setup);
	for (size_t i = 0; i < a->b.ndone; i++)
		if (a->b.done[i].module && !a->b.done[i].setup.tracer)
			argp_error(state, "--module filters the functions a function tracer "
					  "traces: give one with -p (function, function_graph)");
	if (a->user && !a->command)
		argp_error(state, "--user says who runs COMMAND: give one");
	check_guests(state, a);
	if (a->tsc2nsec)
		check_tsc2nsec(state, a);
	if (a->rotate && !a->max_size)
		argp_error(state, "--rotate says how many parts of --max-size to keep: "
				  "give --max-size");
	check_net(state, a);
}

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, NULL, &a->b.ev, &a->b.setup);
		opt_bind_file_format(state, &a->ff);
		opt_bind_run(state, &a->run);
		return 0;
	case 'B':
		bufs_next(state, &a->b, arg);
		return 0;
	case 'A': {
		struct guest_args g = { 0 };

		/* Said now, not at the end of the line. */
		guest_spec(state, &g, arg);
		free(g.name);
		free(g.host);
		bufs_next_guest(&a->b, arg);
		return 0;
	}
	case OPT_TSYNC: {
		int ms;

		if (parse_int(arg, 1, 3600000, &ms))
			argp_error(state, "bad --tsync-interval '%s' (milliseconds, 1 to 3600000)",
				   arg);
		a->tsync_ms = ms;
		a->has_tsync = true;
		return 0;
	}
	case OPT_INSTANCE:
		if (!tfs_inst_valid_name(arg))
			argp_error(state, "bad instance name '%s'", arg);
		a->instance = arg;
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
	case 'N':
	case 'V':
		add_listener(state, a, key == 'V', arg);
		return 0;
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
	case 'k':
		a->keep = true;
		return 0;
	case 'i':
		a->ignore_missing = true;
		return 0;
	case 'T':
		/* The buffer's option, as -O stacktrace: it follows -B. */
		strv_push(&a->b.setup.options, "stacktrace");
		return 0;
	case OPT_PROFILE:
		if (setup_profile(&a->b.ev.list, &a->b.setup))
			argp_error(state, "%s", tr_failure());
		return 0;
	case OPT_DATE:
		a->date = true;
		return 0;
	case OPT_TSC2NSEC:
		a->tsc2nsec = true;
		return 0;
	case OPT_TS_OFFSET:
		if (parse_i64(arg, &a->ts_offset))
			argp_error(state, "bad time offset '%s' (nanoseconds, e.g. -1500000)", arg);
		a->has_ts_offset = true;
		return 0;
	case OPT_MODULE: {
		char *f;

		if (!*arg || strpbrk(arg, ":/ \t*?["))
			argp_error(state, "bad module name '%s'", arg);
		f = xasprintf("*:mod:%s", arg);
		strv_push(&a->b.setup.ftrace_filter, f);
		free(f);
		a->b.module = true;
		return 0;
	}
	case 'r':
		if (parse_int(arg, 1, 99, &a->rt_prio))
			argp_error(state, "bad real-time priority '%s' (1 to 99)", arg);
		return 0;
	case 's': {
		int us;

		if (parse_int(arg, 1, 60000000, &us))
			argp_error(state, "bad sleep '%s' (microseconds, 1 to 60000000)", arg);
		/* The readers wait in poll(), to the millisecond. */
		a->idle_ms = us < 1000 ? 1 : (unsigned)(us / 1000);
		return 0;
	}
	case OPT_POLL:
		a->poll = true;
		return 0;
	case OPT_TEMP:
		if (!*arg)
			argp_error(state, "empty temporary directory name");
		a->temp_dir = arg;
		return 0;
	case OPT_USER:
		if (!*arg)
			argp_error(state, "empty user name");
		a->user = arg;
		return 0;
	case OPT_MAX_SIZE:
		if (parse_size(arg, &a->max_size) || !a->max_size)
			argp_error(state, "bad size '%s': give bytes with k, M or G, as 100M", arg);
		return 0;
	case OPT_ROTATE: {
		uint64_t n;

		if (parse_u64(arg, &n) || !n || n > REC_ROTATE_MAX)
			argp_error(state, "bad number of parts '%s': give 1 to %u", arg,
				   REC_ROTATE_MAX);
		a->rotate = (unsigned)n;
		return 0;
	}
	case OPT_FLUSH_INTERVAL: {
		uint64_t ns;

		if (parse_duration(arg, &ns) || ns < 1000000 || ns > 3600000000000ull)
			argp_error(state, "bad flush interval '%s': give 1ms to 1h", arg);
		a->flush_ms = (unsigned)(ns / 1000000);
		return 0;
	}
	case ARGP_KEY_ARG:
		opt_command(state, &a->command);
		return 0;
	case ARGP_KEY_END:
		check_record(state, a);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child children[] = {
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

/* --user: the uid, gid and name COMMAND runs with; a usage error for an unknown user. */
static int lookup_user(struct args *a)
{
	struct passwd *pw;

	errno = 0;
	pw = getpwnam(a->user);
	if (!pw) {
		tr_error("no such user '%s'%s%s", a->user, errno ? ": " : "",
			 errno ? strerror(errno) : "");
		return -ENOENT;
	}
	a->uid = pw->pw_uid;
	a->gid = pw->pw_gid;
	return 0;
}

/* The summary and warnings (live_record_summary()); the exit status. */
static int finish(const struct args *a, const struct rec_paths *out,
		  const struct live_record_result *res)
{
	live_record_summary(&(struct live_record_say){ .quiet = a->quiet, .verbose = a->verbose,
						       .tracer = a->b.done[0].setup.tracer,
						       .output = out->output, .spool = out->spool,
						       .net = a->net, .rotate = a->rotate },
			    res);
	if (res->latency)
		return EXIT_OK;
	if (res->reader_err)
		return EXIT_RUNTIME;
	if (a->fail_on_loss && res->sum.total.lost) {
		tr_error("%llu events were lost", (unsigned long long)res->sum.total.lost);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/*
 * -i: selectors that match no event the kernel has are dropped with a
 * warning (the ftrace system's are checked later, as always); a buffer
 * left with nothing to record is an error.
 */
static int drop_missing(struct args *a)
{
	struct strv avail = { 0 };
	int r = tfs_events(NULL, &avail);

	if (r) {
		tr_error("cannot list the events: %s", strerror(-r));
		return r;
	}
	for (size_t i = 0; !r && i < a->b.ndone; i++) {
		struct strv dropped = { 0 };

		evsel_keep_existing(&a->b.done[i].ev.list, &avail, &dropped);
		for (size_t k = 0; k < dropped.n; k++)
			tr_warn("no such event '%s': left out (-i)", dropped.v[k]);
		strv_free(&dropped);
		if (!a->b.done[i].ev.list.n && !a->b.done[i].setup.tracer) {
			tr_error("none of the events asked for %s%s%s exists: nothing to record",
				 a->b.done[i].name ? "in instance '" : "",
				 a->b.done[i].name ? a->b.done[i].name : "", a->b.done[i].name ? "'" : "");
			r = -ENOENT;
		}
	}
	strv_free(&avail);
	return r;
}

int cmd_record(int argc, char **argv)
{
	struct args a = { .ff.zip = -1 };
	struct live_record_result res = { 0 };
	struct live_status st = { 0 };
	struct rec_paths paths = { .fd = -1 };
	bool status_line;
	struct tfs_inst *in = NULL;
	struct session_buf *more = NULL;
	struct live_guest *rg = NULL;
	int status = EXIT_RUNTIME, r = 0;
	unsigned flags;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	flags = rec_file_flags(a.ff.version, a.ff.zip) | (a.date ? REC_FILE_DATE : 0);
	if (a.user && lookup_user(&a)) {
		status = EXIT_USAGE;
		goto out;
	}
	if (a.ignore_missing && drop_missing(&a))
		goto out;
	/* Before anything is changed: a kernel without the conversion is the user's to know. */
	if (a.tsc2nsec && (r = rec_tsc2nsec(&a.tsc_mult, &a.tsc_shift))) {
		tr_report(r, "cannot record with --tsc2nsec");
		goto out;
	}
	if (a.net)
		goto record;
	/* An output we cannot write fails before tracefs is touched. */
	rec_paths_decide(&paths, a.output, a.temp_dir);
	if (rec_paths_open(&paths)) {
		tr_report(-EIO, "cannot write the output");
		goto out;
	}
	if (a.b.nguests) {
		rg = guests_opts(a.b.guests, a.b.nguests, paths.tmp_dir, a.rn.psk_file, a.tsync_ms,
				 net_trace_id());
		if ((r = live_guests_files(rg, a.b.nguests, paths.output))) {
			tr_report(r, "cannot write the guests' files");
			goto out;
		}
	}
record:
	/* Only a person at a terminal wants it; logs and pipes get the summary alone. */
	status_line = !a.quiet && isatty(STDERR_FILENO);
	/* The first buffer is the session's own; the others (-B ... -B ...) go beside it. */
	more = xcalloc(a.b.ndone, sizeof(*more));
	r = cmd_instance_open(a.b.done[0].name, true, &in);
	for (size_t i = 1; !r && i < a.b.ndone; i++) {
		more[i - 1] = (struct session_buf){ .setup = &a.b.done[i].setup,
						    .events = &a.b.done[i].ev.list };
		r = cmd_instance_open(a.b.done[i].name, true, &more[i - 1].inst);
	}
	if (r ||
	    live_record(&(struct live_record_opts){ .inst = in, .setup = &a.b.done[0].setup,
						  .events = &a.b.done[0].ev.list,
						  .more = more, .nmore = a.b.ndone - 1,
						  .follow = a.run.follow,
						  .no_filter = a.run.no_filter, .command = a.command,
						  .duration_ns = a.run.duration_ns, .fd = paths.fd,
						  .tmp_dir = paths.tmp_dir, .idle_ms = a.idle_ms,
						  .poll_only = a.poll, .rt_prio = a.rt_prio,
						  .keep_at_end = a.keep, .run_user = a.user,
						  .run_uid = a.uid, .run_gid = a.gid,
						  .output = paths.output,
						  .spool_dir = paths.spool, .flush_ms = a.flush_ms,
						  .max_size = a.max_size, .rotate = a.rotate,
						  .net = a.net ? &a.rn : NULL,
						  .file_flags = flags,
						  .ts_offset = a.ts_offset,
						  .tsc_mult = a.tsc_mult, .tsc_shift = a.tsc_shift,
						  .guests = rg, .nguests = a.b.nguests,
						  .trace_id = rg ? rg[0].net.trace_id : 0,
						  .progress = status_line ? live_status_draw : NULL,
						  .progress_arg = &st },
		       &res)) {
		live_status_erase(&st);
		/* One line: what failed, and where the recording is (a failing disk, EIO). */
		if (res.spool_kept && tr_failure())
			tr_error("%s; what was recorded is kept in '%s': 'tr restore %s' writes it",
				 tr_failure(), paths.spool, paths.output);
		else
			tr_report(-EIO, "cannot record");
		/* Nothing was recorded: leave no empty file behind. */
		if (!res.sum.cpu && !res.latency)
			rec_paths_discard(&paths);
		goto out;
	}
	live_status_erase(&st);
	status = finish(&a, &paths, &res);
	if (!guests_report(a.b.guests, rg, a.b.nguests, a.quiet) && status == EXIT_OK)
		status = EXIT_RUNTIME;
	/* -k: what the recording set up outlives it, until tr reset. */
	if (a.keep && tfs_keep()) {
		tr_report(-EIO, "cannot keep the set-up");
		status = EXIT_RUNTIME;
	}
out:
	if (rec_paths_close(&paths) && !status) {
		tr_report(-EIO, "cannot write the output");
		status = EXIT_RUNTIME;
	}
	live_guests_close(rg, a.b.nguests, status != EXIT_OK && !res.sum.cpu);
	guests_free(a.b.guests, a.b.nguests);
	rec_paths_free(&paths);
	free(more);
	free((char *)a.rn.host);
	rec_summary_free(&res.sum);
	bufs_free(&a.b);
	return status;
}
