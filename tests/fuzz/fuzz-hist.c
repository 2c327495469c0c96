// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: `tr hist -i FILE`, the userspace aggregator over a
 * trace.dat.  The hash of the input's tail picks an event the file
 * declares and a field of it as the key (strings, arrays and numbers alike,
 * with a modifier), hitcount or a number as the value, and sometimes a
 * filter, as a user would write them after reading `tr report --events`.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "hist.h"
#include "tfile.h"
#include "fuzz-common.h"

static const char *const mods[] = { "", ".hex", ".log2", ".buckets=10", ".execname", ".sym",
				    ".syscall", ".usecs" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	uint32_t h = fuzz_pick(data, size);
	struct hist_render_opts ro = { .kind = HIST_OUT_JSON };
	struct tep_event **list, *e;
	struct tep_format_field *f;
	struct hist_spec s = { 0 };
	struct tfile *tf;
	char sysev[256], key[160], *val = NULL;
	int n, i;

	tep_set_loglevel(TEP_LOG_CRITICAL);
	if (tfile_open(path, TFILE_NO_KALLSYMS, &tf))
		return 0;
	n = tep_get_events_count(tfile_tep(tf));
	list = tep_list_events(tfile_tep(tf), TEP_EVENT_SORT_ID);
	if (!n || !list) {
		tfile_close(tf);
		return 0;
	}
	e = list[h % n];
	snprintf(sysev, sizeof(sysev), "%s:%s", e->system, e->name);
	f = e->format.fields;
	for (i = (h >> 8) % 8; f && f->next && i; i--)
		f = f->next;
	if (f && !strchr(f->name, ',') && !strchr(f->name, ':'))
		snprintf(key, sizeof(key), "%s%s", f->name, (h >> 12) & 1 ? mods[(h >> 13) % 8] : "");
	else
		snprintf(key, sizeof(key), "common_pid");
	if ((h >> 16) & 1 && f && f->next && !(f->next->flags & TEP_FIELD_IS_ARRAY))
		val = f->next->name;
	if (!hist_spec_build(&s, sysev, key, val, NULL,
			     (h >> 17) & 1 ? "common_pid > 0" : NULL, 0, NULL)) {
		struct hist_result res = { 0 };

		if (!hist_user_file(&s, path, &res))
			hist_render(stdout, &res, &ro);
		hist_result_free(&res);
	}
	hist_spec_free(&s);
	tfile_close(tf);
	return 0;
}
