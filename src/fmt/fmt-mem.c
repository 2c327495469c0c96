// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr report --mem (trace-cmd's mem): the slab allocations of a recording
 * per call site.  Events are fed in time order; an allocation (kmalloc,
 * kmalloc_node, kmem_cache_alloc, kmem_cache_alloc_node) counts at its
 * call site with the bytes asked for and given, and is remembered by its
 * pointer until a free (kfree, kmem_cache_free) of that pointer, which
 * counts as a free of the allocating site.  What is never freed is still
 * allocated at the end; a free of a pointer allocated before the
 * recording counts apart.  Sites are grouped by function (the call site's
 * symbol), as trace-cmd prints them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt.h"
#include "hash.h"

struct mem_site {
	char *name;
	uint64_t allocs, req, alloc, frees, live, live_bytes;
};

/* hash.h's hashed table of sites by name. */
struct mem_name {
	uint64_t tag;		/* the name's hash */
	uint32_t site;		/* its index in sites */
};

/* hash.h's keyed table of live pointers: the key is ptr - 1 (never 0, so any ptr fits). */
struct mem_ptr {
	uint64_t ptr;		/* the tag */
	uint32_t site;
	uint64_t bytes;
};

struct fmt_mem {
	struct tep_handle *tep;
	struct mem_site *sites;
	size_t nsites;
	struct htab names;	/* struct mem_name */
	struct htab ptrs;	/* struct mem_ptr */
	uint64_t unknown_frees;
	int id_alloc[4], id_free[2];
};

static int event_id(struct tep_handle *tep, const char *name)
{
	struct tep_event *e = tep_find_event_by_name(tep, "kmem", name);

	return e ? e->id : -1;
}

struct fmt_mem *fmt_mem_new(struct tep_handle *tep)
{
	struct fmt_mem *m = xcalloc(1, sizeof(*m));
	static const char *const allocs[] = { "kmalloc", "kmalloc_node", "kmem_cache_alloc",
					      "kmem_cache_alloc_node" };

	m->tep = tep;
	for (int i = 0; i < 4; i++)
		m->id_alloc[i] = event_id(tep, allocs[i]);
	m->id_free[0] = event_id(tep, "kfree");
	m->id_free[1] = event_id(tep, "kmem_cache_free");
	htab_init(&m->names, sizeof(struct mem_name), 256, HTAB_HASHED);
	htab_init(&m->ptrs, sizeof(struct mem_ptr), 1024, 0);
	return m;
}

bool fmt_mem_has_events(const struct fmt_mem *m)
{
	for (int i = 0; i < 4; i++)
		if (m->id_alloc[i] >= 0)
			return true;
	return false;
}

static uint32_t site_of(struct fmt_mem *m, const char *name)
{
	uint64_t tag = htab_hash_str(name, 5381);
	struct mem_name *e;
	size_t i;

	htab_reserve(&m->names, 1);
	for (e = htab_first(&m->names, tag, &i); e->tag; e = htab_next(&m->names, tag, &i))
		if (!strcmp(m->sites[e->site].name, name))
			return e->site;
	e = htab_claim(&m->names, e, tag);
	e->site = m->nsites;
	m->sites = xrealloc(m->sites, (m->nsites + 1) * sizeof(*m->sites));
	m->sites[m->nsites] = (struct mem_site){ .name = xstrdup(name) };
	return m->nsites++;
}

static bool field(struct tep_event *e, const struct tfile_event *ev, const char *name,
		  unsigned long long *v)
{
	struct tep_format_field *f = tep_find_field(e, name);

	return f && f->offset >= 0 && f->size >= 0 &&
	       (uint64_t)f->offset + (uint64_t)f->size <= ev->size &&
	       !tep_read_number_field(f, ev->data, v);
}

