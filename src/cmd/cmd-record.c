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
 * all end up in one file (record-buffers.c opens them).  Where the file,
 * its temporary data and its spool go is the recorder's to say
 * (rec-paths.h); the live layer opens and closes them, and the guests'
 * files (live_record_files_open()).  -N, -V and -A are record-guests.c's.
 *
 * The parse switch stores; check_record() checks the whole line at its end.
 */
#include <errno.h>
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
#include "setup.h"
#include "tfs.h"
#include "record-buffers.h"
#include "record-local.h"

struct args {
	/*
	 * What the recorder is told, filled as the line is read: the readers,
	 * --user, the spool's flushes, --max-size and --rotate, the file's
	 * options; the buffers, files and guests at the start of cmd_record().
	 */
	struct live_record_opts o;
	struct record_bufs b;	/* -B buffers and -A guests (record-buffers.h) */
	const char *instance;	/* --instance: the whole command in one instance */
	bool ignore_missing;
	bool date, has_ts_offset;	/* --date, --ts-offset */
	bool tsc2nsec;
	const char *temp_dir;
	const char *output;
	bool quiet, verbose, fail_on_loss;
	bool daemonize;
	const char *pidfile;		/* --pidfile, for --daemonize */
	struct opt_run run;
	struct opt_file_format ff;
	struct record_remote remote;	/* -N, -V, -A and theirs (record-local.h) */
};

/* As trace-cmd's /var/run/trace-cmd-record.pid. */
#define DEFAULT_PIDFILE "/run/tr-record.pid"

enum { OPT_FAIL_ON_LOSS = 0x100, OPT_INSTANCE, OPT_POLL, OPT_TEMP, OPT_MODULE, OPT_USER,
       OPT_FLUSH_INTERVAL, OPT_MAX_SIZE, OPT_ROTATE, OPT_PROFILE, OPT_DATE, OPT_TS_OFFSET,
       OPT_TSC2NSEC, OPT_DAEMONIZE, OPT_PIDFILE };

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
	{ "keep-settings", 'K', NULL, 0, "Record with what is set now (trace-cmd's -K): the "
	  "buffers are not cleared first (what they hold is recorded too), and a buffer "
	  "without -e or -p records the events and tracer already set in it", 0 },
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
	{ "daemonize", OPT_DAEMONIZE, NULL, 0, "Record in the background: return once tracing "
	  "is on, and record until SIGINT or SIGTERM (or --duration); no COMMAND", 0 },
	{ "pidfile", OPT_PIDFILE, "FILE", 0, "With --daemonize: the file that holds the "
	  "recording's pid (default " DEFAULT_PIDFILE ")", 0 },
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

