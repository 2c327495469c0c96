// SPDX-License-Identifier: GPL-2.0-or-later
/* The event selector parser and its resolution against an event list. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evsel.h"
#include "unit.h"

static const char *const events[] = {
	"irq:irq_handler_entry", "irq:irq_handler_exit", "sched:sched_switch",
	"sched:sched_wakeup",	 "sched:sched_waking",	 "syscalls:sys_enter_read",
	"ftrace:print",		 "sched:sched_process_exec",
};

static void load(struct strv *sv)
{
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		strv_push(sv, events[i]);
	strv_sort(sv);
}

/* Resolve specs, return the matches joined by spaces (or "ERR"). */
static char *resolve(const char *const *specs, size_t n, const char *filter)
{
	struct evsel_list l = { 0 };
	struct strv sv = { 0 };
	struct evmatch *m;
	size_t nm;
	char *out = xstrdup("");

	load(&sv);
	for (size_t i = 0; i < n; i++)
		if (evsel_add(&l, specs[i]))
			goto err;
	if (filter && evsel_add_filter(&l, filter))
		goto err;
	if (evsel_resolve(&l, &sv, &m, &nm))
		goto err;
	for (size_t i = 0; i < nm; i++) {
		char *t = xasprintf("%s%s%s:%s%s", out, *out ? " " : "", m[i].system, m[i].event,
				    m[i].filter ? "[f]" : "");
		free(out);
		out = t;
	}
	evmatch_free(m, nm);
	goto done;
err:
	free(out);
	out = xstrdup("ERR");
done:
	evsel_list_free(&l);
	strv_free(&sv);
	return out;
}

#define RESOLVES(expect, filter, ...)                                                  \
	do {                                                                           \
		const char *const s_[] = { __VA_ARGS__ };                              \
		char *got_ = resolve(s_, sizeof(s_) / sizeof(s_[0]), filter);          \
		CHECK_STR(got_, expect);                                               \
		free(got_);                                                            \
	} while (0)

TEST(parse_forms)
{
	struct evsel e;

	CHECK(evsel_parse("sched:sched_switch", &e) == 0);
	CHECK_STR(e.system, "sched");
	CHECK_STR(e.event, "sched_switch");
	CHECK(!e.bare);
	free(e.spec), free(e.system), free(e.event);

	CHECK(evsel_parse("sched/sched_switch", &e) == 0);
	CHECK_STR(e.event, "sched_switch");
	free(e.spec), free(e.system), free(e.event);

	CHECK(evsel_parse("sched:*", &e) == 0 && e.event == NULL);
	free(e.spec), free(e.system);

	CHECK(evsel_parse("all", &e) == 0 && !e.system && !e.event && !e.bare);
	free(e.spec);

	CHECK(evsel_parse("sched", &e) == 0 && e.bare);
	free(e.spec), free(e.system);

	CHECK(evsel_parse(":sched_switch", &e) == 0 && !e.system);
	free(e.spec), free(e.event);
}

TEST(parse_rejects)
{
	struct evsel e;

	CHECK(evsel_parse("", &e) == -EINVAL);
	CHECK(evsel_parse(":", &e) == -EINVAL);
	CHECK(evsel_parse("a:b:c", &e) == -EINVAL);
	CHECK(evsel_parse("sched switch", &e) == -EINVAL);
	CHECK(evsel_parse("sched:sw;itch", &e) == -EINVAL);
	CHECK_STR(tr_failure(), "bad event selector 'sched:sw;itch'");
}

TEST(resolve_exact_and_globs)
{
	RESOLVES("sched:sched_switch", NULL, "sched:sched_switch");
	RESOLVES("sched:sched_wakeup sched:sched_waking", NULL, "sched:sched_wak*");
	RESOLVES("irq:irq_handler_entry irq:irq_handler_exit", NULL, "irq");
	RESOLVES("sched:sched_switch", NULL, "sched_switch");	/* bare event name */
	RESOLVES("irq:irq_handler_entry sched:sched_wakeup", NULL, "*:*entry", "sched_wakeup");
	RESOLVES("syscalls:sys_enter_read", NULL, "sys*:*read");
}

TEST(resolve_all_dedup_and_filter)
{
	char *all = resolve((const char *const[]){ "all" }, 1, NULL);

	CHECK(!strcmp(all, "ftrace:print irq:irq_handler_entry irq:irq_handler_exit "
			   "sched:sched_process_exec sched:sched_switch sched:sched_wakeup "
			   "sched:sched_waking syscalls:sys_enter_read"));
	free(all);
	/* The same event twice is enabled once; the filter follows its -e. */
	RESOLVES("sched:sched_switch[f]", "prev_pid == 1", "sched:sched_switch", "sched:sched_switch");
	RESOLVES("sched:sched_switch sched:sched_wakeup[f]", "pid == 1", "sched:sched_switch",
		 "sched:sched_wakeup");
}

