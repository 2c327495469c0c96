// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Applying a tracing set-up to an instance (see setup.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <unistd.h>

#include "parse.h"
#include "caps.h"
#include "setup.h"
#include "trigger.h"

static bool word_in(const char *list, const char *word)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	bool found = false;

	for (tok = strtok_r(copy, " \n[]", &save); tok && !found; tok = strtok_r(NULL, " \n[]", &save))
		found = !strcmp(tok, word);
	free(copy);
	return found;
}

/*
 * Whether word is one of what the file (available_tracers, trace_clock) of
 * the instance offers (a tracer falls back to the top level's list): 0, or
 * -EINVAL naming the choices; *list is the file's text (free it).
 */
static int check_word(struct tfs_inst *in, const char *file, bool top_too, const char *what,
		      const char *word, char **list)
{
	int r = tfs_read(in, file, list);

	if (r && top_too)
		r = tfs_read(NULL, file, list);
	if (r)
		return tr_fail(r, "cannot read %s: %s", file, strerror(-r));
	if (!word_in(*list, word))
		return tr_fail(-EINVAL, "unknown %s '%s' (available: %s)", what, word,
			       str_rstrip(*list));
	return 0;
}

static int check_tracer(struct tfs_inst *in, const char *tracer)
{
	char *avail = NULL, *top = NULL;
	int r;

	/* blk, mmiotrace and the latency tracers are the top level's only. */
	if (in && in->name && !tfs_read(in, "available_tracers", &avail) &&
	    !word_in(avail, tracer) && !tfs_read(NULL, "available_tracers", &top) &&
	    word_in(top, tracer)) {
		free(avail);
		free(top);
		return tr_fail(-EINVAL, "tracer '%s' works in the top-level buffer only, not in "
				       "instance '%s'", tracer, in->name);
	}
	free(top);
	free(avail);
	avail = NULL;
	r = check_word(in, "available_tracers", true, "tracer", tracer, &avail);

	if (!r && !strcmp(tracer, "function") && !caps_has(CAP_FUNCTION))
		r = caps_require(CAP_FUNCTION);
	else if (!r && !strcmp(tracer, "function_graph") && !caps_has(CAP_FUNCTION_GRAPH))
		r = caps_require(CAP_FUNCTION_GRAPH);
	free(avail);
	return r;
}

static int check_clock(struct tfs_inst *in, const char *clock)
{
	char *avail = NULL;
	int r = check_word(in, "trace_clock", false, "clock", clock, &avail);

	free(avail);
	return r;
}

/*
 * An option trace_options does not list: say so, with the closest name it
 * has ("noprint-parnet" -> noprint-parent), keeping the "no" the user typed.
 */
static int unknown_option(struct tfs_inst *in, const char *opt)
{
	/* function_graph's newer options: which kernel (and config) has them. */
	static const struct {
		const char *name, *since;
	} newer[] = {
		{ "funcgraph-retval", "Linux 6.5 with CONFIG_FUNCTION_GRAPH_RETVAL" },
		{ "funcgraph-retval-hex", "Linux 6.5 with CONFIG_FUNCTION_GRAPH_RETVAL" },
		{ "funcgraph-retaddr", "Linux 6.13 with CONFIG_FUNCTION_GRAPH_RETADDR" },
		{ "funcgraph-args", "Linux 6.15 with CONFIG_FUNCTION_TRACE_ARGS" },
		{ "trace_printk_dest", "Linux 6.12" },
		{ "copy_trace_marker", "Linux 6.16" },
	};
	struct strv names = { 0 };
	char *text = NULL, *line, *save = NULL;
	bool no = !strncmp(opt, "no", 2);
	const char *hit = NULL;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(newer); i++)
		if (!strcmp(no ? opt + 2 : opt, newer[i].name))
			return tr_fail(-EINVAL, "this kernel has no trace option '%s' (%s has it)",
				       opt, newer[i].since);

	if (!tfs_read(in, "trace_options", &text)) {
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			/* trace_options says "noirq-info" for an option that is off. */
			const char *name = strncmp(line, "no", 2) ? line : line + 2;

			strv_push_owned(&names, xasprintf("%s%s", no ? "no" : "", name));
		}
		hit = suggest_closest(opt, (const char *const *)names.v, names.n);
	}
	if (hit)
		r = tr_fail(-EINVAL, "unknown trace option '%s' (did you mean %s?)", opt, hit);
	else
		r = tr_fail(-EINVAL, "unknown trace option '%s' (tr list -o shows them)", opt);
	strv_free(&names);
	free(text);
	return r;
}

static int check_option(struct tfs_inst *in, const char *opt, char **file)
{
	const char *name = strncmp(opt, "no", 2) ? opt : opt + 2;

	*file = xasprintf("options/%s", name);
	if (!tfs_exists(in, *file)) {
		/* "noirq-info" vs an option really called "no..." */
		free(*file);
		*file = xasprintf("options/%s", opt);
		if (tfs_exists(in, *file) && name != opt)
			return 0;
		free(*file);
		*file = NULL;
		return unknown_option(in, opt);
	}
	return 0;
}

