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
 * top level's are those before the first.  Parsing fills one struct
 * buf_args at a time in place and moves it to done[] at each -B; the
 * first buffer is the session's own, the others go beside it
 * (session_buf), and all end up in one file.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <pwd.h>
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
#include "record-local.h"

/* One buffer's options: those between its -B and the next (the top level's: before the first). */
struct buf_args {
	const char *name;	/* NULL: the top level */
	struct opt_events ev;
	struct tr_setup setup;
	bool module;		/* --module was given (it needs a function tracer) */
	const char *guest;	/* -A NAME@ADDR:PORT: these are a guest's options */
};

struct args {
	/*
	 * The buffer whose options are being read (the option groups fill
	 * ev and setup in place); at each -B they move to done[] and start
	 * empty again for the next buffer, named cur.
	 */
	const char *cur;
	struct opt_events ev;
	struct tr_setup setup;
	struct buf_args *done;
	size_t ndone;
	const char *instance;	/* --instance: the whole command in one instance */
	bool keep, ignore_missing, poll;
	bool date, has_ts_offset;	/* --date, --ts-offset */
	int64_t ts_offset;
	bool tsc2nsec;			/* --tsc2nsec, and the kernel's conversion */
	uint32_t tsc_mult, tsc_shift;
	bool module;		/* --module in the buffer being read */
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
	char *spool;		/* OUTPUT.spool: what a crash leaves (rec.h) */
	const char *net;	/* -N HOST:PORT as given */
	struct rec_net rn;
	const char *cur_guest;	/* the -A whose options are being read, or NULL */
	struct guest_args *guests;	/* taken out of done[] at the end of the line */
	size_t nguests;
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

/* Nothing but what is the whole recording's (pids, task names): no buffer of its own asked for. */
static bool setup_unused(const struct tr_setup *s)
{
	return !s->tracer && !s->clock && !s->buffer_kb && !s->options.n && !s->triggers.n &&
	       !s->ftrace_filter.n && !s->ftrace_notrace.n && !s->graph_function.n &&
	       !s->graph_notrace.n && !s->tracer_opts.n && !s->has_max_graph_depth &&
	       !s->has_thresh && !s->func_stack && !s->cpus.set;
}

/* The buffer (or guest) read so far moves to done[]; the groups fill a fresh one. */
static void push_buffer(struct args *a)
{
	a->done = xrealloc(a->done, (a->ndone + 1) * sizeof(*a->done));
	a->done[a->ndone++] = (struct buf_args){ a->cur, a->ev, a->setup, a->module, a->cur_guest };
	a->module = false;
	a->cur_guest = NULL;
	memset(&a->ev, 0, sizeof(a->ev));
	memset(&a->setup, 0, sizeof(a->setup));
}

/* The buffer read so far moves to done[]; the groups fill a fresh one for name. */
static void next_buffer(struct argp_state *state, struct args *a, const char *name)
{
	if (!tfs_inst_valid_name(name))
		argp_error(state, "bad instance name '%s'", name);
	if (a->cur && !strcmp(a->cur, name))
		argp_error(state, "instance '%s' is given twice with -B", name);
	for (size_t i = 0; i < a->ndone; i++)
		if (a->done[i].name && !strcmp(a->done[i].name, name))
			argp_error(state, "instance '%s' is given twice with -B", name);
	push_buffer(a);
	a->cur = name;
}

/* -A: what was read goes to done[]; what follows is the guest's. */
static void next_guest(struct args *a, const char *spec)
{
	push_buffer(a);
	a->cur = NULL;
	a->cur_guest = spec;
}

/*
 * At the end of the line: the last buffer joins done[]; the top level
 * goes when nothing asked for it (-B NAME first: that instance alone, as
 * before); every buffer needs events or a tracer; -P, -c, --notrace-pid
 * and --cmdlines-size, wherever they came, are every buffer's.
 */
static void check_buffers(struct argp_state *state, struct args *a)
{
	struct tr_setup all = { 0 };

	push_buffer(a);
	/* The guests' options leave done[], which is this machine's buffers. */
	for (size_t i = 0; i < a->ndone; i++) {
		struct guest_args *g;

		if (!a->done[i].guest)
			continue;
		a->guests = xrealloc(a->guests, (a->nguests + 1) * sizeof(*a->guests));
		g = memset(&a->guests[a->nguests++], 0, sizeof(*g));
		guest_spec(state, g, a->done[i].guest);
		g->ev = a->done[i].ev;
		g->setup = a->done[i].setup;
		memmove(&a->done[i], &a->done[i + 1], (a->ndone - i - 1) * sizeof(*a->done));
		a->ndone--;
		i--;
	}
	if (a->instance)
		a->done[0].name = a->instance;
	for (size_t i = 0; i < a->ndone; i++) {
		struct tr_setup *s = &a->done[i].setup;

		for (size_t k = 0; k < s->pids.n; k++)
			strv_push(&all.pids, s->pids.v[k]);
		for (size_t k = 0; k < s->notrace_pids.n; k++)
			strv_push(&all.notrace_pids, s->notrace_pids.v[k]);
		all.children |= s->children;
		if (s->cmdlines_size)
			all.cmdlines_size = s->cmdlines_size;
		opt_setup_check(state, s);
	}
	if (a->ndone > 1 && !a->done[0].ev.list.n && !a->done[0].setup.tracer) {
		if (!setup_unused(&a->done[0].setup))
			argp_error(state, "the options before the first -B set up the top-level buffer, "
					  "which records nothing: give it events with -e, or move them "
					  "after -B (--instance NAME puts everything in one instance)");
		setup_free(&a->done[0].setup);
		evsel_list_free(&a->done[0].ev.list);
		memmove(a->done, a->done + 1, --a->ndone * sizeof(*a->done));
	}
	for (size_t i = 0; i < a->ndone; i++) {
		struct buf_args *b = &a->done[i];

		if (!b->ev.list.n && !b->setup.tracer) {
			if (b->name)
				argp_error(state, "nothing to record in instance '%s': give it events "
						  "with -e or a tracer with -p after -B %s", b->name,
					   b->name);
			argp_error(state, "nothing to record: give events with -e or a tracer with -p");
		}
		if (setup_latency_tracer(b->setup.tracer) && (b->name || a->ndone > 1))
			argp_error(state, "latency tracer '%s' works in the top-level buffer only, "
					  "not with -B", b->setup.tracer);
		if (i) {
			strv_free(&b->setup.pids);
			strv_free(&b->setup.notrace_pids);
			for (size_t k = 0; k < all.pids.n; k++)
				strv_push(&b->setup.pids, all.pids.v[k]);
			for (size_t k = 0; k < all.notrace_pids.n; k++)
				strv_push(&b->setup.notrace_pids, all.notrace_pids.v[k]);
			b->setup.children = all.children;
			b->setup.cmdlines_size = 0;	/* one file for the machine: set once */
		} else {
			strv_free(&b->setup.pids);
			strv_free(&b->setup.notrace_pids);
			b->setup.pids = all.pids;
			b->setup.notrace_pids = all.notrace_pids;
			all.pids = all.notrace_pids = (struct strv){ 0 };
			b->setup.children = all.children;
			b->setup.cmdlines_size = all.cmdlines_size;
		}
	}
	setup_free(&all);
}

/*
 * --profile: the events fmt-tprof reads, in the buffer being read.  The
 * stack of a switch is wanted only where the task blocks (prev_state has
 * a state bit; 0 and 0x100 are preemptions), and a trigger with a filter
 * writes it after the event, where the profile looks for it.
 */
static void add_profile(struct argp_state *state, struct args *a)
{
	static const char *const always[] = { "sched:sched_switch", "sched:sched_wakeup",
					      "raw_syscalls:sys_enter", "raw_syscalls:sys_exit" };
	static const char *const faults[] = { "page_fault_user", "page_fault_kernel" };

	for (size_t i = 0; i < ARRAY_SIZE(always); i++)
		if (evsel_add(&a->ev.list, always[i]))
			argp_error(state, "%s", tr_failure());
	for (size_t i = 0; i < ARRAY_SIZE(faults); i++) {
		char *path = xasprintf("events/exceptions/%s", faults[i]);
		char *sel = xasprintf("exceptions:%s", faults[i]);

		if (tfs_exists(NULL, path) && evsel_add(&a->ev.list, sel))
			argp_error(state, "%s", tr_failure());
		free(path);
		free(sel);
	}
	strv_push(&a->setup.triggers, "sched:sched_switch:stacktrace if prev_state & 255");
}

/*
 * --tsc2nsec: every buffer records with x86-tsc.  -N carries the option to
 * the listener's file; -A's guests have clocks of their own.
 */
static void check_tsc2nsec(struct argp_state *state, struct args *a)
{
	if (a->nguests)
		argp_error(state, "--tsc2nsec goes with the host alone: no -A");
	for (size_t i = 0; i < a->ndone; i++) {
		struct tr_setup *s = &a->done[i].setup;

		if (s->clock && strcmp(s->clock, "x86-tsc"))
			argp_error(state, "--tsc2nsec records with the x86-tsc clock: no -C %s",
				   s->clock);
		s->clock = "x86-tsc";
	}
}

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, NULL, &a->ev, &a->setup);
		opt_bind_file_format(state, &a->ff);
		opt_bind_run(state, &a->run);
		return 0;
	case 'B':
		if (a->instance)
			argp_error(state, "-B and --instance exclude each other");
		next_buffer(state, a, arg);
		return 0;
	case 'A': {
		struct guest_args g = { 0 };

		/* Said now, not at the end of the line. */
		guest_spec(state, &g, arg);
		free(g.name);
		free(g.host);
		next_guest(a, arg);
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
		if (a->ndone)
			argp_error(state, "-B and --instance exclude each other");
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
	case 'N': {
		char *host;

		if (a->net)
			argp_error(state, "-N and -V name one listener: give one");
		if (net_hostport_parse(arg, &host, &a->rn.port))
			argp_error(state, "%s", tr_failure());
		a->net = arg;
		a->rn.host = host;
		return 0;
	}
	case 'V': {
		uint32_t cid;

		if (a->net)
			argp_error(state, "-N and -V name one listener: give one");
		if (net_vsock_parse(arg, &cid, &a->rn.port))
			argp_error(state, "%s", tr_failure());
		a->net = arg;
		a->rn.host = xasprintf("%u", cid);
		a->rn.vsock = true;
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
	case 'k':
		a->keep = true;
		return 0;
	case 'i':
		a->ignore_missing = true;
		return 0;
	case 'T':
		/* The buffer's option, as -O stacktrace: it follows -B. */
		strv_push(&a->setup.options, "stacktrace");
		return 0;
	case OPT_PROFILE:
		add_profile(state, a);
		return 0;
	case OPT_DATE:
		if (a->has_ts_offset)
			argp_error(state, "--date and --ts-offset exclude each other");
		a->date = true;
		return 0;
	case OPT_TSC2NSEC:
		a->tsc2nsec = true;
		return 0;
	case OPT_TS_OFFSET:
		if (a->date)
			argp_error(state, "--date and --ts-offset exclude each other");
		if (parse_i64(arg, &a->ts_offset))
			argp_error(state, "bad time offset '%s' (nanoseconds, e.g. -1500000)", arg);
		a->has_ts_offset = true;
		return 0;
	case OPT_MODULE: {
		char *f;

		if (!*arg || strpbrk(arg, ":/ \t*?["))
			argp_error(state, "bad module name '%s'", arg);
		f = xasprintf("*:mod:%s", arg);
		strv_push(&a->setup.ftrace_filter, f);
		free(f);
		a->module = true;
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
		/* COMMAND and everything after it are the command's. */
		a->command = &state->argv[state->next - 1];
		state->next = state->argc;
		return 0;
	case ARGP_KEY_END:
		check_buffers(state, a);
		opt_check_follow(state, a->run.follow, a->command, &a->done[0].setup);
		for (size_t i = 0; i < a->ndone; i++)
			if (a->done[i].module && !a->done[i].setup.tracer)
				argp_error(state, "--module filters the functions a function tracer "
						  "traces: give one with -p (function, function_graph)");
		if (a->user && !a->command)
			argp_error(state, "--user says who runs COMMAND: give one");
		if (a->rn.psk_file && !a->net && !a->nguests)
			argp_error(state, "--psk goes with -N, -V or -A");
		if (a->has_tsync && !a->nguests)
			argp_error(state, "--tsync-interval goes with -A");
		if (a->nguests && (a->net || setup_latency_tracer(a->done[0].setup.tracer)))
			argp_error(state, "-A records into files here: no -N or -V, no latency tracer");
		if (a->nguests) {
			struct tr_setup **host = xcalloc(a->ndone, sizeof(*host));

			for (size_t i = 0; i < a->ndone; i++)
				host[i] = &a->done[i].setup;
			guests_check(state, a->guests, a->nguests, &a->done[0].ev.list, host,
				     a->ndone);
			free(host);
		}
		if (a->net && a->output)
			argp_error(state, "-N and -V send the recording to a listener: no -o");
		if (a->net && a->ndone > 1)
			argp_error(state, "-N and -V send one buffer, as trace-cmd does: no second -B");
		if (a->tsc2nsec)
			check_tsc2nsec(state, a);
		if (a->rotate && !a->max_size)
			argp_error(state, "--rotate says how many parts of --max-size to keep: "
					  "give --max-size");
		if (a->net && (a->temp_dir || a->max_size || a->flush_ms))
			argp_error(state, "-N and -V keep nothing on this machine: no --temp, "
					  "--max-size or --flush-interval");
		if (a->net && (setup_latency_tracer(a->done[0].setup.tracer) || a->ff.version ||
			       a->ff.zip >= 0))
			argp_error(state, "-N and -V send the ring buffer's pages as trace-cmd "
					  "does: no latency tracer, --file-version or --compression "
					  "(the listener chooses)");
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

static char *dir_of(const char *path)
{
	char *copy = xstrdup(path), *d = xstrdup(dirname(copy));

	free(copy);
	return d;
}

/* The summary and warnings on stderr; the exit status. */
static int finish(const struct args *a, const struct live_record_result *res)
{
	const struct rec_summary *sum = &res->sum;

	if (res->latency) {
		if (!a->quiet)
			rec_latency_print(stderr, a->done[0].setup.tracer, res->max_us, res->latency_bytes,
					  a->output);
		return EXIT_OK;
	}
	if (res->failure[0])
		tr_error("%s: recording stopped early", res->failure);
	else if (res->reader_err == -ENOSPC)
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
	if (res->rotations && !a->quiet)
		fprintf(stderr, "rotated %llu times at --max-size: the earlier parts are '%s.1' "
			"(newest) to '%s.%u'\n", (unsigned long long)res->rotations, a->output,
			a->output, res->rotations < a->rotate ? (unsigned)res->rotations : a->rotate);
	if (res->max_size_reached && !a->quiet)
		fprintf(stderr, "stopped at --max-size: '%s' would have grown past it\n", a->output);
	if (res->spool_kept)
		tr_warn("what was recorded is kept in '%s': 'tr restore %s' writes it", a->spool,
			a->output);
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
static void status_draw(void *arg, const struct live_progress *p)
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
	unsigned date = a->date ? REC_FILE_DATE : 0;

	if (a->ff.version == 6)
		return date;
	return REC_FILE_V7 | REC_ZIP(a->ff.zip < 0 ? TFW_ZIP_ZSTD : a->ff.zip) | date;
}

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
	for (size_t i = 0; !r && i < a->ndone; i++) {
		struct evsel_list *l = &a->done[i].ev.list, kept = { 0 };

		for (size_t k = 0; k < l->n; k++) {
			const struct evsel *e = &l->v[k];
			struct evsel_list one = { 0 };
			struct evmatch *m = NULL;
			size_t n = 0;
			bool ftrace = e->system && !strcmp(e->system, "ftrace");

			evsel_add(&one, e->spec);
			if (!ftrace && evsel_resolve(&one, &avail, &m, &n) == -ENOENT) {
				tr_warn("no such event '%s': left out (-i)", e->spec);
			} else {
				evsel_add(&kept, e->spec);
				if (e->filter)
					evsel_add_filter(&kept, e->filter);
			}
			evmatch_free(m, n);
			evsel_list_free(&one);
		}
		evsel_list_free(l);
		*l = kept;
		if (!l->n && !a->done[i].setup.tracer) {
			tr_error("none of the events asked for %s%s%s exists: nothing to record",
				 a->done[i].name ? "in instance '" : "",
				 a->done[i].name ? a->done[i].name : "", a->done[i].name ? "'" : "");
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
	struct status st = { 0 };
	bool status_line, created = false;
	struct tfs_inst *in = NULL;
	struct session_buf *more = NULL;
	struct live_guest *rg = NULL;
	char *dir = NULL;
	int fd = -1, status = EXIT_RUNTIME, r = 0;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
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
	if (!a.output)
		a.output = "trace.dat";
	/*
	 * An output we cannot write fails before tracefs is touched.  An old
	 * file is emptied only when the recording starts (live_record()): a
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
	dir = a.temp_dir ? xstrdup(a.temp_dir) : dir_of(a.output);
	/* With --temp the spool goes there too: it is where the per-CPU data lives. */
	if (a.temp_dir) {
		const char *base = strrchr(a.output, '/');

		a.spool = xasprintf("%s/%s.spool", a.temp_dir, base ? base + 1 : a.output);
	} else {
		a.spool = rec_spool_path(a.output);
	}
	if (a.nguests) {
		rg = xcalloc(a.nguests, sizeof(*rg));
		for (size_t i = 0; i < a.nguests; i++)
			rg[i].fd = -1;
		if (guests_open(a.guests, a.nguests, a.output, dir, a.rn.psk_file, a.tsync_ms,
				net_trace_id(), rg))
			goto out;
	}
record:
	/* Only a person at a terminal wants it; logs and pipes get the summary alone. */
	status_line = !a.quiet && isatty(STDERR_FILENO);
	/* The first buffer is the session's own; the others (-B ... -B ...) go beside it. */
	more = xcalloc(a.ndone, sizeof(*more));
	r = cmd_instance_open(a.done[0].name, true, &in);
	for (size_t i = 1; !r && i < a.ndone; i++) {
		more[i - 1] = (struct session_buf){ .setup = &a.done[i].setup,
						    .events = &a.done[i].ev.list };
		r = cmd_instance_open(a.done[i].name, true, &more[i - 1].inst);
	}
	if (r ||
	    live_record(&(struct live_record_opts){ .inst = in, .setup = &a.done[0].setup,
						  .events = &a.done[0].ev.list,
						  .more = more, .nmore = a.ndone - 1,
						  .follow = a.run.follow,
						  .no_filter = a.run.no_filter, .command = a.command,
						  .duration_ns = a.run.duration_ns, .fd = fd,
						  .tmp_dir = dir, .idle_ms = a.idle_ms,
						  .poll_only = a.poll, .rt_prio = a.rt_prio,
						  .keep_at_end = a.keep, .run_user = a.user,
						  .run_uid = a.uid, .run_gid = a.gid,
						  .output = a.output,
						  .spool_dir = a.spool, .flush_ms = a.flush_ms,
						  .max_size = a.max_size, .rotate = a.rotate,
						  .net = a.net ? &a.rn : NULL,
						  .file_flags = file_flags(&a),
						  .ts_offset = a.ts_offset,
						  .tsc_mult = a.tsc_mult, .tsc_shift = a.tsc_shift,
						  .guests = rg, .nguests = a.nguests,
						  .trace_id = rg ? rg[0].net.trace_id : 0,
						  .progress = status_line ? status_draw : NULL,
						  .progress_arg = &st },
		       &res)) {
		status_erase(&st);
		/* One line: what failed, and where the recording is (a failing disk, EIO). */
		if (res.spool_kept && tr_failure())
			tr_error("%s; what was recorded is kept in '%s': 'tr restore %s' writes it",
				 tr_failure(), a.spool, a.output);
		else
			tr_report(-EIO, "cannot record");
		/* Nothing was recorded: leave no empty file behind. */
		if (created && !res.sum.cpu && !res.latency && !a.net)
			unlink(a.output);
		goto out;
	}
	status_erase(&st);
	status = finish(&a, &res);
	if (!guests_report(a.guests, rg, a.nguests, a.quiet) && status == EXIT_OK)
		status = EXIT_RUNTIME;
	/* -k: what the recording set up outlives it, until tr reset. */
	if (a.keep && tfs_keep()) {
		tr_report(-EIO, "cannot keep the set-up");
		status = EXIT_RUNTIME;
	}
out:
	if (fd >= 0 && close(fd) && !status) {
		tr_error("cannot write '%s': %s", a.output, strerror(errno));
		status = EXIT_RUNTIME;
	}
	guests_free(a.guests, rg, a.nguests, status != EXIT_OK && !res.sum.cpu);
	free(dir);
	free(more);
	free(a.spool);
	free((char *)a.rn.host);
	rec_summary_free(&res.sum);
	for (size_t i = 0; i < a.ndone; i++) {
		evsel_list_free(&a.done[i].ev.list);
		setup_free(&a.done[i].setup);
	}
	free(a.done);
	return status;
}
