// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Latency histograms in the kernel.  For --start S --end E --match a=b:
 *
 *   synthetic_events:  tr_lat_PID u64 lat[; TYPE KEY ...]
 *   S trigger:         hist:keys=a:trtsPID=common_timestamp.usecs [if F]
 *   E trigger:         hist:keys=b:trlatPID=common_timestamp.usecs-$trtsPID:
 *                      onmatch(S).trace(tr_lat_PID,$trlatPID[,KEY...])
 *                      [:onmax($trlatPID).save(F1,F2) | .snapshot()] [if F]
 *   synthetic trigger: hist:keys=lat.log2[,KEY...]:sort=lat
 *
 * Each is added through the tfs layer with its removal line; the undo list
 * runs newest first, so the triggers (which reference the synthetic event
 * and each other's variables) come down before what they reference.
 * --sql makes the synthetic event and its two triggers with libtracefs'
 * tracefs_sql() instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs/tracefs.h>
#include <unistd.h>

#include "hist.h"
#include "caps.h"
#include "session.h"

/* "TYPE NAME[N]" of a field in an event's format file, or NULL. */
static char *field_decl(struct tfs_inst *in, const char *system, const char *event,
			const char *name)
{
	char *path = xasprintf("events/%s/%s/format", system, event), *fmt = NULL, *decl = NULL;

	if (!tfs_read(in, path, &fmt)) {
		for (char *l = strtok(fmt, "\n"); l && !decl; l = strtok(NULL, "\n")) {
			char *f = strstr(l, "field:"), *semi, *n;
			size_t nl = strlen(name);

			if (!f || !(semi = strchr(f, ';')))
				continue;
			*semi = '\0';
			f += 6;
			/* The name is the last word, before any [N]. */
			n = strrchr(f, ' ');
			if (!n)
				continue;
			n++;
			if (strncmp(n, name, nl) || (n[nl] && n[nl] != '['))
				continue;
			/* Dynamic strings become fixed char arrays in a synthetic event. */
			if (strstr(f, "__data_loc"))
				decl = xasprintf("char %s[64]", name);
			else
				decl = xstrdup(f);
		}
	}
	free(fmt);
	free(path);
	return decl;
}

static int undo_append(struct tfs_inst *in, const char *file, const char *line,
		       const char *undo)
{
	int r = tfs_append_undo(in, file, line, undo);

	if (r)
		r = tr_fail(r, "the kernel refused '%s' in %s", line, file);
	return r;
}

static int add_trigger(struct tfs_inst *in, const char *system, const char *event,
		       const char *text)
{
	char *file = xasprintf("events/%s/%s/trigger", system, event);
	char *undo = xasprintf("!%s", text);
	int r = undo_append(in, file, text, undo);

	free(undo);
	free(file);
	return r;
}

struct lat {
	const struct hist_latency *l;
	char *ssys, *sev, *esys, *eev, *sfield, *efield;
	char *synth, *ts, *var;
	struct hist_field keys[HIST_MAX_KEYS];
	size_t nkeys;
	char *key_spec;		/* the synthetic histogram's keys */
	char *end_text;		/* the end trigger, to find its section for the max */
};

static void lat_free(struct lat *x)
{
	free(x->ssys), free(x->sev), free(x->esys), free(x->eev);
	free(x->sfield), free(x->efield);
	free(x->synth), free(x->ts), free(x->var), free(x->key_spec), free(x->end_text);
	for (size_t i = 0; i < x->nkeys; i++)
		free(x->keys[i].name);
}

char *hist_latency_keys(const char *keys)
{
	struct hist_field f[HIST_MAX_KEYS];
	size_t n = 0;
	bool lat = false;

	if (!keys)
		return xstrdup("lat.log2");
	if (!hist_fields_parse(keys, true, false, f, &n, HIST_MAX_KEYS))
		for (size_t i = 0; i < n; i++)
			lat |= !strcmp(f[i].name, "lat");
	for (size_t i = 0; i < n; i++)
		free(f[i].name);
	return lat ? xstrdup(keys) : xasprintf("lat.log2,%s", keys);
}

/* The synthetic event and the three triggers. */
static int build(struct lat *x, struct tfs_inst *in)
{
	const struct hist_latency *l = x->l;
	char *def, *t, *args = xstrdup(""), *tmp;
	const char *unit = l->ns ? "common_timestamp" : "common_timestamp.usecs";
	bool has_lat_key = false;
	int r;

	pid_t pid = getpid();

	x->synth = xasprintf("tr_lat_%d", (int)pid);
	x->ts = xasprintf("trts%d", (int)pid);
	x->var = xasprintf("trlat%d", (int)pid);
	def = xasprintf("%s u64 lat", x->synth);
	x->key_spec = xstrdup("");
	for (size_t i = 0; i < x->nkeys; i++) {
		const char *n = x->keys[i].name;
		char *f = hist_field_str(&x->keys[i]);

		if (!strcmp(n, "lat")) {
			has_lat_key = true;
		} else {
			char *decl = field_decl(in, x->esys, x->eev, n);

			if (!decl) {
				free(f);
				free(def);
				free(args);
				return tr_fail(-ENOENT, "no field '%s' in '%s:%s'", n, x->esys,
					       x->eev);
			}
			tmp = xasprintf("%s; %s", def, decl);
			free(def);
			def = tmp;
			free(decl);
			tmp = xasprintf("%s,%s", args, n);
			free(args);
			args = tmp;
		}
		tmp = xasprintf("%s%s%s", x->key_spec, *x->key_spec ? "," : "", f);
		free(x->key_spec);
		x->key_spec = tmp;
		free(f);
	}
	if (!has_lat_key) {
		tmp = xasprintf("lat.log2%s%s", *x->key_spec ? "," : "", x->key_spec);
		free(x->key_spec);
		x->key_spec = tmp;
	}
	tmp = xasprintf("!%s", x->synth);
	r = undo_append(tfs_top(), "synthetic_events", def, tmp);
	free(tmp);
	free(def);
	if (r) {
		free(args);
		return r;
	}
	/* Start: remember when, per match value. */
	t = xasprintf("hist:keys=%s:%s=%s%s%s", x->sfield, x->ts, unit,
		      l->start_filter ? " if " : "", l->start_filter ? l->start_filter : "");
	r = add_trigger(in, x->ssys, x->sev, t);
	free(t);
	if (r) {
		free(args);
		return r;
	}
	/* End: the latency, the synthetic event, and the max. */
	t = xasprintf("hist:keys=%s:%s=%s-$%s:onmatch(%s.%s).trace(%s,$%s%s)", x->efield, x->var,
		      unit, x->ts, x->ssys, x->sev, x->synth, x->var, args);
	free(args);
	if (l->onmax || l->snapshot) {
		const char *track = x->var;
		char *extra = NULL;

		if (l->onmax && strcmp(l->onmax, "lat")) {
			extra = xasprintf("trmx%d", (int)pid);
			tmp = xasprintf("%s:%s=%s", t, extra, l->onmax);
			free(t);
			t = tmp;
			track = extra;
		}
		if (l->snapshot)
			tmp = xasprintf("%s:onmax($%s).snapshot()", t, track);
		else
			tmp = xasprintf("%s:onmax($%s).save(%s)", t, track, l->save ? l->save : "");
		free(t);
		t = tmp;
		free(extra);
	}
	if (l->end_filter) {
		tmp = xasprintf("%s if %s", t, l->end_filter);
		free(t);
		t = tmp;
	}
	r = add_trigger(in, x->esys, x->eev, t);
	x->end_text = t;
	return r;
}

/* The max over the end trigger's entries (onmax), from the end event's hist file. */
static void find_max(struct lat *x, struct tfs_inst *in, struct hist_result *res)
{
	char *text = NULL;
	size_t pos = 0;
	struct hist_result e;

	if (hist_kernel_read(in, x->esys, x->eev, &text))
		return;
	while (hist_output_parse(text, &pos, &e) == 1) {
		bool ours = e.trigger && strstr(e.trigger, x->synth);

		if (ours && e.has_max) {
			res->has_max = true;
			res->max = e.max;
			res->max_saved = e.max_saved;
			e.max_saved = NULL;
		}
		hist_result_free(&e);
		if (ours)
			break;
	}
	free(text);
}

static int collect(struct tfs_inst *in, const struct hist_spec *spec, struct lat *x,
		   const struct hist_when *w, struct hist_result *res)
{
	char *text = NULL;
	size_t pos = 0;
	int r = hist_kernel_collect(in, spec, 1, w, &text);

	if (!r) {
		r = hist_output_parse(text, &pos, res);
		if (r == 0)
			r = tr_fail(-ENOENT, "no histogram on '%s:%s'", spec->system, spec->event);
	}
	if (r == 1) {
		r = 0;
		if (x)
			find_max(x, in, res);
	}
	free(text);
	return r;
}

/*
 * Latency histograms live in the top-level instance, or in an existing -B
 * one: in an instance tr made, the undo list would leave the triggers to
 * the instance's removal, which the kernel refuses while they reference a
 * synthetic event.  In soft mode (triggers only) no event reaches the buffer.
 */
static int open_instance(const char *instance, struct tfs_inst **in)
{
	int r;

	if (!instance) {
		*in = tfs_top();
		return 0;
	}
	r = tfs_inst_get(instance, false, in);
	if (r == -ENOENT)
		r = tr_fail(r, "no such instance '%s': latency histograms need an existing one",
			    instance);
	else if (r)
		r = tr_fail(r, "cannot open instance '%s': %s", instance, strerror(-r));
	return r;
}

/* The first field of a synthetic event (the SQL's first SELECT item); "lat.log2" if none. */
static char *first_field(struct tfs_inst *in, const char *name)
{
	char *path = xasprintf("events/synthetic/%s/format", name), *fmt = NULL, *k = NULL;

	if (!tfs_read(in, path, &fmt))
		for (char *l = strtok(fmt, "\n"); l && !k; l = strtok(NULL, "\n")) {
			char *f = strstr(l, "field:"), *semi, *n;

			if (!f || strstr(f, "common_") || !(semi = strchr(f, ';')))
				continue;
			*semi = '\0';
			n = strrchr(f, ' ');
			if (n)
				k = xasprintf("%.*s", (int)strcspn(n + 1, "["), n + 1);
		}
	free(fmt);
	free(path);
	return k ? k : xstrdup("lat.log2");
}

/*
 * --sql: tracefs_sql() builds the synthetic event and its triggers; tr
 * creates them, notes their removal, and keys a histogram on the result's
 * first field (or -k).
 */
static int run_sql(const struct hist_latency *l, struct tfs_inst *in, const struct hist_when *w,
		   const char *keys, struct hist_result *res)
{
	struct tracefs_synth *synth;
	struct tep_handle *tep = session_tep(&(struct session_tep_opts){ .all = true });
	char *err = NULL, *name = xasprintf("tr_sql_%d", (int)getpid()), *k = NULL;
	struct hist_spec spec;
	struct trace_seq seq;
	int r;

	if (!tep)
		return tr_fail(-ENOENT, "cannot read the event formats in %s", tfs_root());
	synth = tracefs_sql(tep, name, l->sql, &err);
	if (!synth) {
		r = tr_fail(-EINVAL, "bad SQL");
		if (err)
			tr_detail_set("%s", err);
		goto out;
	}
	/* Its text, to remove it in the right order: the synthetic event goes last. */
	trace_seq_init(&seq);
	tracefs_synth_echo_cmd(&seq, synth);
	trace_seq_terminate(&seq);
	/* Its histograms take timestamps: the kernel switches the clock (see tfs_append_undo). */
	tfs_save(NULL, "trace_clock");
	if (tracefs_synth_create(synth)) {
		r = tr_fail(-EINVAL, "the kernel refused the SQL's synthetic event");
		char *why = tracefs_error_last(NULL);

		if (why)
			tr_detail_set("%s", str_rstrip(why));
		free(why);
		trace_seq_destroy(&seq);
		goto out;
	}
	trace_seq_destroy(&seq);
	/*
	 * tracefs_synth_create() writes the top-level instance; tr's undo list
	 * does not know about it, so destroy it through libtracefs at the end.
	 */
	k = keys ? xstrdup(keys) : first_field(in, name);
	size_t mark = tfs_undo_mark();
	char *sysev = xasprintf("synthetic:%s", name);

	r = hist_spec_build(&spec, sysev, k, NULL, NULL, NULL, 0, NULL);
	free(sysev);
	if (!r) {
		r = collect(in, &spec, NULL, w, res);
		hist_spec_free(&spec);
	}
	/* Our histogram must go before the synthetic event: what collect() set, now. */
	tfs_restore_to(mark);
	if (tracefs_synth_destroy(synth))
		tr_warn("could not remove the synthetic event '%s'", name);
out:
	tracefs_synth_free(synth);
	tep_free(tep);
	free(err);
	free(name);
	free(k);
	return r;
}

int hist_latency_run(const struct hist_latency *l, const char *instance,
		     const struct hist_when *w, const char *keys, struct hist_result *res)
{
	struct lat x = { .l = l };
	struct tfs_inst *in;
	struct hist_spec spec = { 0 };
	const char *eq;
	char *sysev;
	int r = caps_require(CAP_HIST);

	if (!r)
		r = caps_require(CAP_SYNTHETIC);
	if (!r && l->snapshot)
		r = caps_require(CAP_SNAPSHOT);
	if (r)
		return r;
	if (!r)
		r = open_instance(instance, &in);
	if (r)
		return r;
	if (l->sql)
		return run_sql(l, in, w, keys, res);
	eq = strchr(l->match, '=');
	if (!eq || eq == l->match || !eq[1])
		return tr_fail(-EINVAL, "bad --match '%s': want START_FIELD=END_FIELD", l->match);
	x.sfield = xasprintf("%.*s", (int)(eq - l->match), l->match);
	x.efield = xstrdup(eq + 1);
	r = hist_event_parse(l->start, &x.ssys, &x.sev);
	if (!r)
		r = hist_event_parse(l->end, &x.esys, &x.eev);
	if (!r && keys)
		r = hist_fields_parse(keys, true, false, x.keys, &x.nkeys, HIST_MAX_KEYS - 1);
	if (!r)
		r = build(&x, in);
	if (!r) {
		sysev = xasprintf("synthetic:%s", x.synth);
		r = hist_spec_build(&spec, sysev, x.key_spec, NULL, "lat", NULL, 0, NULL);
		free(sysev);
	}
	if (!r)
		r = collect(in, &spec, &x, w, res);
	hist_spec_free(&spec);
	lat_free(&x);
	return r;
}