/* The field names of SYS:EV's format (common ones too), from "field:TYPE NAME[N];" lines. */
static void event_fields(struct tfs_inst *in, const char *system, const char *event,
			 struct strv *out)
{
	char *file = xasprintf("events/%s/%s/format", system, event), *text = NULL, *p;

	if (!tfs_read(in, file, &text))
		for (p = text; (p = strstr(p, "field:")); ) {
			char *semi = strchr(p, ';'), *end, *start;

			if (!semi)
				break;
			end = semi;
			/* "char comm[16]": the name is before the brackets. */
			for (char *b = p; b < semi; b++)
				if (*b == '[') {
					end = b;
					break;
				}
			start = end;
			while (start > p && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
				start--;
			if (start < end)
				strv_push_owned(out, xasprintf("%.*s", (int)(end - start), start));
			p = semi;
		}
	free(text);
	free(file);
}

/*
 * When the kernel says a filter names a field the event lacks, which word
 * was it, and what was meant: "no field 'prev_pd' (did you mean
 * prev_pid?)", or NULL when that cannot be told.
 */
static char *filter_hint(struct tfs_inst *in, const char *system, const char *event,
			 const char *filter)
{
	struct strv fields = { 0 };
	char *hint = NULL;
	const char *p = filter;

	if (!tr_detail() || !strstr(tr_detail(), "Field not found"))
		return NULL;
	event_fields(in, system, event, &fields);
	while (*p && !hint) {
		if (*p == '"' || *p == '\'') {
			const char *q = strchr(p + 1, *p);

			p = q ? q + 1 : p + strlen(p);
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			const char *start = p;
			char *word;

			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			word = xasprintf("%.*s", (int)(p - start), start);
			if (fields.n && !strv_contains(&fields, word)) {
				const char *near = suggest_closest(word, (const char *const *)fields.v,
								   fields.n);

				hint = near ? xasprintf("no field '%s' (did you mean %s?)", word, near)
					    : xasprintf("no field '%s'", word);
			}
			free(word);
			continue;
		}
		/* Numbers (0x1f too) are values, not fields. */
		if (isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)*p))
				p++;
			continue;
		}
		p++;
	}
	strv_free(&fields);
	return hint;
}

/* How many of the matches took their filter from sel. */
static size_t sel_matches(const struct evmatch *m, size_t n, const struct evsel *sel)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += m[i].sel == sel;
	return k;
}

/*
 * A filter on a selector of several events (-e sched -f 'prev_pid == 0')
 * is taken by the events that have its fields and skipped by the others,
 * as the kernel's own subsystem filter (events/SYS/filter) does; skipped
 * events are not enabled, since they would trace unfiltered.  One warning
 * names the skipped events; a filter no event takes fails as for one event.
 */
static int report_skipped(struct tfs_inst *in, const struct evmatch *m, size_t n,
			  const bool *skip)
{
	for (size_t i = 0; i < n; i++) {
		const struct evsel *sel = m[i].sel;
		size_t total, skipped = 0;
		char *names = NULL, *hint;
		bool first = true;
		int r;

		if (!skip[i])
			continue;
		/* Once per selector: at its first skipped match. */
		for (size_t k = 0; k < i && first; k++)
			first = !(skip[k] && m[k].sel == sel);
		if (!first)
			continue;
		total = sel_matches(m, n, sel);
		for (size_t k = i; k < n; k++) {
			char *t;

			if (!skip[k] || m[k].sel != sel)
				continue;
			skipped++;
			t = xasprintf("%s%s%s:%s", names ? names : "", names ? ", " : "",
				      m[k].system, m[k].event);
			free(names);
			names = t;
		}
		if (skipped < total) {
			tr_warn("filter '%s' of '%s' skipped %zu of %zu events, which lack its "
				"fields: %s", sel->user_filter ? sel->user_filter : sel->filter,
				sel->spec, skipped, total, names);
			free(names);
			continue;
		}
		free(names);
		hint = filter_hint(in, m[i].system, m[i].event,
				   sel->user_filter ? sel->user_filter : sel->filter);
		r = tr_fail(-EINVAL, "bad filter for '%s': '%s': no event of it has its fields%s%s",
			    sel->spec, sel->user_filter ? sel->user_filter : sel->filter,
			    hint ? ": " : "", hint ? hint : "");
		free(hint);
		return r;
	}
	return 0;
}