void fmt_mem_event(struct fmt_mem *m, const struct tfile_event *ev)
{
	unsigned long long site, ptr, req = 0, got = 0;
	struct tep_event *e;
	struct mem_ptr *p;
	bool alloc = false, is_free = false, fresh;
	int id;

	if (ev->size < 2)
		return;
	id = tep_data_type(m->tep, &(struct tep_record){ .data = ev->data, .size = ev->size });
	for (int i = 0; i < 4; i++)
		alloc |= id == m->id_alloc[i] && id >= 0;
	for (int i = 0; i < 2; i++)
		is_free |= id == m->id_free[i] && id >= 0;
	if (!alloc && !is_free)
		return;
	e = tep_find_event(m->tep, id);
	if (!e || !field(e, ev, "call_site", &site) || !field(e, ev, "ptr", &ptr))
		return;
	if (is_free) {
		if (!ptr)
			return;	/* kfree(NULL) */
		p = htab_find(&m->ptrs, ptr - 1);
		if (!p) {
			m->unknown_frees++;
			return;
		}
		m->sites[p->site].frees++;
		m->sites[p->site].live--;
		m->sites[p->site].live_bytes -= p->bytes;
		htab_del(&m->ptrs, p);
		return;
	}
	field(e, ev, "bytes_req", &req);
	field(e, ev, "bytes_alloc", &got);
	{
		const char *fn = tep_find_function(m->tep, site);
		char hex[32];
		uint32_t s;

		if (!fn) {
			snprintf(hex, sizeof(hex), "0x%llx", site);
			fn = hex;
		}
		s = site_of(m, fn);
		m->sites[s].allocs++;
		m->sites[s].req += req;
		m->sites[s].alloc += got;
		if (!ptr)
			return;	/* a failed allocation */
		p = htab_get(&m->ptrs, ptr - 1, &fresh);
		if (!fresh) {
			/* Allocated again without a free we saw: the old one is gone. */
			m->sites[p->site].live--;
			m->sites[p->site].live_bytes -= p->bytes;
		}
		p->site = s;
		p->bytes = got;
		m->sites[s].live++;
		m->sites[s].live_bytes += got;
	}
}

static int by_alloc(const void *a, const void *b)
{
	const struct mem_site *x = a, *y = b;

	if (x->alloc != y->alloc)
		return x->alloc < y->alloc ? 1 : -1;
	return strcmp(x->name, y->name);
}

void fmt_mem_print(struct fmt_mem *m, FILE *out)
{
	struct mem_site t = { 0 };
	int w = 9;

	qsort(m->sites, m->nsites, sizeof(*m->sites), by_alloc);
	for (size_t i = 0; i < m->nsites; i++)
		if ((int)strlen(m->sites[i].name) > w)
			w = strlen(m->sites[i].name);
	if (w > 48)
		w = 48;
	fprintf(out, "%-*s %10s %12s %12s %12s %10s %10s %12s\n", w, "call site", "allocs",
		"bytes req", "bytes alloc", "waste", "frees", "live", "live bytes");
	for (size_t i = 0; i < m->nsites; i++) {
		const struct mem_site *s = &m->sites[i];

		fprintf(out, "%-*s %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64
			" %10" PRIu64 " %12" PRIu64 "\n", w, s->name, s->allocs, s->req, s->alloc,
			s->alloc - s->req, s->frees, s->live, s->live_bytes);
		t.allocs += s->allocs;
		t.req += s->req;
		t.alloc += s->alloc;
		t.frees += s->frees;
		t.live += s->live;
		t.live_bytes += s->live_bytes;
	}
	fprintf(out, "%-*s %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64
		" %10" PRIu64 " %12" PRIu64 "\n", w, "total", t.allocs, t.req, t.alloc,
		t.alloc - t.req, t.frees, t.live, t.live_bytes);
	fprintf(out, "frees of memory allocated before the recording: %" PRIu64 "\n",
		m->unknown_frees);
}

void fmt_mem_free(struct fmt_mem *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nsites; i++)
		free(m->sites[i].name);
	free(m->sites);
	htab_clear(&m->names);
	htab_clear(&m->ptrs);
	free(m);
}
