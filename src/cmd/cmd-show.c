// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr show: print the trace file, or --pipe to follow trace_pipe (with -e,
 * enabling those events only while it runs), --snapshot, --cpu N for one
 * CPU's buffer, or any one control file of the instance by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "parse.h"
#include "caps.h"
#include "evsel.h"
#include "session.h"
#include "setup.h"
#include "tfs.h"

struct args {
	struct opt_instance inst;
	struct opt_events ev;
	bool pipe, snapshot;
	int cpu;
	const char *file;
	const char *event_file;	/* --hist, --trigger: "hist" or "trigger" of event */
	const char *event;
};

enum { OPT_PIPE = 0x100, OPT_SNAPSHOT, OPT_CPU, OPT_HIST, OPT_TRIGGER, OPT_NAMED = 0x200 };

/* The files of trace-cmd show's names (--buffer_size and the rest), by OPT_NAMED + index. */
static const char *const named[] = {
	"tracing_on", "current_tracer", "buffer_size_kb", "buffer_total_size_kb",
	"buffer_subbuf_size_kb", "buffer_percent", "set_ftrace_filter", "set_ftrace_notrace",
	"set_ftrace_pid", "set_graph_function", "set_graph_notrace", "tracing_cpumask",
	"tracing_max_latency",
};