int setup_events(struct tfs_inst *in, const struct evsel_list *events)
{
	struct strv avail = { 0 };
	struct evmatch *m = NULL;
	bool *skip = NULL;
	size_t n = 0;
	int r;

	if (!events || !events->n)
		return 0;
	r = tfs_events(in, &avail);
	if (r) {
		strv_free(&avail);
		return tr_fail(r, "cannot read available_events: %s", strerror(-r));
	}
	r = evsel_resolve(events, &avail, &m, &n);
	strv_free(&avail);
	skip = xcalloc(n ? n : 1, sizeof(*skip));
	/* Filters first, so no event ever runs unfiltered. */
	for (size_t i = 0; i < n && !r; i++) {
		char *f;

		if (!m[i].filter)
			continue;
		f = xasprintf("events/%s/%s/filter", m[i].system, m[i].event);
		/* -f '': the kernel clears an event's filter when written "0". */
		r = tfs_set(in, f, *m[i].filter ? m[i].filter : "0");
		if (r == -EINVAL && tr_detail() && strstr(tr_detail(), "Field not found") &&
		    sel_matches(m, n, m[i].sel) > 1) {
			skip[i] = true;
			r = 0;
		}
		/*
		 * tr's own clauses were added to the user's filter: show the
		 * kernel's verdict on what the user typed, caret and all, if the
		 * user's text alone is refused too.
		 */
		if (r) {
			const char *shown = m[i].filter;
			char *hint;

			if (m[i].user_filter && tfs_set(in, f, m[i].user_filter))
				shown = m[i].user_filter;
			hint = filter_hint(in, m[i].system, m[i].event, shown);
			r = tr_fail(r, "bad filter for '%s:%s': '%s': %s", m[i].system, m[i].event,
				    shown, hint ? hint : strerror(-r));
			free(hint);
		}
		free(f);
	}
	if (!r)
		r = report_skipped(in, m, n, skip);
	for (size_t i = 0; i < n && !r; i++) {
		char *f;

		if (skip[i])
			continue;
		f = xasprintf("events/%s/%s/enable", m[i].system, m[i].event);
		r = tfs_set(in, f, "1");
		/* ftrace's own events (print, function...) have no switch: always on. */
		if (r == -ENOENT && !strcmp(m[i].system, "ftrace"))
			r = 0;
		if (r)
			r = tr_fail(r, "cannot enable event '%s:%s': %s", m[i].system, m[i].event,
				    strerror(-r));
		free(f);
	}
	free(skip);
	evmatch_free(m, n);
	return r;
}

/* The words of sv, space-separated (filter lists, pid lists). */
static char *join(const struct strv *sv)
{
	char *out = xstrdup("");

	for (size_t i = 0; i < sv->n; i++) {
		char *t = xasprintf("%s%s%s", out, i ? " " : "", sv->v[i]);

		free(out);
		out = t;
	}
	return out;
}

/*
 * set_ftrace_filter and friends.  Every entry is checked against
 * available_filter_functions first, because the kernel's EINVAL for a write
 * of several names does not say which one matched nothing.
 *
 * Entries are what the files take: globs, "!GLOB" to take functions out,
 * "GLOB:mod:MODULE" (and its negations).  A list with something to add is
 * written whole, replacing the file's list; a list of "!" entries only is
 * appended, so it takes functions out of the list already there instead of
 * clearing it.  Either way the old list comes back at exit.  In
 * set_ftrace_filter (-l), a command ("vfs_read:dump",
 * "vfs_read:enable_event:sched:sched_switch:2") is a function trigger: added
 * on its own and removed at exit.
 */
static int apply_function_filters(struct tfs_inst *in, const struct tr_setup *s)
{
	static const struct {
		const char *file;
		size_t off;
		bool mods;	/* takes :mod: and commands (the ftrace hash files) */
	} lists[] = {
		{ "set_ftrace_filter", offsetof(struct tr_setup, ftrace_filter), true },
		{ "set_ftrace_notrace", offsetof(struct tr_setup, ftrace_notrace), true },
		{ "set_graph_function", offsetof(struct tr_setup, graph_function), false },
		{ "set_graph_notrace", offsetof(struct tr_setup, graph_notrace), false },
	};
	char *funcs = NULL;
	bool any = false;
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
		any |= ((const struct strv *)((const char *)s + lists[i].off))->n > 0;
	if (!any)
		return 0;
	r = caps_require(CAP_FUNCTION_FILTER);
	if (!r && (r = tfs_read(NULL, "available_filter_functions", &funcs)))
		r = tr_fail(r, "cannot read available_filter_functions: %s", strerror(-r));
	for (size_t i = 0; !r && i < ARRAY_SIZE(lists); i++) {
		const struct strv *sv = (const void *)((const char *)s + lists[i].off);
		struct strv entries = { 0 }, commands = { 0 };
		bool adds = false;
		char *all, *name;

		for (size_t k = 0; !r && k < sv->n; k++) {
			const char *e = sv->v[k];

			if (trig_func_is_command(e) && i == 0) {
				strv_push(&commands, e);
				continue;
			}
			if (trig_func_is_command(e) || (!lists[i].mods && strstr(e, ":mod:")))
				r = tr_fail(-EINVAL, "'%s' does not go in %s%s", e, lists[i].file,
					    trig_func_is_command(e)
						    ? ": function commands go in set_ftrace_filter (-l)"
						    : ": it takes no :mod:");
			else
				r = trig_func_filter_check(funcs, e);
			adds |= e[0] != '!';
			/* The graph files' parser takes no index: give it the name. */
			if (!r && !lists[i].mods && (name = trig_func_by_index(funcs, e)))
				strv_push_owned(&entries, name);
			else
				strv_push(&entries, e);
		}
		if (!r && entries.n && !tfs_exists(in, lists[i].file))
			r = tr_fail(-EOPNOTSUPP, "this kernel has no %s%s", lists[i].file,
				    in->name ? " in instances" : "");
		if (!r && entries.n) {
			all = join(&entries);
			if (adds) {
				r = tfs_set(in, lists[i].file, all);
			} else {
				r = tfs_save(in, lists[i].file);
				if (!r)
					r = tfs_write(in, lists[i].file, all, true);
			}
			if (r && adds)
				r = tr_fail(r, "cannot set %s to '%s': %s", lists[i].file, all,
					    strerror(-r));
			else if (r)
				r = tr_fail(r, "cannot take '%s' out of %s: %s", all, lists[i].file,
					    strerror(-r));
			free(all);
		}
		for (size_t k = 0; !r && k < commands.n; k++)
			r = trig_func_add(in, commands.v[k]);
		strv_free(&entries);
		strv_free(&commands);
	}
	free(funcs);
	return r;
}

