// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the spool's log of process maps (tfile_procmap_log_parse(),
 * what tr restore reads from a crashed recording's procmaps) and, over the
 * same bytes, one PROCMAPS option (tfile_procmap_parse(), what tr report
 * reads from a file).  What comes back must be what the parser promises:
 * each pid once, each map's mappings ascending and apart, and written again
 * as an option (tfw_opt_procmap()) the same map read back; lookups of the
 * input's own 8-byte words give what a scan of the mappings gives.  Its
 * corpus is regress/procmaps/ (tests/fuzz/make-procmaps-seeds.py).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "tfile.h"
#include "tfw.h"

static const struct tfile_vma *scan(const struct tfile_procmap *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->vmas[i].end > addr)
			return &m->vmas[i];
	return NULL;
}

static void check(const struct tfile_procmap *m, const uint8_t *data, size_t size)
{
	struct tfile_procmap back;
	struct tfw_opt o;
	char why[80];

	if (m->pid <= 0 || !m->exe)
		abort();
	for (size_t i = 0; i < m->n; i++)
		if (m->vmas[i].start >= m->vmas[i].end ||
		    (i && m->vmas[i].start < m->vmas[i - 1].end) || !m->vmas[i].name)
			abort();
	tfw_opt_procmap(&o, m);
	if (tfile_procmap_parse((const char *)o.data.data, o.data.len, &back, why, sizeof(why)))
		abort();
	if (back.pid != m->pid || strcmp(back.exe, m->exe) || back.n != m->n)
		abort();
	for (size_t i = 0; i < m->n; i++)
		if (back.vmas[i].start != m->vmas[i].start || back.vmas[i].end != m->vmas[i].end ||
		    strcmp(back.vmas[i].name, m->vmas[i].name))
			abort();
	tfile_procmap_free(&back);
	free(o.data.data);
	for (size_t i = 0; i + 8 <= size && i < 8 * 256; i += 8) {
		uint64_t v;

		memcpy(&v, data + i, 8);
		if (tfile_procmap_find(m, v) != scan(m, v) ||
		    tfile_procmap_find(m, v - 1) != scan(m, v - 1))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tfile_procmap *maps = NULL, one;
	size_t n = tfile_procmap_log_parse((const char *)data, size, &maps);
	char why[80];

	(void)fuzz_file;
	(void)fuzz_pick;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++)
			if (maps[j].pid == maps[i].pid)
				abort();
		check(&maps[i], data, size);
	}
	for (size_t i = 0; i < n; i++)
		tfile_procmap_free(&maps[i]);
	free(maps);
	if (!tfile_procmap_parse((const char *)data, size, &one, why, sizeof(why))) {
		check(&one, data, size);
		tfile_procmap_free(&one);
	}
	return 0;
}
