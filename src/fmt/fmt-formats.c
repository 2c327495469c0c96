// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Do event formats parse?  Each format text goes through libtraceevent in a
 * handle of its own, the way tr report and tr stream will read it: a format
 * that does not parse loses the event (it prints as [unknown]); one whose
 * fields parse but whose print fmt does not prints its fields raw.  Behind
 * tr check-events, for the running kernel's formats or a trace file's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt.h"
#include "tfile.h"

/* The event name a format text declares ("name: sched_switch"), or "?". */
static char *format_name(const char *text)
{
	const char *p = strstr(text, "name:");
	size_t n;

	if (!p)
		return xstrdup("?");
	p += 5;
	while (*p == ' ' || *p == '\t')
		p++;
	n = strcspn(p, " \t\n");
	return n ? xasprintf("%.*s", (int)n, p) : xstrdup("?");
}

int fmt_try_parse_formats(const struct strv *formats, const struct fmt_try_parse_opts *o,
			  struct fmt_try_parse_result *res)
{
	struct tep_handle *tep = tfile_tep_new(&(struct tfile_tep_opts){
		.big_endian = o->big_endian, .long_size = o->long_size });

	memset(res, 0, sizeof(*res));
	if (!tep)
		return tr_fail(-ENOMEM, "cannot allocate a libtraceevent handle");
	tep_set_loglevel(TEP_LOG_NONE);
	if (o->plugins)
		res->plugins = tep_load_plugins(tep);
	for (size_t i = 0; i < formats->n; i++) {
		const char *nl = strchr(formats->v[i], '\n');
		char *sys = nl ? xasprintf("%.*s", (int)(nl - formats->v[i]), formats->v[i])
			       : xstrdup("?");
		const char *text = nl ? nl + 1 : formats->v[i];
		char *name = format_name(text), *why = NULL;
		enum tep_errno e = tep_parse_event(tep, text, strlen(text), sys);
		struct tep_event *ev;

		res->total++;
		if (e) {
			char msg[256] = "";

			tep_strerror(tep, e, msg, sizeof(msg));
			why = xasprintf("the format does not parse (%s): the event prints as "
					"[unknown]", *msg ? msg : "error");
		} else if ((ev = tep_find_event_by_name(tep, sys, name)) &&
			   (ev->flags & TEP_EVENT_FL_FAILED)) {
			why = xstrdup("its print fmt does not parse: the event prints its fields "
				      "as name=value");
		}
		if (why) {
			strv_push_owned(&res->bad, xasprintf("%s:%s: %s", sys, name, why));
			free(why);
		}
		free(name);
		free(sys);
	}
	if (res->plugins)
		tep_unload_plugins(res->plugins, tep);
	res->plugins = NULL;
	tep_free(tep);
	return 0;
}

void fmt_try_parse_result_free(struct fmt_try_parse_result *res)
{
	strv_free(&res->bad);
}