static bool function_tracer(const char *tracer)
{
	return tracer && !strncmp(tracer, "function", 8);
}

/* The instance's CPUs (per_cpu/cpuN), as a mask; the count of bits that can be set. */
static int instance_cpus(struct tfs_inst *in, uint64_t *mask)
{
	int n = 0;

	memset(mask, 0, TR_MAX_CPUS / 8);
	for (int c = 0; c < TR_MAX_CPUS; c++) {
		char f[32];

		snprintf(f, sizeof(f), "per_cpu/cpu%d", c);
		if (tfs_exists(in, f)) {
			mask[c / 64] |= 1ULL << (c % 64);
			n = c + 1;
		} else if (c >= 64 && c > 2 * n) {
			break;	/* well past the last one: sparse numbering stops somewhere */
		}
	}
	return n;
}

int setup_cpus(struct tfs_inst *in, const struct tr_cpus *c)
{
	uint64_t have[TR_MAX_CPUS / 64], missing[TR_MAX_CPUS / 64];
	bool any_missing = false;
	char *text;
	int n, r;

	if (!c->set)
		return 0;
	n = instance_cpus(in, have);
	for (size_t i = 0; i < ARRAY_SIZE(have); i++) {
		missing[i] = c->mask[i] & ~have[i];
		any_missing |= missing[i] != 0;
	}
	if (any_missing) {
		char *bad = cpu_list_format(missing, TR_MAX_CPUS), *ok = cpu_list_format(have, n);

		r = tr_fail(-EINVAL, "no CPU %s on this machine (CPUs %s)", bad, ok);
		free(bad);
		free(ok);
		return r;
	}
	/* The kernel's own format, so that a mask already set is not written again. */
	text = cpu_mask_format(c->mask, n);
	r = tfs_set(in, "tracing_cpumask", text);
	if (r)
		r = tr_fail(r, "cannot set tracing_cpumask to '%s': %s", text, strerror(-r));
	free(text);
	return r;
}

int setup_follow(struct tfs_inst *in, pid_t pid, bool children, const char *tracer)
{
	struct strv pids = { 0 };
	int r;

	strv_push_owned(&pids, xasprintf("%d", (int)pid));
	r = setup_pids(in, &pids, children, tracer);
	strv_free(&pids);
	return r;
}

int setup_pids(struct tfs_inst *in, const struct strv *pids, bool children, const char *tracer)
{
	char *list;
	int r;

	if (!pids || !pids->n)
		return 0;
	list = join(pids);
	r = tfs_set(in, "set_event_pid", list);
	if (r)
		r = tr_fail(r, "cannot set set_event_pid to '%s': %s", list, strerror(-r));
	if (!r && children) {
		r = tfs_set(in, "options/event-fork", "1");
		if (r)
			r = tr_fail(r, "cannot set option event-fork: %s", strerror(-r));
	}
	if (!r && function_tracer(tracer)) {
		/* Some hosts refuse the function pid filter: say so, keep going. */
		if (tfs_set(in, "set_ftrace_pid", list))
			tr_warn("set_ftrace_pid refused (%s): the function tracer records every pid",
				tr_detail() ? tr_detail() : "not permitted");
		else if (children && tfs_set(in, "options/function-fork", "1"))
			tr_warn("option function-fork refused: function tracing will not follow "
				"children");
	}
	free(list);
	return r;
}

enum topt_kind { TOPT_US, TOPT_CPULIST, TOPT_CPUMASK, TOPT_MODE };

