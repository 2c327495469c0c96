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
#include "probe.h"
#include "rec.h"
#include "setup.h"
#include "tfs.h"
#include "trigger.h"

struct args {
	struct opt_instance inst;
	struct opt_events ev;
	struct tr_setup setup;
	const char *output;
	struct strv pids;
	bool children, follow, quiet, no_filter, fail_on_loss;
	uint64_t duration_ns;
	char **command;
};

enum { OPT_DURATION = 0x100, OPT_NO_FILTER, OPT_FAIL_ON_LOSS, OPT_FOLLOW };

static const struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "Write the trace to FILE (default trace.dat)", 0 },
	{ "pid", 'P', "PID", 0, "Trace only this process (set_event_pid). Repeatable", 0 },
	{ "children", 'c', NULL, 0, "Follow the traced processes' children (event-fork)", 0 },
	{ "follow", OPT_FOLLOW, NULL, 0, "Trace only COMMAND (and with -c, its children)", 0 },
	/* -F is the print filter of report and stream (tr.1, OPTION LETTERS). */
	{ NULL, 'F', NULL, OPTION_HIDDEN, NULL, 0 },
	{ "duration", OPT_DURATION, "TIME", 0, "Stop after TIME (250ms, 10s, 2m)", 0 },
	{ "quiet", 'q', NULL, 0, "Print no summary", 0 },
	{ "no-filter", OPT_NO_FILTER, NULL, 0, "Also record the recorder's own events", 0 },
	{ "fail-on-loss", OPT_FAIL_ON_LOSS, NULL, 0, "Exit with 1 if any event was lost", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	int pid;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->inst;
		state->child_inputs[1] = &a->ev;
		state->child_inputs[2] = &a->setup;
		return 0;
	case 'o':
		if (!*arg)
			argp_error(state, "empty output file name");
		a->output = arg;
		return 0;
	case 'P':
		if (parse_int(arg, 1, 1 << 22, &pid))
			argp_error(state, "bad pid '%s'", arg);
		strv_push(&a->pids, arg);
		return 0;
	case 'c':
		a->children = true;
		return 0;
	case OPT_FOLLOW:
		a->follow = true;
		return 0;
	case 'F':
		argp_error(state, "-F filters what report and stream print; to trace only COMMAND "
				  "use --follow (trace-cmd record's -F)");
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case OPT_DURATION:
		if (parse_duration(arg, &a->duration_ns) || !a->duration_ns)
			argp_error(state, "bad duration '%s'", arg);
		return 0;
	case OPT_NO_FILTER:
		a->no_filter = true;
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
		if (a->follow && !a->command)
			argp_error(state, "--follow needs a COMMAND to follow");
		if (a->follow && a->pids.n)
			argp_error(state, "--follow and -P exclude each other");
		if (a->children && !a->follow && !a->pids.n)
			argp_error(state, "-c goes with -P or --follow");
		if (!a->ev.list.n && !a->setup.tracer)
			argp_error(state, "nothing to record: give events with -e or a tracer with -p");
		if (rec_latency_tracer(a->setup.tracer) && a->inst.name)
			argp_error(state, "latency tracer '%s' works in the top-level buffer only, "
					  "not with -B", a->setup.tracer);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, "[COMMAND [ARGS...]]",
	"Record events into a trace.dat file (trace-cmd's format) while COMMAND runs, "
	"for --duration, or until interrupted.\v"
	"Events of the ftrace system (ftrace:print, the trace_marker writes) are always "
	"in the buffer and need no enabling.  The file opens with 'trace-cmd report' and "
	"KernelShark.",
	opt_session_children, NULL, NULL
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Wait for the command, the duration, a signal, or a reader error.
 * Returns true when the command has exited (and was reaped).
 */
static bool wait_done(struct rec *rec, pid_t child, uint64_t duration_ns)
{
	uint64_t end = duration_ns ? now_ns() + duration_ns : 0;

	while (!tr_stop) {
		/* Without readers (a latency tracer) poll() just sleeps: fd -1 is ignored. */
		struct pollfd p = { .fd = rec ? rec_event_fd(rec) : -1, .events = POLLIN };
		int ms = 100;

		if (child > 0 && waitpid(child, NULL, WNOHANG) == child)
			return true;
		if (end) {
			uint64_t t = now_ns();

			if (t >= end)
				return false;
			if ((end - t) / 1000000 < (uint64_t)ms)
				ms = (end - t) / 1000000 + 1;
		}
		if (child > 0 && ms > 20)
			ms = 20;
		if (poll(&p, 1, ms) > 0)
			return false;
	}
	return false;
}

/*
 * Recording ended before the command did (a signal, --duration, a full
 * disk): pass it the signal (SIGTERM otherwise) and give it a moment, so
 * that it neither writes on into a stopped buffer nor holds the instance
 * open while it is removed.
 */
static void end_child(pid_t child)
{
	kill(child, tr_stop_signal ? tr_stop_signal : SIGTERM);
	for (int i = 0; i < 200; i++) {
		struct timespec ts = { 0, 10000000 };

		if (waitpid(child, NULL, WNOHANG) == child)
			return;
		nanosleep(&ts, NULL);
	}
	tr_warn("'%d' did not exit: it runs on without tracing", (int)child);
}

static int set_pids(struct tfs_inst *in, const struct args *a, pid_t child)
{
	char *list = NULL;
	bool function = a->setup.tracer && !strncmp(a->setup.tracer, "function", 8);
	int r;

	if (a->follow) {
		list = xasprintf("%d", (int)child);
	} else {
		for (size_t i = 0; i < a->pids.n; i++) {
			char *n = xasprintf("%s%s%s", list ? list : "", list ? " " : "", a->pids.v[i]);

			free(list);
			list = n;
		}
	}
	if (!list)
		return 0;
	r = tfs_set(in, "set_event_pid", list);
	if (r)
		r = tr_fail(r, "cannot set set_event_pid to '%s': %s", list, strerror(-r));
	if (!r && a->children) {
		r = tfs_set(in, "options/event-fork", "1");
		if (r)
			r = tr_fail(r, "cannot set option event-fork: %s", strerror(-r));
	}
	if (!r && function) {
		/* Some hosts refuse the function pid filter: say so, keep going. */
		if (tfs_set(in, "set_ftrace_pid", list))
			tr_warn("set_ftrace_pid refused (%s): the function tracer records every pid",
				tr_detail() ? tr_detail() : "not permitted");
		else if (a->children && tfs_set(in, "options/function-fork", "1"))
			tr_warn("option function-fork refused: function tracing will not follow "
				"children");
	}
	free(list);
	return r;
}

/* Is one of the session's triggers a snapshot? */
static bool has_snapshot_trigger(const struct tr_setup *s)
{
	bool found = false;

	for (size_t i = 0; i < s->triggers.n && !found; i++) {
		char *sys, *ev, *text;
		struct trig t;

		if (trig_split_event(s->triggers.v[i], &sys, &ev, &text))
			continue;
		if (!trig_parse(text, &t)) {
			found = !strcmp(t.cmd, "snapshot");
			trig_free(&t);
		}
		free(sys);
		free(ev);
		free(text);
	}
	return found;
}

/* Drain the snapshot buffer into a second file-sink recorder (NULL on failure). */
static struct rec *read_snapshot(struct tfs_inst *in, const char *dir)
{
	struct rec *snap = NULL;
	int r = rec_open(&(struct rec_opts){ .inst = in, .tmp_dir = dir, .snapshot = true,
					     .drain = true }, &snap);

	if (r) {
		tr_warn("cannot read the snapshot buffer: %s", tr_failure());
		return NULL;
	}
	rec_start(snap);
	r = rec_stop(snap);
	if (r)
		tr_warn("the snapshot buffer was not read whole: %s", strerror(-r));
	return snap;
}

static char *dir_of(const char *path)
{
	char *copy = xstrdup(path), *d = xstrdup(dirname(copy));

	free(copy);
	return d;
}

int cmd_record(int argc, char **argv)
{
	struct args a = { 0 };
	struct evsel_list enable = { 0 };
	struct rec_kstats *before = NULL;
	struct rec_summary sum = { 0 };
	struct rec *rec = NULL, *snap = NULL;
	struct tfs_inst *in;
	struct tr_setup setup;
	char *dir = NULL;
	pid_t own[1024], child = 0;
	size_t nown = 0;
	int fd = -1, go = -1, r, status = EXIT_RUNTIME;
	bool latency;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	if (!a.output)
		a.output = "trace.dat";
	latency = rec_latency_tracer(a.setup.tracer);

	if (a.command && !rec_runnable(a.command[0])) {
		tr_error("cannot run '%s': command not found", a.command[0]);
		goto out;
	}
	/* An output we cannot write fails before tracefs is touched. */
	fd = open(a.output, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		tr_error("cannot write '%s': %s", a.output, strerror(errno));
		goto out;
	}
	dir = dir_of(a.output);
	if (cmd_instance_open(a.inst.name, true, &in))
		goto fail;

	/*
	 * The tracer and what goes with it first: the kernel refuses to change
	 * current_tracer while trace_pipe_raw files are open (EBUSY).  Events
	 * and triggers come once the readers exist, so that the events'
	 * filters can leave the readers' own pids out.
	 */
	setup = a.setup;
	setup.events = NULL;
	setup.triggers = (struct strv){ 0 };
	if (setup_apply(in, &setup))
		goto fail;
	if (!latency &&
	    rec_open(&(struct rec_opts){ .inst = in, .tmp_dir = dir, .wake_percent = 5 }, &rec))
		goto fail;
	if (!a.no_filter && !a.pids.n && !a.follow) {
		own[nown++] = getpid();
		if (rec)
			nown += rec_tids(rec, own + nown, ARRAY_SIZE(own) - nown);
	}
	if (rec_events_to_enable(&a.ev.list, own, nown, &enable))
		goto fail;
	if (a.command) {
		child = rec_spawn(a.command, &go);
		if (child < 0) {
			tr_error("cannot start '%s': %s", a.command[0], strerror((int)-child));
			child = 0;
			goto out;
		}
	}

	setup = (struct tr_setup){ .events = &enable, .triggers = a.setup.triggers };
	r = setup_apply(in, &setup);
	if (!r)
		r = set_pids(in, &a, child);
	/* Start from an empty buffer, as trace-cmd does. */
	/*
	 * Note that tracing_max_latency is a result, not a setting: it is left
	 * as the recording ends, matching the max buffer (cleared below), as
	 * trace-cmd leaves it.
	 */
	if (!r && latency && (r = tfs_write(in, "tracing_max_latency", "0", false)))
		tr_fail(r, "cannot reset tracing_max_latency: %s", strerror(-r));
	/* For a latency tracer this clears the max buffer, which trace shows. */
	if (!r && (r = tfs_write(in, "trace", "", false)))
		tr_fail(r, "cannot clear the ring buffer: %s", strerror(-r));
	if (!r && rec)
		rec_stats_snapshot(in, rec_ncpus(rec), &before);
	if (!r && rec)
		r = rec_start(rec);
	if (!r && (r = tfs_set(in, "tracing_on", "1")))
		tr_fail(r, "cannot turn tracing on: %s", strerror(-r));
	if (r)
		goto fail;
	if (go >= 0) {
		if (write(go, "g", 1) != 1)
			tr_warn("cannot start '%s': %s", a.command[0], strerror(errno));
		close(go);
		go = -1;
	}

	if (!wait_done(rec, child, a.duration_ns) && child > 0)
		end_child(child);

	r = tfs_set(in, "tracing_on", "0");
	if (r)
		tr_warn("cannot turn tracing off: %s", strerror(-r));
	if (latency) {
		uint64_t max_us, bytes;

		if (rec_write_latency(fd, in, &max_us, &bytes))
			goto fail;
		if (!a.quiet)
			rec_latency_print(stderr, a.setup.tracer, max_us, bytes, a.output);
		status = EXIT_OK;
		goto out;
	}
	r = rec_stop(rec);
	if (r == -ENOSPC)
		tr_warn("no space left on the file system of '%s': recording stopped early",
			a.output);
	else if (r)
		tr_warn("a reader stopped early: %s", strerror(-r));
	if (has_snapshot_trigger(&a.setup))
		snap = read_snapshot(in, dir);
	if (rec_write_file(rec, fd, in, NULL, before, 0, snap, &sum))
		goto fail;
	if (!a.quiet)
		rec_summary_print(stderr, &sum, a.output);
	if (sum.dropped_kallsyms)
		tr_warn("no room for kernel symbols in '%s': addresses will not be named",
			a.output);
	if (sum.dropped_cmdlines)
		tr_warn("no room for the saved command names in '%s'", a.output);
	if (sum.dropped_bytes)
		tr_warn("no room for %llu bytes of events: the newest were left out",
			(unsigned long long)sum.dropped_bytes);
	status = r ? EXIT_RUNTIME : EXIT_OK;
	if (!status && a.fail_on_loss && sum.total.lost) {
		tr_error("%llu events were lost", (unsigned long long)sum.total.lost);
		status = EXIT_RUNTIME;
	}
	goto out;
fail:
	tr_report(-EIO, "cannot record");
	/* Nothing was recorded: leave no empty file behind. */
	if (fd >= 0 && !sum.cpu)
		unlink(a.output);
out:
	if (go >= 0) {
		close(go);	/* the command dies unstarted */
		waitpid(child, NULL, 0);
	}
	rec_free(rec);
	rec_free(snap);
	if (fd >= 0 && close(fd) && !status) {
		tr_error("cannot write '%s': %s", a.output, strerror(errno));
		status = EXIT_RUNTIME;
	}
	free(before);
	free(dir);
	rec_summary_free(&sum);
	evsel_list_free(&enable);
	evsel_list_free(&a.ev.list);
	strv_free(&a.pids);
	setup_free(&a.setup);
	return status;
}
