// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel engine: a hist trigger added through the tfs layer (so it is
 * removed at exit, SIGINT included), the hist file read back, and the
 * controls for histograms that already exist (show, clear, pause, cont).
 * How long a histogram collects (COMMAND, --duration or a signal) is the
 * session runner's business (session.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evsel.h"
#include "hist.h"
#include "caps.h"
#include "session.h"

static char *event_file(const char *system, const char *event, const char *file)
{
	return xasprintf("events/%s/%s/%s", system, event, file);
}

int hist_kernel_add(struct tfs_inst *in, const struct hist_spec *s)
{
	char *file, *text, *undo;
	int r = caps_require(CAP_HIST);

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

int hist_kernel_debug(struct tfs_inst *in, const char *system, const char *event, char **text)
{
	char *file = event_file(system, event, "hist_debug"), *dir = event_file(system, event, "");
	int r = caps_require(CAP_HIST);

	*text = NULL;
	if (!r && !tfs_exists(in, dir))
		r = tr_fail(-ENOENT, "no such event '%s:%s'", system, event);
	else if (!r && !tfs_exists(in, file))
		r = tr_fail(-EOPNOTSUPP, "this kernel has no hist_debug files "
			    "(CONFIG_HIST_TRIGGERS_DEBUG is off)");
	else if (!r && (r = tfs_read(in, file, text)))
		r = tr_fail(r, "cannot read the hist_debug of '%s:%s': %s", system, event,
			    strerror(-r));
	free(file);
	free(dir);
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
	int r = caps_require(CAP_HIST);

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

void hist_results_free(struct hist_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		hist_result_free(&r->v[i]);
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

int hist_kernel_show(struct tfs_inst *in, const char *system, const char *event, const char *name,
		     struct hist_results *out)
{
	char *text = NULL;
	size_t pos = 0;
	int r = caps_require(CAP_HIST);

	*out = (struct hist_results){ 0 };
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
		if (name) {
			want = !hist_spec_from_trigger(res.trigger, &t) && t.name &&
			       !strcmp(t.name, name);
			if (res.trigger)
				hist_spec_free(&t);
		}
		if (!want) {
			hist_result_free(&res);
			continue;
		}
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		out->v[out->n++] = res;
	}
	if (!r && !out->n)
		r = name ? tr_fail(-ENOENT, "no histogram named '%s' on '%s:%s'", name,
				      system, event)
			    : tr_fail(-ENOENT, "no histogram on '%s:%s'", system, event);
	free(text);
	return r;
}

/* Same fields, in order, with the same modifiers? */
static bool same_fields(const struct hist_field *a, size_t na, const struct hist_field *b,
			size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i].name, b[i].name) || a[i].mod != b[i].mod)
			return false;
	return true;
}

/* Values as the kernel lists them: hitcount first, whether or not the spec names it. */
static bool same_vals(const struct hist_spec *t, const struct hist_spec *s)
{
	size_t ti = t->nvals && !strcmp(t->vals[0].name, "hitcount");
	size_t si = s->nvals && !strcmp(s->vals[0].name, "hitcount");

	return same_fields(t->vals + ti, t->nvals - ti, s->vals + si, s->nvals - si);
}

int hist_kernel_ours(const char *text, const struct hist_spec *s, struct hist_result *res)
{
	size_t pos = 0;

	for (;;) {
		struct hist_spec t;
		bool ours;
		int r = hist_output_parse(text, &pos, res);

		if (r <= 0)
			return r ? r : tr_fail(-ENOENT, "our histogram is not in the hist file of "
						       "'%s:%s'", s->system, s->event);
		ours = !hist_spec_from_trigger(res->trigger, &t);
		if (ours) {
			ours = same_fields(t.keys, t.nkeys, s->keys, s->nkeys) && same_vals(&t, s) &&
			       !t.filter == !s->filter && (!s->filter || !strcmp(t.filter, s->filter));
			hist_spec_free(&t);
		}
		if (ours)
			return 0;
		hist_result_free(res);
	}
}

/*
 * The kernel engine as a live tool: the triggers added once the session
 * is open, the hist file read the moment the wait ends (on_end), since
 * turning tracing off does not stop a trigger.
 */
struct hist_read {
	struct tfs_inst *in;
	const struct hist_spec *v;
	size_t n;
	char *text;
	int err;
};

static int add_triggers(void *arg, struct session *sess)
{
	struct hist_read *k = arg;
	int r = 0;

	(void)sess;
	for (size_t i = 0; i < k->n && !r; i++)
		r = hist_kernel_add(k->in, &k->v[i]);
	return r;
}

static int read_now(void *arg)
{
	struct hist_read *k = arg;

	k->err = hist_kernel_read(k->in, k->v[k->n - 1].system, k->v[k->n - 1].event, &k->text);
	return 0;
}

static const struct session_tool hist_kernel_tool = { .prepare = add_triggers,
						      .on_end = read_now };

int hist_kernel_collect(struct tfs_inst *in, const struct hist_spec *v, size_t n,
			const struct hist_when *w, char **text)
{
	struct hist_read k = { .in = in, .v = v, .n = n };
	int r = session_tool_run(&(struct session_opts){ .inst = in, .command = w->command,
							 .duration_ns = w->duration_ns,
							 .passive = true },
				 &hist_kernel_tool, &k);

	*text = NULL;
	if (!r)
		r = k.err;
	if (!r)
		*text = k.text;
	else
		free(k.text);
	return r;
}

int hist_kernel_run(struct tfs_inst *in, const struct hist_spec *v, size_t n,
		    const struct hist_when *w, struct hist_result *res)
{
	char *text = NULL;
	int r = hist_kernel_collect(in, v, n, w, &text);

	if (!r)
		r = hist_kernel_ours(text, &v[n - 1], res);
	free(text);
	return r;
}