static const struct {
	const char *tracers;	/* space-separated */
	const char *key, *file;
	enum topt_kind kind;
} topts[] = {
	{ "hwlat", "width", "hwlat_detector/width", TOPT_US },
	{ "hwlat", "window", "hwlat_detector/window", TOPT_US },
	{ "hwlat", "threshold", "tracing_thresh", TOPT_US },
	/* hwlat's kthread moves over tracing_cpumask's CPUs. */
	{ "hwlat", "cpus", "tracing_cpumask", TOPT_CPUMASK },
	{ "hwlat", "mode", "hwlat_detector/mode", TOPT_MODE },
	{ "osnoise timerlat", "cpus", "osnoise/cpus", TOPT_CPULIST },
	{ "osnoise", "period", "osnoise/period_us", TOPT_US },
	{ "osnoise", "runtime", "osnoise/runtime_us", TOPT_US },
	{ "timerlat", "period", "osnoise/timerlat_period_us", TOPT_US },
	{ "osnoise timerlat", "stop_tracing", "osnoise/stop_tracing_us", TOPT_US },
	{ "osnoise timerlat", "stop_tracing_total", "osnoise/stop_tracing_total_us", TOPT_US },
	{ "osnoise", "threshold", "tracing_thresh", TOPT_US },
	{ "timerlat", "print_stack", "osnoise/print_stack", TOPT_US },
};

static char *topt_keys(const char *tracer)
{
	char *out = xstrdup("");

	for (size_t i = 0; i < ARRAY_SIZE(topts); i++) {
		if (!word_in(topts[i].tracers, tracer))
			continue;
		char *x = xasprintf("%s%s%s", out, *out ? ", " : "", topts[i].key);

		free(out);
		out = x;
	}
	return out;
}

int setup_tracer_opt(const char *tracer, const char *kv, const char **file, char **value)
{
	const char *eq = strchr(kv, '='), *v = eq ? eq + 1 : NULL;
	size_t kn = eq ? (size_t)(eq - kv) : strlen(kv);
	char *keys = tracer ? topt_keys(tracer) : NULL;
	int r = 0;

	*file = NULL;
	*value = NULL;
	if (!keys || !*keys) {
		free(keys);
		return tr_fail(-EINVAL, "--tracer-opt '%s' goes with -p hwlat, osnoise or timerlat",
			       kv);
	}
	for (size_t i = 0; i < ARRAY_SIZE(topts); i++) {
		uint64_t ns, mask[64];

		if (strlen(topts[i].key) != kn || strncmp(kv, topts[i].key, kn) ||
		    !word_in(topts[i].tracers, tracer))
			continue;
		free(keys);
		if (!v || !*v)
			return tr_fail(-EINVAL, "--tracer-opt '%s' needs a value: %.*s=VALUE", kv,
				       (int)kn, kv);
		switch (topts[i].kind) {
		case TOPT_US:
			/* A bare number is microseconds, as the files take it. */
			if (!parse_u64(v, &ns))
				ns *= 1000;
			else if (parse_duration(v, &ns) || ns % 1000)
				return tr_fail(-EINVAL, "bad %s '%s' for %s (microseconds, or with a "
					       "unit: 500us, 2ms, 1s)", topts[i].key, v, tracer);
			*value = xasprintf("%llu", (unsigned long long)(ns / 1000));
			break;
		case TOPT_CPULIST:
		case TOPT_CPUMASK:
			if (parse_cpu_list(v, mask, 4096))
				return tr_fail(-EINVAL, "bad cpus '%s' for %s (a list: 0-3,5)", v,
					       tracer);
			if (topts[i].kind == TOPT_CPULIST) {
				*value = xstrdup(v);
				break;
			}
			/* tracing_cpumask: hex, in comma-separated 32-bit words, high first. */
			int top = 127;

			while (top > 0 && !((mask[top / 2] >> (32 * (top % 2))) & 0xffffffffu))
				top--;
			*value = xstrdup("");
			for (int w = top; w >= 0; w--) {
				char *x = xasprintf("%s%s%08x", *value, w == top ? "" : ",",
						    (unsigned)((mask[w / 2] >> (32 * (w % 2))) &
							       0xffffffffu));

				free(*value);
				*value = x;
			}
			break;
		case TOPT_MODE:
			if (strcmp(v, "none") && strcmp(v, "round-robin") && strcmp(v, "per-cpu"))
				return tr_fail(-EINVAL, "bad hwlat mode '%s' (none, round-robin or "
					       "per-cpu)", v);
			*value = xstrdup(v);
			break;
		}
		*file = topts[i].file;
		return 0;
	}
	r = tr_fail(-EINVAL, "%s has no setting '%.*s' (%s)", tracer, (int)kn, kv, keys);
	free(keys);
	return r;
}

/*
 * --notrace-pid: events always (set_event_notrace_pid); functions through
 * set_ftrace_notrace_pid, which some hosts refuse.  With a function tracer
 * that refusal fails the set-up; with only events it does not matter, so
 * it is a note.
 */
