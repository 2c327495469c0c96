// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel engine: a hist trigger added through the tfs layer (so it is
 * removed at exit, SIGINT included), the hist file read back, and the
 * controls for histograms that already exist (show, clear, pause, cont).
 * Also the session runner both engines share: COMMAND, --duration or a
 * signal decides how long a histogram collects.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "evsel.h"
#include "hist.h"
#include "probe.h"

static char *event_file(const char *system, const char *event, const char *file)
{
	return xasprintf("events/%s/%s/%s", system, event, file);
}

int hist_kernel_add(struct tfs_inst *in, const struct hist_spec *s)
{
	char *file, *text, *undo;
	int r = probe_require(CAP_HIST);

	if (r)
		return r;
	file = event_file(s->system, s->event, "trigger");
	if (!tfs_exists(in, file)) {
		free(file);
		return evsel_fail_unknown(in, s->system, s->event);
	}
	text = hist_spec_trigger(s);
	undo = xasprintf("!%s", text);
	r = tfs_append_undo(in, file, text, undo);
	if (r)
		r = tr_fail(r, "the kernel refused the histogram '%s' on '%s:%s'", text, s->system,
			    s->event);
	free(undo);
	free(text);
	free(file);
	return r;
}

int hist_kernel_read(struct tfs_inst *in, const char *system, const char *event, char **text)
{
	char *file = event_file(system, event, "hist");
	int r = tfs_read(in, file, text);

	if (r == -ENOENT)
		r = tr_fail(r, "no such event '%s:%s', or no hist file for it", system, event);
	else if (r)
		r = tr_fail(r, "cannot read the histogram of '%s:%s': %s", system, event,
			    strerror(-r));
	free(file);
	return r;
}

/*
 * The hist triggers of an event as its trigger file shows them, with the
 * state ([active]/[paused]) cut off; only those named name when it is set.
 */
