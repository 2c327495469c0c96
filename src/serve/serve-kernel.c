// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The default counters counted by the kernel (serve-local.h): one hist
 * trigger per event in tr serve's instance, keyed by what the metric is
 * labelled by (a syscall's number, a CPU, an irq and its name, a softirq's
 * vector), read at each scrape.  Each row's growth since the last scrape
 * goes to the aggregator (serve_agg_count()), so the families, their
 * labels and their folding into "other" are those of the count in user
 * space, and the counts are exact even when the ring buffer loses events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "serve-local.h"
#include "tr.h"

struct kcount {
	const char *sysev, *keys, *filter;
	enum serve_count what;
	bool timed;		/* its records are still read, to time what it starts or ends */
};

static const struct kcount kcounts[] = {
	{ "raw_syscalls:sys_enter", "id", NULL, SERVE_CNT_SYSCALL, true },
	{ "raw_syscalls:sys_exit", "id", "ret < 0 && ret >= -4095", SERVE_CNT_SYSCALL_ERR, true },
	{ "sched:sched_switch", "common_cpu", NULL, SERVE_CNT_SWITCH, true },
	{ "exceptions:page_fault_user", "common_cpu", NULL, SERVE_CNT_FAULT_USER, false },
	{ "exceptions:page_fault_kernel", "common_cpu", NULL, SERVE_CNT_FAULT_KERNEL, false },
	{ "irq:irq_handler_entry", "irq,name", NULL, SERVE_CNT_IRQ, true },
	{ "irq:softirq_entry", "vec", NULL, SERVE_CNT_SOFTIRQ, true },
};
#define NK ARRAY_SIZE(kcounts)
_Static_assert(NK == SERVE_KERN_N, "serve-local.h's SERVE_KERN_N is the tables' number");

/* A row's count at the last scrape, by (what, key). */
struct seen {
	uint64_t tag;
	uint64_t n;
};

struct serve_kern {
	struct tfs_inst *in;
	struct hist_spec spec[NK];
	bool on[NK];
	struct htab seen;
};

bool serve_kern_replaces(const char *sysev)
{
	for (size_t i = 0; i < NK; i++)
		if (!strcmp(kcounts[i].sysev, sysev))
			return !kcounts[i].timed;
	return false;
}

int serve_kern_new(struct tfs_inst *in, const struct strv *avail, struct serve_kern **out)
{
	struct serve_kern *k = xcalloc(1, sizeof(*k));
	int r = 0;

	k->in = in;
	htab_init(&k->seen, sizeof(struct seen), 0, 0);
	for (size_t i = 0; !r && i < NK; i++) {
		if (!strv_contains(avail, kcounts[i].sysev))
			continue;
		r = hist_spec_build(&k->spec[i], kcounts[i].sysev, kcounts[i].keys, NULL, NULL,
				    kcounts[i].filter, 0, NULL);
		if (!r)
			r = hist_kernel_add(in, &k->spec[i]);
		k->on[i] = !r;
	}
	if (r) {
		serve_kern_free(k);
		return r;
	}
	*out = k;
	return 0;
}

void serve_kern_read(struct serve_kern *k, struct serve_kern_tables *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < NK; i++) {
		char *text = NULL;

		/* A table that cannot be read now counts at the next scrape. */
		if (k->on[i] &&
		    !hist_kernel_read(k->in, k->spec[i].system, k->spec[i].event, &text) &&
		    !hist_kernel_ours(text, &k->spec[i], &t->res[i]))
			t->ok[i] = true;
		free(text);
	}
}

void serve_kern_set(struct serve_kern *k, struct serve_agg *a, const struct serve_kern_tables *t)
{
	for (size_t i = 0; i < NK; i++) {
		const struct hist_result *res = &t->res[i];

		if (!t->ok[i] || res->ncols <= res->nkeys)
			continue;
		for (size_t row = 0; row < res->nrows; row++) {
			const struct hist_cell *key = hist_cell(res, row, 0);
			const struct hist_cell *name = res->nkeys > 1 ? hist_cell(res, row, 1) : NULL;
			uint64_t hits = hist_cell(res, row, res->nkeys)->num;
			uint64_t id = ((uint64_t)kcounts[i].what << 56) ^ (key->num & ((1ULL << 56) - 1));
			struct seen *sn;

			htab_reserve(&k->seen, 1);
			sn = htab_get(&k->seen, id, NULL);
			if (hits > sn->n)
				serve_agg_count(a, kcounts[i].what, (int64_t)key->num,
						name ? name->text : NULL, hits - sn->n);
			sn->n = hits;
		}
	}
}

void serve_kern_tables_free(struct serve_kern_tables *t)
{
	for (size_t i = 0; i < NK; i++)
		hist_result_free(&t->res[i]);
}

void serve_kern_free(struct serve_kern *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < NK; i++)
		hist_spec_free(&k->spec[i]);
	htab_clear(&k->seen);
	free(k);
}