static int setup_notrace_pids(struct tfs_inst *in, const struct strv *pids, const char *tracer)
{
	char *list;
	int r;

	if (!pids->n)
		return 0;
	list = join(pids);
	r = tfs_set(in, "set_event_notrace_pid", list);
	if (r)
		r = tr_fail(r, "cannot set set_event_notrace_pid to '%s': %s", list, strerror(-r));
	if (!r && tfs_exists(in, "set_ftrace_notrace_pid") &&
	    (r = tfs_set(in, "set_ftrace_notrace_pid", list))) {
		if (function_tracer(tracer)) {
			r = tr_fail(r, "cannot set set_ftrace_notrace_pid to '%s': %s", list,
				    tr_detail() ? tr_detail() : strerror(-r));
		} else {
			tr_warn("set_ftrace_notrace_pid refused (%s): skipped, only events are "
				"selected", tr_detail() ? tr_detail() : strerror(-r));
			r = 0;
		}
	}
	free(list);
	return r;
}

/*
 * The latency tracer's settings, checked against the files this kernel has
 * before any is written.  Two pairs constrain each other (width < window,
 * runtime <= period), so a write the kernel refuses is tried again once the
 * others are in; the undo list then puts them back in the order that works.
 */
static int apply_tracer_opts(const struct tr_setup *s)
{
	const char *files[64];
	char *values[64] = { 0 };
	bool done[64] = { 0 };
	size_t n = s->tracer_opts.n < 64 ? s->tracer_opts.n : 64;
	int r = 0;

	for (size_t i = 0; i < n && !r; i++) {
		r = setup_tracer_opt(s->tracer, s->tracer_opts.v[i], &files[i], &values[i]);
		if (!r && !tfs_exists(NULL, files[i]))
			r = tr_fail(-EOPNOTSUPP, "this kernel has no %s (for --tracer-opt '%s')",
				    files[i], s->tracer_opts.v[i]);
	}
	for (int pass = 0; pass < 2 && !r; pass++) {
		for (size_t i = 0; i < n && !r; i++) {
			int w;

			if (done[i])
				continue;
			w = tfs_set(NULL, files[i], values[i]);
			if (!w)
				done[i] = true;
			else if (w != -EINVAL || pass == 1)
				r = tr_fail(w, "cannot set %s to %s (--tracer-opt '%s'): %s%s", files[i],
					    values[i], s->tracer_opts.v[i], strerror(-w),
					    w == -EINVAL && (strstr(files[i], "width") ||
							     strstr(files[i], "window") ||
							     strstr(files[i], "runtime") ||
							     strstr(files[i], "period_us"))
						    ? " (the kernel keeps width below window and "
						      "runtime at most period)"
						    : "");
		}
	}
	for (size_t i = 0; i < n; i++)
		free(values[i]);
	return r;
}

/* The trace categories act_mask takes by name (blktrace.c's mask_maps). */
static const char *const blk_cats[] = { "read", "write", "flush", "sync", "queue", "requeue",
					"issue", "complete", "fs", "pc", "notify", "ahead",
					"meta", "discard", "drv_data", "fua" };

int setup_blk_mask_check(const char *mask)
{
	char *copy = xstrdup(mask), *tok, *save = NULL;
	int r = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !r; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(blk_cats) && strcmp(tok, blk_cats[i]); i++)
			;
		if (i == ARRAY_SIZE(blk_cats))
			r = tr_fail(-EINVAL, "bad --blk-mask category '%s' (read, write, flush, sync, "
					     "queue, requeue, issue, complete, fs, pc, notify, ahead, "
					     "meta, discard, drv_data, fua)", tok);
	}
	if (!r && !strpbrk(mask, "abcdefghijklmnopqrstuvwxyz"))
		r = tr_fail(-EINVAL, "bad --blk-mask '%s': give category names", mask);
	free(copy);
	return r;
}

/* A block device's name: "/dev/" taken off; NULL for one with a '/' left in it. */
static const char *blk_name(const char *dev)
{
	if (!strncmp(dev, "/dev/", 5))
		dev += 5;
	return *dev && !strchr(dev, '/') && strcmp(dev, ".") && strcmp(dev, "..") ? dev : NULL;
}

/*
 * The blk tracer records only devices whose trace/enable is set: set it for
 * each one named (and act_mask), through the undo table.  Without any, say
 * so when no device has it set already: the tracer would trace nothing.
 */