/* -N and -V: a listener gets one buffer's pages, and nothing stays here. */
static void check_net(struct argp_state *state, const struct args *a)
{
	if (!a->remote.net)
		return;
	if (a->output)
		argp_error(state, "-N and -V send the recording to a listener: no -o");
	if (a->b.ndone > 1)
		argp_error(state, "-N and -V send one buffer, as trace-cmd does: no second -B");
	if (a->temp_dir || a->o.max_size || a->o.flush_ms)
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
	if (a->remote.nnet > 1)
		argp_error(state, "-N and -V name one listener: give one");
	if (a->date && a->has_ts_offset)
		argp_error(state, "--date and --ts-offset exclude each other");
	bufs_end(state, &a->b, a->instance);
	opt_check_follow(state, a->run.follow, a->o.command, &a->b.done[0].setup);
	for (size_t i = 0; i < a->b.ndone; i++)
		if (a->b.done[i].module && !a->b.done[i].setup.tracer)
			argp_error(state, "--module filters the functions a function tracer "
					  "traces: give one with -p (function, function_graph)");
	if (a->o.run_user && !a->o.command)
		argp_error(state, "--user says who runs COMMAND: give one");
	remote_check(state, &a->b, &a->remote);
	if (a->tsc2nsec)
		check_tsc2nsec(state, a);
	if (a->o.rotate && !a->o.max_size)
		argp_error(state, "--rotate says how many parts of --max-size to keep: "
				  "give --max-size");
	check_net(state, a);
	if (a->pidfile && !a->daemonize)
		argp_error(state, "--pidfile names the pid of a --daemonize recording: give "
				  "--daemonize");
	if (a->daemonize && a->o.command)
		argp_error(state, "--daemonize records until SIGINT or SIGTERM (or --duration): "
				  "no COMMAND");
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
		a->o.keep_at_end = true;
		return 0;
	case 'K':
		a->o.keep_buffer = true;
		a->b.as_set = true;
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
		if (parse_i64(arg, &a->o.ts_offset))
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
		if (parse_int(arg, 1, 99, &a->o.rt_prio))
			argp_error(state, "bad real-time priority '%s' (1 to 99)", arg);
		return 0;
	case 's': {
		int us;

		if (parse_int(arg, 1, 60000000, &us))
			argp_error(state, "bad sleep '%s' (microseconds, 1 to 60000000)", arg);
		/* The readers wait in poll(), to the millisecond. */
		a->o.idle_ms = us < 1000 ? 1 : (unsigned)(us / 1000);
		return 0;
	}
	case OPT_POLL:
		a->o.poll_only = true;
		return 0;
	case OPT_TEMP:
		if (!*arg)
			argp_error(state, "empty temporary directory name");
		a->temp_dir = arg;
		return 0;
	case OPT_USER:
		if (!*arg)
			argp_error(state, "empty user name");
		a->o.run_user = arg;
		return 0;
	case OPT_MAX_SIZE:
		if (parse_size(arg, &a->o.max_size) || !a->o.max_size)
			argp_error(state, "bad size '%s': give bytes with k, M or G, as 100M", arg);
		return 0;
	case OPT_ROTATE: {
		uint64_t n;

		if (parse_u64(arg, &n) || !n || n > REC_ROTATE_MAX)
			argp_error(state, "bad number of parts '%s': give 1 to %u", arg,
				   REC_ROTATE_MAX);
		a->o.rotate = (unsigned)n;
		return 0;
	}
	case OPT_DAEMONIZE:
		a->daemonize = true;
		return 0;
	case OPT_PIDFILE:
		if (!*arg)
			argp_error(state, "bad pidfile ''");
		a->pidfile = arg;
		return 0;
	case OPT_FLUSH_INTERVAL: {
		uint64_t ns;

		if (parse_duration(arg, &ns) || ns < 1000000 || ns > 3600000000000ull)
			argp_error(state, "bad flush interval '%s': give 1ms to 1h", arg);
		a->o.flush_ms = (unsigned)(ns / 1000000);
		return 0;
	}
	case ARGP_KEY_ARG:
		opt_command(state, &a->o.command);
		return 0;
	case ARGP_KEY_END:
		check_record(state, a);
		return 0;
	default:
		return remote_parse(state, &a->b, &a->remote, key, arg);
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

/* The summary and warnings (live_record_summary()); the exit status. */
static int finish(const struct args *a, const struct rec_paths *out,
		  const struct live_record_result *res)
{
	live_record_summary(&(struct live_record_say){ .quiet = a->quiet, .verbose = a->verbose,
						       .tracer = a->b.done[0].setup.tracer,
						       .output = out->output, .spool = out->spool,
						       .net = a->remote.net,
						       .rotate = a->o.rotate },
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

int cmd_record(int argc, char **argv)
{
	struct args a = { .ff.zip = -1 };
	struct live_record_result res = { 0 };
	struct live_status st = { 0 };
	struct rec_paths paths = { .fd = -1 };
	struct live_daemon daemon = { .ready_fd = -1 };
	int status = EXIT_RUNTIME, r = 0;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	/* Before anything is made: the child makes it all (daemon.c). */
	if (a.daemonize) {
		pid_t pid = 0;
		const char *pidfile = a.pidfile ? a.pidfile : DEFAULT_PIDFILE;

		/* Nothing buffered may be printed twice, by both processes. */
		fflush(stdout);
		r = live_daemon_fork(&daemon, pidfile, &pid, &status);
		if (r < 0) {
			tr_report(r, "cannot record in the background");
			status = EXIT_RUNTIME;
			goto out;
		}
		if (r == 1) {
			if (!status && !a.quiet)
				fprintf(stderr, "tr record: recording in the background as pid %d "
					"(pidfile %s): 'kill -INT %d' ends it\n", (int)pid, pidfile,
					(int)pid);
			bufs_free(&a.b);
			return status;
		}
		a.o.on_recording = live_daemon_ready;
		a.o.recording_arg = &daemon;
	}
	if (a.o.run_user && (r = live_record_user(a.o.run_user, &a.o.run_uid, &a.o.run_gid))) {
		tr_report(r, "no such user '%s'", a.o.run_user);
		status = EXIT_USAGE;
		goto out;
	}
	if (a.ignore_missing && bufs_drop_missing(&a.b))
		goto out;
	/* Before anything is changed: a kernel without the conversion is the user's to know. */
	if (a.tsc2nsec && (r = rec_tsc2nsec(&a.o.tsc_mult, &a.o.tsc_shift))) {
		tr_report(r, "cannot record with --tsc2nsec");
		goto out;
	}
	if (a.b.nguests) {
		a.o.guests = guests_opts(a.b.guests, a.b.nguests, a.remote.rn.psk_file,
					 a.remote.tsync_ms, net_trace_id());
		a.o.nguests = a.b.nguests;
		a.o.trace_id = a.o.guests[0].net.trace_id;
	}
	if (!a.remote.net && (r = live_record_files_open(&paths, a.output, a.temp_dir, &a.o))) {
		tr_report(r, "cannot write the output");
		goto out;
	}
	r = bufs_open(&a.b, &a.o);
	a.o.follow = a.run.follow;
	a.o.no_filter = a.run.no_filter;
	a.o.duration_ns = a.run.duration_ns;
	a.o.net = a.remote.net ? &a.remote.rn : NULL;
	a.o.file_flags = rec_file_flags(a.ff.version, a.ff.zip) | (a.date ? REC_FILE_DATE : 0);
	/* Only a person at a terminal wants it; logs and pipes get the summary alone. */
	if (!a.quiet && isatty(STDERR_FILENO)) {
		a.o.progress = live_status_draw;
		a.o.progress_arg = &st;
	}
	if (r || (r = live_record(&a.o, &res))) {
		live_status_erase(&st);
		tr_report(live_record_failed(&paths, &res, r), "cannot record");
		goto out;
	}
	live_status_erase(&st);
	status = finish(&a, &paths, &res);
	if (!guests_report(a.b.guests, a.o.guests, a.b.nguests, a.quiet) && status == EXIT_OK)
		status = EXIT_RUNTIME;
	/* -k: what the recording set up outlives it, until tr reset. */
	if (a.o.keep_at_end && tfs_keep()) {
		tr_report(-EIO, "cannot keep the set-up");
		status = EXIT_RUNTIME;
	}
out:
	r = live_record_files_close(&paths, a.o.guests, a.o.nguests,
				    status != EXIT_OK && !res.sum.cpu);
	if (r && !status) {
		tr_report(-EIO, "cannot write the output");
		status = EXIT_RUNTIME;
	}
	live_daemon_done(&daemon);
	guests_free(a.b.guests, a.b.nguests);
	free((char *)a.remote.rn.host);
	rec_summary_free(&res.sum);
	bufs_free(&a.b);
	return status;
}