TEST(resolve_unknown_names_it)
{
	RESOLVES("ERR", NULL, "sched:sched_switch", "sched:nosuch");
	CHECK_STR(tr_failure(), "no such event 'sched:nosuch'");
	RESOLVES("ERR", NULL, "nosys");
	CHECK_STR(tr_failure(), "no such event 'nosys'");
}

TEST(filter_needs_event)
{
	struct evsel_list l = { 0 };

	CHECK(evsel_add_filter(&l, "pid == 1") == -EINVAL);
	CHECK_STR(tr_failure(), "filter 'pid == 1' must follow an -e event");
	CHECK(evsel_add(&l, "sched") == 0);
	CHECK(evsel_add_filter(&l, "a") == 0);
	CHECK(evsel_add_filter(&l, "b") == -EINVAL);
	evsel_list_free(&l);
}

/* user:NAME is the user event NAME in every format: user_events and user_events_multi. */
TEST(user_selector_every_format)
{
	static const char *const avail[] = {
		"user_events:build_log", "user_events:build", "user_events_multi:build_log.0",
		"user_events_multi:build_log.1f", "user_events_multi:build_log.x",
		"user_events_multi:build_logger.2", "sched:build_log",
	};
	struct strv sv = { 0 };
	struct evsel_list l = { 0 };
	struct evmatch *m;
	size_t n;

	for (size_t i = 0; i < sizeof(avail) / sizeof(avail[0]); i++)
		strv_push(&sv, avail[i]);
	CHECK(evsel_add(&l, "user:build_log") == 0);
	CHECK(l.v[0].user && !l.v[0].system && !strcmp(l.v[0].event, "build_log"));
	CHECK(evsel_resolve(&l, &sv, &m, &n) == 0);
	CHECK(n == 3);
	if (n == 3) {
		CHECK(!strcmp(m[0].system, "user_events") && !strcmp(m[0].event, "build_log"));
		CHECK(!strcmp(m[1].system, "user_events_multi") && !strcmp(m[1].event, "build_log.0"));
		CHECK(!strcmp(m[2].system, "user_events_multi") && !strcmp(m[2].event, "build_log.1f"));
	}
	evmatch_free(m, n);
	evsel_list_free(&l);
	/* Globs work on the name; user:nosuch names itself. */
	CHECK(evsel_add(&l, "user:build*") == 0);
	CHECK(evsel_resolve(&l, &sv, &m, &n) == 0 && n == 5);
	evmatch_free(m, n);
	evsel_list_free(&l);
	CHECK(evsel_add(&l, "user:nosuch") == 0);
	CHECK(evsel_resolve(&l, &sv, &m, &n) == -ENOENT);
	CHECK_STR(tr_failure(), "no such event 'user:nosuch'");
	evsel_list_free(&l);
	strv_free(&sv);
}

/* record -i: what matches nothing goes, with its spec said; filters and ftrace stay. */
TEST(keep_existing)
{
	struct evsel_list l = { 0 };
	struct strv sv = { 0 }, dropped = { 0 };

	load(&sv);
	CHECK(evsel_add(&l, "sched:sched_switch") == 0);
	CHECK(evsel_add_filter(&l, "prev_pid != 0") == 0);
	CHECK(evsel_add(&l, "sched:nosuch") == 0);
	CHECK(evsel_add(&l, "ftrace:function") == 0);
	CHECK(evsel_add(&l, "irq:*") == 0);
	CHECK(evsel_add(&l, "nosys") == 0);
	evsel_keep_existing(&l, &sv, &dropped);
	CHECK(l.n == 3);
	if (l.n == 3) {
		CHECK_STR(l.v[0].spec, "sched:sched_switch");
		CHECK_STR(l.v[0].filter, "prev_pid != 0");
		CHECK_STR(l.v[1].spec, "ftrace:function");
		CHECK_STR(l.v[2].spec, "irq:*");
		CHECK(!l.v[2].filter);
	}
	CHECK(dropped.n == 2);
	if (dropped.n == 2) {
		CHECK_STR(dropped.v[0], "sched:nosuch");
		CHECK_STR(dropped.v[1], "nosys");
	}
	strv_free(&dropped);
	/* Nothing left: an empty list, no error of its own. */
	evsel_keep_existing(&l, &(struct strv){ 0 }, &dropped);
	CHECK(l.n == 1 && !strcmp(l.v[0].spec, "ftrace:function") && dropped.n == 2);
	evsel_list_free(&l);
	strv_free(&dropped);
	strv_free(&sv);
}

UNIT_MAIN(T(parse_forms), T(parse_rejects), T(resolve_exact_and_globs),
	  T(resolve_all_dedup_and_filter), T(resolve_unknown_names_it), T(filter_needs_event),
	  T(user_selector_every_format), T(keep_existing))