static int setup_blk(const struct tr_setup *s)
{
	int r = 0;

	for (size_t i = 0; !r && i < s->blk_devs.n; i++) {
		const char *name = blk_name(s->blk_devs.v[i]);
		char *dir = xasprintf("/sys/class/block/%s/trace", name ? name : "?"),
		     *f = xasprintf("%s/enable", dir);

		if (!name || access(f, F_OK))
			r = tr_fail(-ENOENT, "no block device '%s' to trace (%s missing)",
				    s->blk_devs.v[i], f);
		else if ((r = tfs_set_path(f, "1")))
			r = tr_fail(r, "cannot enable blk tracing of '%s': %s", s->blk_devs.v[i],
				    strerror(-r));
		free(f);
		if (!r && s->blk_mask) {
			f = xasprintf("%s/act_mask", dir);
			r = tfs_set_path(f, s->blk_mask);
			if (r)
				r = tr_fail(r, "cannot set act_mask of '%s' to '%s': %s",
					    s->blk_devs.v[i], s->blk_mask, strerror(-r));
			free(f);
		}
		free(dir);
	}
	if (!r && !s->blk_devs.n) {
		glob_t g;
		bool any = false;

		if (!glob("/sys/class/block/*/trace/enable", 0, NULL, &g))
			for (size_t i = 0; i < g.gl_pathc && !any; i++) {
				FILE *fp = fopen(g.gl_pathv[i], "re");

				if (fp) {
					any = fgetc(fp) == '1';
					fclose(fp);
				}
			}
		globfree(&g);
		if (!any)
			tr_warn("the blk tracer traces only block devices whose trace/enable is "
				"set, and none is: name them with --blk-dev DEV");
	}
	return r;
}

/*
 * trace_printk_dest is one instance's at a time: setting it in another
 * clears it where it was, and clearing it again hands it to the top level,
 * not back.  So the holder's own flag is saved, to be set again at exit
 * (after ours is put back, newest first).
 */
static int save_printk_dest(const struct tfs_inst *in)
{
	struct strv names = { 0 };
	struct tfs_inst *holder = NULL;
	char *v = NULL;
	int r = 0;

	if (!in->name)
		return 0;
	if (!tfs_read(tfs_top(), "options/trace_printk_dest", &v) && v[0] == '1')
		holder = tfs_top();
	free(v);
	if (!holder && !tfs_inst_list(&names))
		for (size_t i = 0; i < names.n && !holder; i++) {
			struct tfs_inst *x;

			v = NULL;
			if (!tfs_inst_get(names.v[i], false, &x) &&
			    !tfs_read(x, "options/trace_printk_dest", &v) && v[0] == '1')
				holder = x;
			free(v);
		}
	if (holder && holder != in)
		r = tfs_save(holder, "options/trace_printk_dest");
	strv_free(&names);
	return r;
}

int setup_apply(struct tfs_inst *in, const struct tr_setup *s)
{
	struct strv optfiles = { 0 };
	char kb[32];
	int r = 0;

	/* Validate what can be checked without writing. */
	if (s->tracer)
		r = check_tracer(in, s->tracer);
	if (!r && s->clock)
		r = check_clock(in, s->clock);
	for (size_t i = 0; !r && i < s->options.n; i++) {
		char *file;

		r = check_option(in, s->options.v[i], &file);
		if (!r)
			strv_push_owned(&optfiles, file);
	}

	/* Before -b: a new sub-buffer size allocates the buffer anew. */
	if (!r && s->subbuf_kb) {
		snprintf(kb, sizeof(kb), "%llu", (unsigned long long)s->subbuf_kb);
		if (!tfs_exists(in, "buffer_subbuf_size_kb"))
			r = tr_fail(-EOPNOTSUPP, "this kernel cannot change the sub-buffer size "
				    "(buffer_subbuf_size_kb: Linux 6.8 has it)");
		/* The kernel sizes the buffer anew too: put buffer_size_kb back after it. */
		else if ((r = tfs_save(in, "buffer_size_kb")) ||
			 (r = tfs_set(in, "buffer_subbuf_size_kb", kb)))
			r = tr_fail(r, "cannot set the sub-buffer size to %s KiB: %s", kb,
				    r == -EINVAL ? "the kernel takes up to 128 pages (512 KiB "
				    "with 4 KiB pages)" : strerror(-r));
	}
	if (!r && s->buffer_kb) {
		char *file = s->has_buffer_cpu ? xasprintf("per_cpu/cpu%d/buffer_size_kb",
							   s->buffer_cpu)
					       : xstrdup("buffer_size_kb");

		snprintf(kb, sizeof(kb), "%llu", (unsigned long long)s->buffer_kb);
		if (s->has_buffer_cpu && !tfs_exists(in, file))
			r = tr_fail(-ENOENT, "no CPU %d on this machine (%s missing)", s->buffer_cpu,
				    file);
		else if ((r = tfs_set(in, file, kb)))
			r = tr_fail(r, "cannot set %s to %s KiB: %s", file, kb, strerror(-r));
		free(file);
	}
	if (!r)
		r = setup_cpus(in, &s->cpus);
	if (!r && s->cmdlines_size) {
		snprintf(kb, sizeof(kb), "%llu", (unsigned long long)s->cmdlines_size);
		r = tfs_set(NULL, "saved_cmdlines_size", kb);
		if (r)
			r = tr_fail(r, "cannot set saved_cmdlines_size to %s: %s", kb,
				    tr_detail() ? tr_detail() : strerror(-r));
	}
	if (!r && s->clock) {
		r = tfs_set(in, "trace_clock", s->clock);
		if (r)
			r = tr_fail(r, "cannot set clock '%s': %s", s->clock, strerror(-r));
	}
	for (size_t i = 0; !r && i < optfiles.n; i++) {
		const char *opt = s->options.v[i];
		bool off = !strncmp(opt, "no", 2) && strcmp(strrchr(optfiles.v[i], '/') + 1, opt);

		if (!off && !strcmp(optfiles.v[i], "options/trace_printk_dest"))
			r = save_printk_dest(in);
		if (!r)
			r = tfs_set(in, optfiles.v[i], off ? "0" : "1");
		if (r)
			r = tr_fail(r, "cannot set option '%s': %s", opt, strerror(-r));
	}
	if (!r)
		r = apply_function_filters(in, s);
	if (!r && s->has_max_graph_depth) {
		snprintf(kb, sizeof(kb), "%d", s->max_graph_depth);
		r = tfs_set(in, "max_graph_depth", kb);
		if (r)
			r = tr_fail(r, "cannot set max_graph_depth: %s", strerror(-r));
	}
	if (!r && s->has_thresh) {
		snprintf(kb, sizeof(kb), "%ld", s->thresh_us);
		r = tfs_set(in, "tracing_thresh", kb);
		if (r)
			r = tr_fail(r, "cannot set tracing_thresh: %s", strerror(-r));
	}
	if (!r)
		r = setup_events(in, s->events);
	for (size_t i = 0; !r && i < s->triggers.n; i++) {
		char *sys, *ev, *trig;

		r = trig_split_event(s->triggers.v[i], &sys, &ev, &trig);
		if (r)
			break;
		r = trig_add(in, sys, ev, trig);
		free(sys);
		free(ev);
		free(trig);
	}
	/* Before the tracer starts: it reads its settings when it does. */
	if (!r && s->tracer_opts.n)
		r = apply_tracer_opts(s);
	if (!r && s->tracer) {
		r = tfs_set(in, "current_tracer", s->tracer);
		if (r)
			r = tr_fail(r, "cannot select tracer '%s': %s", s->tracer, strerror(-r));
	}
	if (!r && s->tracer && !strcmp(s->tracer, "blk"))
		r = setup_blk(s);
	/* A tracer's own options exist for the tracer: set after selecting it. */
	if (!r && s->func_stack) {
		r = tfs_set(in, "options/func_stack_trace", "1");
		if (r)
			r = tr_fail(r, "cannot set func_stack_trace: %s", strerror(-r));
	}
	if (!r)
		r = setup_pids(in, &s->pids, s->children, s->tracer);
	if (!r)
		r = setup_notrace_pids(in, &s->notrace_pids, s->tracer);
	strv_free(&optfiles);
	return r;
}