int hist_kernel_triggers(struct tfs_inst *in, const char *system, const char *event,
			 const char *name, struct strv *out)
{
	char *file = event_file(system, event, "trigger"), *raw = NULL, *line, *save = NULL;
	int r = tfs_read(in, file, &raw);

	free(file);
	if (r)
		return tr_fail(r, "no such event '%s:%s'", system, event);
	for (line = strtok_r(raw, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *st;
		struct hist_spec s;

		if (strncmp(line, "hist:", 5))
			continue;
		st = strstr(line, " [");
		if (st)
			*st = '\0';
		if (name) {
			if (hist_spec_from_trigger(line, &s))
				continue;
			bool match = s.name && !strcmp(s.name, name);

			hist_spec_free(&s);
			if (!match)
				continue;
		}
		strv_push(out, line);
	}
	free(raw);
	return 0;
}

int hist_kernel_control(struct tfs_inst *in, const char *system, const char *event,
			const char *name, const char *what)
{
	struct strv t = { 0 };
	char *file = event_file(system, event, "trigger");
	int r = probe_require(CAP_HIST);

	if (!r)
		r = hist_kernel_triggers(in, system, event, name, &t);
	if (!r && !t.n)
		r = name ? tr_fail(-ENOENT, "no histogram named '%s' on '%s:%s'", name, system,
				   event)
			 : tr_fail(-ENOENT, "no histogram on '%s:%s'", system, event);
	for (size_t i = 0; i < t.n && !r; i++) {
		/* The trigger as shown, with :clear (or :pause, :cont) before any filter. */
		char *iff = strstr(t.v[i], " if "), *line;

		if (iff)
			*iff = '\0';
		line = xasprintf("%s:%s%s%s", t.v[i], what, iff ? " if " : "", iff ? iff + 4 : "");
		r = tfs_write(in, file, line, true);
		if (r)
			r = tr_fail(r, "cannot %s the histogram '%s': %s", what, line, strerror(-r));
		free(line);
	}
	strv_free(&t);
	free(file);
	return r;
}

/* Render to stdout; outside the table (which says so itself), warn about Dropped. */
static int render(const struct hist_render_opts *o, struct hist_result *r)
{
	int e = hist_render(stdout, r, o);

	if (r->dropped && o->kind != HIST_OUT_TABLE)
		tr_warn("%llu events were dropped: the table was full; raise --size",
			(unsigned long long)r->dropped);
	return e;
}

int hist_kernel_show(struct tfs_inst *in, const char *system, const char *event, const char *name,
		     const struct hist_render_opts *o)
{
	char *text = NULL;
	size_t pos = 0;
	int r = probe_require(CAP_HIST), n = 0, shown = 0;

	if (!r)
		r = hist_kernel_read(in, system, event, &text);
	while (!r) {
		struct hist_result res;
		struct hist_spec t;
		bool want = true;

		r = hist_output_parse(text, &pos, &res);
		if (r <= 0)
			break;
		r = 0;
		n++;
		if (name) {
			want = !hist_spec_from_trigger(res.trigger, &t) && t.name &&
			       !strcmp(t.name, name);
			if (res.trigger)
				hist_spec_free(&t);
		}
		if (want) {
			if (shown++ && o->kind == HIST_OUT_TABLE)
				fputc('\n', stdout);
			if (o->kind == HIST_OUT_TABLE)
				printf("# %s\n", res.trigger);
			r = render(o, &res);
		}
		hist_result_free(&res);
	}
	if (!r && !shown)
		r = name ? tr_fail(-ENOENT, "no histogram named '%s' on '%s:%s'", name,
				      system, event)
			    : tr_fail(-ENOENT, "no histogram on '%s:%s'", system, event);
	free(text);
	return r;
}

int hist_kernel_run(struct tfs_inst *in, const struct hist_spec *s, struct hist_session *w,
		    const struct hist_render_opts *o)
{
	struct hist_result res;
	char *text = NULL;
	size_t pos = 0;
	int r = hist_kernel_add(in, s);

	if (!r)
		r = hist_spawn(w);
	if (!r && (r = tfs_set(in, "tracing_on", "1")))
		tr_fail(r, "cannot turn tracing on: %s", strerror(-r));
	if (r)
		return r;
	hist_wait(w);
	/* Read it before tracing stops: pausing the buffer does not pause the trigger. */
	r = hist_kernel_read(in, s->system, s->event, &text);
	if (r)
		return r;
	/* Our trigger's section: the one whose trigger info matches ours. */
	for (;;) {
		struct hist_spec t;
		bool ours;

		r = hist_output_parse(text, &pos, &res);
		if (r <= 0) {
			if (!r)
				r = tr_fail(-ENOENT, "our histogram is not in the hist file of '%s:%s'",
					    s->system, s->event);
			break;
		}
		ours = !hist_spec_from_trigger(res.trigger, &t);
		if (ours) {
			ours = t.nkeys == s->nkeys && (!s->filter || (t.filter &&
								      !strcmp(t.filter, s->filter)));
			for (size_t i = 0; ours && i < s->nkeys; i++)
				ours = !strcmp(t.keys[i].name, s->keys[i].name);
			hist_spec_free(&t);
		}
		if (ours) {
			r = render(o, &res);
			hist_result_free(&res);
			break;
		}
		hist_result_free(&res);
	}
	free(text);
	return r;
}

/* ---- the session: COMMAND, --duration or a signal ---- */

int hist_spawn(struct hist_session *w)
{
	int p[2];

	w->child = 0;
	w->go_fd = -1;
	if (!w->command)
		return 0;
	if (pipe2(p, O_CLOEXEC))
		return tr_fail(-errno, "cannot start '%s': %s", w->command[0], strerror(errno));
	w->child = fork();
	if (w->child < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		w->child = 0;
		return tr_fail(-e, "cannot start '%s': %s", w->command[0], strerror(e));
	}
	if (w->child == 0) {
		char c;

		close(p[1]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		close(p[0]);
		execvp(w->command[0], w->command);
		fprintf(stderr, "tr: cannot run '%s': %s\n", w->command[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	w->go_fd = p[1];
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void hist_wait(struct hist_session *w)
{
	uint64_t end = w->duration_ns ? now_ns() + w->duration_ns : 0;

	if (w->go_fd >= 0) {
		if (write(w->go_fd, "g", 1) != 1)
			tr_warn("cannot start '%s': %s", w->command[0], strerror(errno));
		close(w->go_fd);
		w->go_fd = -1;
	}
	while (!tr_stop) {
		struct pollfd p = { .fd = w->stop_fd, .events = POLLIN };
		int ms = 100, st;

		if (w->child > 0 && waitpid(w->child, &st, WNOHANG) == w->child) {
			w->status = st;
			w->child = 0;
			return;
		}
		if (end) {
			uint64_t t = now_ns();

			if (t >= end)
				return;
			if ((end - t) / 1000000 < (uint64_t)ms)
				ms = (end - t) / 1000000 + 1;
		}
		if (w->child > 0 && ms > 20)
			ms = 20;
		if (poll(&p, 1, ms) > 0)
			return;
	}
}

void hist_session_end(struct hist_session *w)
{
	if (w->go_fd >= 0) {
		close(w->go_fd);	/* the command dies unstarted */
		w->go_fd = -1;
	}
	if (w->child > 0) {
		int st;

		/* Interrupted: the command got the terminal's SIGINT too; wait for it. */
		waitpid(w->child, &st, 0);
		w->status = st;
		w->child = 0;
	}
}