static const struct argp_option options[] = {
	{ "pipe", OPT_PIPE, NULL, 0, "Follow trace_pipe (consuming) until interrupted", 0 },
	{ "snapshot", OPT_SNAPSHOT, NULL, 0, "Print the snapshot buffer", 0 },
	{ "cpu", OPT_CPU, "N", 0, "Only CPU N's buffer", 0 },
	{ 0, 0, 0, 0, "Control files by trace-cmd show's names (each also with dashes):", 1 },
	{ "hist", OPT_HIST, "EVENT", 0, "The event's hist file (SYSTEM:EVENT, or EVENT)", 1 },
	{ "trigger", OPT_TRIGGER, "EVENT", 0, "The event's trigger file", 1 },
	{ "tracing_on", OPT_NAMED + 0, NULL, 0, "tracing_on", 1 },
	{ "tracing-on", OPT_NAMED + 0, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "current_tracer", OPT_NAMED + 1, NULL, 0, "current_tracer", 1 },
	{ "current-tracer", OPT_NAMED + 1, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "buffer_size", OPT_NAMED + 2, NULL, 0, "buffer_size_kb", 1 },
	{ "buffer-size", OPT_NAMED + 2, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "buffer_total_size", OPT_NAMED + 3, NULL, 0, "buffer_total_size_kb", 1 },
	{ "buffer-total-size", OPT_NAMED + 3, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "buffer_subbuf_size", OPT_NAMED + 4, NULL, 0, "buffer_subbuf_size_kb (6.8 and later)", 1 },
	{ "buffer-subbuf-size", OPT_NAMED + 4, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "buffer_percent", OPT_NAMED + 5, NULL, 0, "buffer_percent", 1 },
	{ "buffer-percent", OPT_NAMED + 5, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "ftrace_filter", OPT_NAMED + 6, NULL, 0, "set_ftrace_filter", 1 },
	{ "ftrace-filter", OPT_NAMED + 6, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "ftrace_notrace", OPT_NAMED + 7, NULL, 0, "set_ftrace_notrace", 1 },
	{ "ftrace-notrace", OPT_NAMED + 7, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "ftrace_pid", OPT_NAMED + 8, NULL, 0, "set_ftrace_pid", 1 },
	{ "ftrace-pid", OPT_NAMED + 8, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "graph_function", OPT_NAMED + 9, NULL, 0, "set_graph_function", 1 },
	{ "graph-function", OPT_NAMED + 9, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "graph_notrace", OPT_NAMED + 10, NULL, 0, "set_graph_notrace", 1 },
	{ "graph-notrace", OPT_NAMED + 10, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ "cpumask", OPT_NAMED + 11, NULL, 0, "tracing_cpumask", 1 },
	{ "max_latency", OPT_NAMED + 12, NULL, 0, "tracing_max_latency", 1 },
	{ "max-latency", OPT_NAMED + 12, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 1 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, &a->ev, NULL);
		return 0;
	case OPT_PIPE:
		a->pipe = true;
		return 0;
	case OPT_SNAPSHOT:
		a->snapshot = true;
		return 0;
	case OPT_CPU:
		if (parse_int(arg, 0, 4095, &a->cpu))
			argp_error(state, "bad cpu '%s'", arg);
		return 0;
	case OPT_HIST:
	case OPT_TRIGGER:
		if (a->file || a->event)
			argp_error(state, "one file at a time");
		a->event_file = key == OPT_HIST ? "hist" : "trigger";
		a->event = arg;
		return 0;
	case ARGP_KEY_ARG:
		if (a->file || a->event)
			argp_error(state, "too many arguments");
		if (arg[0] == '/' || strstr(arg, ".."))
			argp_error(state, "'%s' is not a file in the instance", arg);
		/*
		 * The kernel shrinks the ring buffer to nothing when free_buffer is
		 * closed, whatever was done with it (its point is to free the
		 * buffer when a tool dies): opening it is never a read.
		 */
		if (!strcmp(arg, "free_buffer") || (strlen(arg) > 12 &&
						    !strcmp(arg + strlen(arg) - 12, "/free_buffer")))
			argp_error(state, "'free_buffer' is not shown: closing it empties and shrinks "
					  "the ring buffer (tr show buffer_size_kb shows the size)");
		a->file = arg;
		return 0;
	case ARGP_KEY_END:
		if (a->pipe + a->snapshot + !!(a->file || a->event) > 1)
			argp_error(state, "--pipe, --snapshot and FILE exclude each other");
		if (a->event && a->cpu >= 0)
			argp_error(state, "--cpu does not go with --%s", a->event_file);
		if (a->ev.list.n && !a->pipe)
			argp_error(state, "-e goes with --pipe");
		if (a->file && a->cpu >= 0)
			argp_error(state, "--cpu does not go with FILE");
		return 0;
	default:
		if (key >= OPT_NAMED && key < OPT_NAMED + (int)ARRAY_SIZE(named)) {
			if (a->file || a->event)
				argp_error(state, "one file at a time");
			a->file = named[key - OPT_NAMED];
			return 0;
		}
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child children[] = {
	{ &opt_instance_argp, 0, "Instance:", 0 },
	{ &opt_events_argp, 0, "Events to enable while following --pipe:", 0 },
	{ 0 }
};

static const struct argp argp = { options, parse, "[FILE]",
				  "Print the trace buffer, follow trace_pipe, or print one control "
				  "file (e.g. 'tr show current_tracer').",
				  children, NULL, NULL };

/* Copy fd to stdout; a pipe is polled so SIGINT/SIGTERM end it promptly. */
static int copy_out(int fd, bool follow)
{
	char buf[65536];

	for (;;) {
		ssize_t n;

		if (tr_stop)
			return 0;
		if (follow) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (poll(&p, 1, 200) <= 0)
				continue;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {
			if (!follow)
				return 0;
			continue;
		}
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			return errno == EPIPE ? 0 : -errno;
		if (follow && fflush(stdout))
			return errno == EPIPE ? 0 : -errno;
	}
}

/* The session's tick under --pipe -e: what trace_pipe has now, to stdout. */
struct pipe_out {
	int fd, err;
};

static int pipe_tick(void *arg, bool fd_ready)
{
	struct pipe_out *p = arg;
	char buf[65536];
	ssize_t n;

	(void)fd_ready;
	while ((n = read(p->fd, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, n, stdout) != (size_t)n || fflush(stdout)) {
			if (errno == EPIPE)
				return 1;
			return p->err = -errno;
		}
	}
	if (n < 0 && errno != EINTR && errno != EAGAIN)
		return p->err = -errno;
	return 0;
}

/*
 * --pipe -e: the events on for as long as trace_pipe is followed, as a
 * session (session.h): the buffer is taken (a second tr on it is refused)
 * and emptied first, and everything goes back at the end.
 */
static int follow_with_events(struct tfs_inst *in, const struct evsel_list *ev, int fd)
{
	static const struct session_tool pipe_tool = { .tick = pipe_tick, .tick_ms = 50 };
	struct pipe_out p = { .fd = fd };
	int r = session_tool_run(&(struct session_opts){ .inst = in, .events = ev,
							 .no_filter = true, .no_readers = true },
				 &pipe_tool, &p);

	return p.err ? p.err : r;
}

/*
 * events/SYSTEM/EVENT/WHAT for "SYSTEM:EVENT" (or SYSTEM/EVENT), or for an
 * EVENT that one system has; 0 with *out, or -ENOENT with tr_fail().
 */
static int event_file(struct tfs_inst *in, const char *spec, const char *what, char **out)
{
	const char *sep = spec + strcspn(spec, ":/");
	struct strv systems = { 0 }, found = { 0 };
	char *ev;
	int r = 0;

	if (*sep) {
		char *sys = xasprintf("%.*s", (int)(sep - spec), spec);

		ev = xasprintf("events/%s/%s", sys, sep + 1);
		if (!*sys || !sep[1] || strchr(sep + 1, '/') || !tfs_exists(in, ev))
			r = evsel_fail_unknown(in, sys, sep + 1);
		free(sys);
		if (!r)
			*out = xasprintf("%s/%s", ev, what);
		free(ev);
		return r;
	}
	tfs_list_dir(in, "events", &systems);
	for (size_t i = 0; i < systems.n; i++) {
		ev = xasprintf("events/%s/%s", systems.v[i], spec);
		if (tfs_exists(in, ev))
			strv_push(&found, ev);
		free(ev);
	}
	if (found.n == 1)
		*out = xasprintf("%s/%s", found.v[0], what);
	else if (found.n)
		r = tr_fail(-ENOENT, "'%s' is an event of %zu systems: say which (%s)", spec,
			    found.n, found.v[0] + 7);
	else
		r = tr_fail(-ENOENT, "no such event '%s'", spec);
	strv_free(&systems);
	strv_free(&found);
	return r;
}

int cmd_show(int argc, char **argv)
{
	struct args a = { .cpu = -1 };
	struct tfs_inst *in;
	char *file = NULL, *path;
	int fd, r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.snapshot && caps_require(CAP_SNAPSHOT))
		goto fail;
	if (cmd_instance_open(a.inst.name, a.ev.list.n > 0, &in))
		goto fail;
	if (a.event) {
		if (caps_require(!strcmp(a.event_file, "hist") ? CAP_HIST : CAP_TRIGGERS) ||
		    event_file(in, a.event, a.event_file, &file))
			goto fail;
	} else if (a.file)
		file = xstrdup(a.file);
	else if (a.cpu >= 0)
		file = xasprintf("per_cpu/cpu%d/%s", a.cpu,
				 a.pipe ? "trace_pipe" : a.snapshot ? "snapshot" : "trace");
	else
		file = xstrdup(a.pipe ? "trace_pipe" : a.snapshot ? "snapshot" : "trace");
	if (a.cpu >= 0 && !tfs_exists(in, file)) {
		tr_error("no cpu %d in this kernel", a.cpu);
		free(file);
		goto fail;
	}
	path = tfs_path(in, file);
	fd = open(path, O_RDONLY | O_CLOEXEC | (a.pipe ? O_NONBLOCK : 0));
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			tr_error("no file '%s' in %s", file, in->dir);
		else
			tr_report(r, "cannot read '%s'", path);
		free(path);
		free(file);
		goto fail;
	}
	if (a.ev.list.n) {
		r = follow_with_events(in, &a.ev.list, fd);
		if (r && tr_failure())
			tr_report(r, "cannot enable events");
		else if (r)
			tr_report(r, "cannot read '%s'", path);
	} else {
		r = copy_out(fd, a.pipe || !strcmp(file, "trace_pipe"));
		if (r)
			tr_report(r, "cannot read '%s'", path);
	}
	close(fd);
	free(path);
	free(file);
	evsel_list_free(&a.ev.list);
	return r ? EXIT_RUNTIME : EXIT_OK;
fail:
	if (tr_failure())
		tr_report(-EIO, "show");
	evsel_list_free(&a.ev.list);
	return EXIT_RUNTIME;
}