void setup_free(struct tr_setup *s)
{
	strv_free(&s->options);
	strv_free(&s->triggers);
	strv_free(&s->ftrace_filter);
	strv_free(&s->ftrace_notrace);
	strv_free(&s->graph_function);
	strv_free(&s->graph_notrace);
	strv_free(&s->pids);
	strv_free(&s->notrace_pids);
	strv_free(&s->tracer_opts);
	strv_free(&s->blk_devs);
}

bool setup_latency_tracer(const char *tracer)
{
	static const char *const names[] = {
		"irqsoff", "preemptoff", "preemptirqsoff", "wakeup", "wakeup_rt", "wakeup_dl",
	};

	for (size_t i = 0; tracer && i < ARRAY_SIZE(names); i++)
		if (!strcmp(tracer, names[i]))
			return true;
	return false;
}

int setup_max_latency_reset(struct tfs_inst *in, const char *tracer)
{
	int r;

	if (!setup_latency_tracer(tracer))
		return 0;
	r = tfs_write(in, "tracing_max_latency", "0", false);
	return r ? tr_fail(r, "cannot reset tracing_max_latency: %s", strerror(-r)) : 0;
}

/*
 * The stack of a switch is wanted only where the task blocks (prev_state
 * has a state bit; 0 and 0x100 are preemptions), and a trigger with a
 * filter writes it after the event, where the profile looks for it.
 */
int setup_profile(struct evsel_list *events, struct tr_setup *s)
{
	static const char *const always[] = { "sched:sched_switch", "sched:sched_wakeup",
					      "raw_syscalls:sys_enter", "raw_syscalls:sys_exit" };
	static const char *const faults[] = { "page_fault_user", "page_fault_kernel" };
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(always) && !r; i++)
		r = evsel_add(events, always[i]);
	for (size_t i = 0; i < ARRAY_SIZE(faults) && !r; i++) {
		char *path = xasprintf("events/exceptions/%s", faults[i]);
		char *sel = xasprintf("exceptions:%s", faults[i]);

		if (tfs_exists(NULL, path))
			r = evsel_add(events, sel);
		free(path);
		free(sel);
	}
	if (!r)
		strv_push(&s->triggers, "sched:sched_switch:stacktrace if prev_state & 255");
	return r;
}
