// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The userspace aggregator: the same keys, values, modifiers, filter and
 * totals as a kernel hist trigger, over raw records.
 *
 * Each key field is packed into a fixed-size slot (8 bytes for numbers, the
 * field's size for strings), so a record's key is one flat byte string.
 * Entries live in hash.h's hashed table sized once from --size (the
 * kernel's map size: at most that many entries, later new keys are Dropped,
 * as in the kernel), at twice that many slots so probes stay short.  An
 * entry is [hash | key bytes | one u64 per value] in place: no allocation
 * per record, one cache line for sched_switch-sized keys.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "tfile-format.h"
#include "fmt-filter.h"
#include "hash.h"
#include "hist.h"
#include "parse.h"

#define STR_MAX 128	/* longest string key kept from a dynamic string */
#define KEY_STR_MAX 256	/* the kernel's MAX_FILTER_STR_VAL: longest string key */

enum src { SRC_FIELD, SRC_CPU, SRC_TS, SRC_HITCOUNT };

struct ufield {
	struct hist_field f;	/* borrowed from the spec */
	enum src src;
	struct tep_format_field *tf;
	bool is_str, is_signed, dynamic, relative;
	unsigned off, size;	/* in the record */
	unsigned slot, slot_size;	/* in the key */
};

struct hist_user {
	struct tep_handle *tep;
	const struct hist_spec *spec;
	struct tep_event *event;
	struct tep_event_filter *filter;
	unsigned type_off, type_size;
	struct ufield keys[HIST_MAX_KEYS], vals[HIST_MAX_VALS + 1];
	size_t nkeys, nvals;	/* vals[0] is hitcount */
	size_t keylen, entsize;	/* bytes */
	struct htab table;	/* never grows: it is full at half its slots */
	uint64_t max_entries, hits, dropped, lost;
	bool proc_comm;		/* live: names from /proc when saved_cmdlines lacks them */
	char **syscalls;	/* syscall names by number, for .syscall */
	size_t nsyscalls;
	uint8_t *scratch;	/* a record's copy with zeros after it, for the filter */
	uint32_t scratch_cap, scratch_used;
};


int hist_no_field(struct tep_event *e, const char *name, const char *sysev)
{
	struct tep_format_field **fields = e ? tep_event_fields(e) : NULL;
	struct tep_format_field **common = e ? tep_event_common_fields(e) : NULL;
	const char **cands;
	const char *hit;
	size_t n = 0, k = 0;
	int r;

	while (fields && fields[n])
		n++;
	while (common && common[k])
		k++;
	cands = xcalloc(n + k + 1, sizeof(*cands));
	for (size_t i = 0; i < n; i++)
		cands[i] = fields[i]->name;
	for (size_t i = 0; i < k; i++)
		cands[n + i] = common[i]->name;
	hit = suggest_closest(name, cands, n + k);
	if (hit)
		r = tr_fail(-ENOENT, "no field '%s' in '%s' (did you mean %s?)", name, sysev, hit);
	else
		r = tr_fail(-ENOENT, "no field '%s' in '%s'", name, sysev);
	free(cands);
	free(fields);
	free(common);
	return r;
}

/*
 * libtraceevent's filter reads fields where the format says and __data_loc
 * strings where the record says, unchecked: it gets a copy of the record
 * followed by zeros far enough for any of that (fields end within 64 KiB,
 * tfile-format.h; a __data_loc is 16 + 16 bits), as the formatter does.
 */
enum { SCRATCH_TAIL = (192 << 10) + 64 };

static void *padded(struct hist_user *u, const struct tfile_event *ev)
{
	if (!u->scratch || ev->size > u->scratch_cap) {
		free(u->scratch);
		u->scratch_cap = ev->size > 65536 ? ev->size : 65536;
		u->scratch = xcalloc(1, (size_t)u->scratch_cap + SCRATCH_TAIL);
		u->scratch_used = 0;
	}
	memcpy(u->scratch, ev->data, ev->size);
	if (u->scratch_used > ev->size)
		memset(u->scratch + ev->size, 0, u->scratch_used - ev->size);
	u->scratch_used = ev->size;
	return u->scratch;
}

static int field_setup(struct hist_user *u, struct ufield *uf, const struct hist_field *f, bool key)
{
	const char *n = f->name;

	uf->f = *f;
	if (!strcmp(n, "hitcount")) {
		uf->src = SRC_HITCOUNT;
	} else if (!strcmp(n, "common_cpu") || !strcmp(n, "cpu")) {
		uf->src = SRC_CPU;
	} else if (!strcmp(n, "common_timestamp")) {
		uf->src = SRC_TS;
	} else if (!strcmp(n, "common_stacktrace") || !strcmp(n, "stacktrace")) {
		return tr_fail(-ENOTSUP, "'%s' needs the kernel engine: the events carry no stack",
			       n);
	} else if (f->mod == HIST_MOD_STACKTRACE) {
		return tr_fail(-ENOTSUP, "'%s.stacktrace' needs the kernel engine: the userspace "
			       "engine does not read stack fields", n);
	} else {
		struct tep_format_field *tf = tep_find_any_field(u->event, n);

		if (!tf) {
			const char *pf = u->event->print_fmt.format;
			char *sysev;
			int r;

			/* The reader left out a field line it found unsound (tfile-format.h). */
			if (pf && !strncmp(pf, TFILE_FORMAT_MARK, strlen(TFILE_FORMAT_MARK)))
				return tr_fail(-ENOENT, "no field '%s' in '%s:%s' (the trace's format "
						       "of it is damaged: %s)", n, u->spec->system,
					       u->spec->event, pf + strlen(TFILE_FORMAT_MARK));
			sysev = xasprintf("%s:%s", u->spec->system, u->spec->event);
			r = hist_no_field(u->event, n, sysev);
			free(sysev);
			return r;
		}
		uf->src = SRC_FIELD;
		uf->tf = tf;
		uf->off = tf->offset;
		uf->size = tf->size;
		uf->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
		uf->dynamic = tf->flags & TEP_FIELD_IS_DYNAMIC;
		uf->relative = tf->flags & TEP_FIELD_IS_RELATIVE;
		uf->is_str = (tf->flags & TEP_FIELD_IS_STRING) ||
			     ((tf->flags & TEP_FIELD_IS_ARRAY) && tf->elementsize == 1);
		if (uf->is_str && !key)
			return tr_fail(-EINVAL, "'%s' is a string: it can be a key, not a value", n);
		if (!uf->is_str && !uf->dynamic && uf->size > 8)
			return tr_fail(-ENOTSUP, "field '%s' (%u bytes) is neither a number nor a "
						 "string", n, uf->size);
	}
	if (key) {
		uf->slot = u->keylen;
		/* "char buf[]" (size 0, ftrace:print): the string runs to the record's end. */
		uf->slot_size = uf->is_str ? (uf->dynamic || !uf->size ? STR_MAX : uf->size) : 8;
		/* As the kernel: a string key compares its first KEY_STR_MAX bytes. */
		if (uf->slot_size > KEY_STR_MAX)
			uf->slot_size = KEY_STR_MAX;
		uf->slot_size = (uf->slot_size + 7) & ~7u;
		u->keylen += uf->slot_size;
	}
	return 0;
}

static void add_syscall(void *arg, unsigned nr, const char *name)
{
	struct hist_user *u = arg;

	if (nr > 4096)
		return;
	if (nr >= u->nsyscalls) {
		u->syscalls = xrealloc(u->syscalls, (nr + 1) * sizeof(char *));
		memset(u->syscalls + u->nsyscalls, 0, (nr + 1 - u->nsyscalls) * sizeof(char *));
		u->nsyscalls = nr + 1;
	}
	free(u->syscalls[nr]);
	u->syscalls[nr] = xasprintf("sys_%s", name);
}

/* Names for .syscall; without the system's headers they print as numbers. */
static void load_syscalls(struct hist_user *u)
{
	syscall_names(add_syscall, u);
}

/*
 * Variables change no column of the table, so the userspace engine can take
 * those it can check: over this event's own fields and numbers.  A $reference
 * reads another trigger's variable and actions act on other events: both
 * need the kernel's hist triggers.
 */
static int vars_check(struct hist_user *u, const struct hist_spec *s)
{
	if (s->nactions)
		return tr_fail(-ENOTSUP, "the userspace engine cannot run actions ('%s'): they "
			       "need the kernel's hist triggers", s->actions[0]);
	for (size_t i = 0; i < s->nvars; i++) {
		char *e = xstrdup(strchr(s->vars[i], '=') + 1), *save = NULL, *op;
		int r = 0;

		for (op = strtok_r(e, "+-*/", &save); op && !r; op = strtok_r(NULL, "+-*/", &save)) {
			char *dot = strchr(op, '.');

			if (*op == '$') {
				r = tr_fail(-ENOTSUP, "the userspace engine cannot read '%s' in "
					    "variable '%s': references to other triggers' "
					    "variables need the kernel engine", op, s->vars[i]);
				break;
			}
			if (isdigit((unsigned char)*op))
				continue;
			if (dot)
				*dot = '\0';
			if (!hist_field_special(op) && !tep_find_any_field(u->event, op)) {
				char *sysev = xasprintf("%s:%s", s->system, s->event);

				r = hist_no_field(u->event, op, sysev);
				free(sysev);
			}
		}
		free(e);
		if (r)
			return r;
	}
	return 0;
}

int hist_user_new(struct tep_handle *tep, const struct hist_spec *s, struct hist_user **out)
{
	struct hist_user *u = xcalloc(1, sizeof(*u));
	struct tep_format_field *ct;
	uint64_t size = s->size ? s->size : 2048, cap = 1;
	int r = 0;

	u->tep = tep;
	u->spec = s;
	u->event = tep_find_event_by_name(tep, s->system, s->event);
	if (!u->event) {
		free(u);
		return tr_fail(-ENOENT, "no event '%s:%s' in the trace", s->system, s->event);
	}
	r = vars_check(u, s);
	if (r) {
		free(u);
		return r;
	}
	ct = tep_find_common_field(u->event, "common_type");
	u->type_off = ct ? ct->offset : 0;
	u->type_size = ct ? ct->size : 2;
	for (size_t i = 0; i < s->nkeys && !r; i++)
		r = field_setup(u, &u->keys[u->nkeys++], &s->keys[i], true);
	/* Values in the result's column order (hist_result_init): hitcount first if unnamed. */
	bool hitcount = false;

	for (size_t i = 0; i < s->nvals; i++)
		hitcount |= !strcmp(s->vals[i].name, "hitcount");
	if (!hitcount)
		u->vals[u->nvals++] = (struct ufield){ .f = { .name = (char *)"hitcount" },
						       .src = SRC_HITCOUNT };
	for (size_t i = 0; i < s->nvals && !r; i++)
		r = field_setup(u, &u->vals[u->nvals++], &s->vals[i], false);
	if (!r && s->filter) {
		char *ev = xasprintf("%s/%s", s->system, s->event);

		r = fmt_filter_compile(tep, s->filter, FMT_FILTER_EXPR, ev, &u->filter);
		free(ev);
	}
	if (r) {
		hist_user_free(u);
		return r;
	}
	/* The kernel's map holds a power of 2 entries; twice as many slots keeps probes short. */
	while (cap < size)
		cap <<= 1;
	u->max_entries = cap;
	u->entsize = 8 + u->keylen + 8 * u->nvals;
	htab_init(&u->table, u->entsize, cap * 2, HTAB_HASHED);
	htab_reserve(&u->table, 0);
	for (size_t i = 0; i < u->nkeys; i++)
		if (u->keys[i].f.mod == HIST_MOD_SYSCALL)
			load_syscalls(u);
	*out = u;
	return 0;
}

void hist_user_proc_comm(struct hist_user *u)
{
	u->proc_comm = true;
}

static void register_comm(void *arg, int pid, const char *comm, size_t len)
{
	char name[64];

	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, comm, len);
	name[len] = '\0';
	tep_register_comm(arg, name, pid);
}

void hist_user_cmdlines(struct hist_user *u, const char *text)
{
	tfile_cmdlines_each(text, register_comm, u->tep);
}

static inline uint64_t read_num(const struct hist_user *u, const struct ufield *f,
				const uint8_t *data, uint32_t size)
{
	uint64_t v;

	if (f->off + f->size > size)
		return 0;
	v = tep_read_number(u->tep, data + f->off, f->size);
	if (f->is_signed && f->size < 8) {
		unsigned sh = 64 - 8 * f->size;

		v = (uint64_t)((int64_t)(v << sh) >> sh);
	}
	return v;
}

static uint64_t ilog2_roundup(uint64_t v)
{
	/* The kernel's ilog2(roundup_pow_of_two(v)). */
	if (v <= 1)
		return 0;
	return 64 - __builtin_clzll(v - 1);
}

/* Pack one record's key; false if the record is too short for its fields. */
static void make_key(const struct hist_user *u, const struct tfile_event *ev, uint8_t *key)
{
	const uint8_t *data = ev->data;

	memset(key, 0, u->keylen);
	for (size_t i = 0; i < u->nkeys; i++) {
		const struct ufield *f = &u->keys[i];
		uint8_t *slot = key + f->slot;
		uint64_t v = 0;

		if (f->src == SRC_CPU) {
			v = ev->cpu;
		} else if (f->src == SRC_TS) {
			v = f->f.mod == HIST_MOD_USECS ? ev->ts / 1000 : ev->ts;
		} else if (f->is_str) {
			/* Offsets, not pointers: every one is checked against the record. */
			uint64_t at = f->off, n = f->size;

			if (!n && !f->dynamic)
				n = ev->size > f->off ? ev->size - f->off : 0;
			if (f->dynamic) {
				uint32_t loc = (uint64_t)f->off + 4 <= ev->size
					? (uint32_t)tep_read_number(u->tep, data + f->off, 4) : 0;

				n = loc >> 16;
				at = (loc & 0xffff) + (f->relative ? (uint64_t)f->off + f->size : 0);
			}
			if (at >= ev->size)
				n = 0;
			else if (n > ev->size - at)
				n = ev->size - at;
			if (n > f->slot_size)
				n = f->slot_size;
			if (n)
				memcpy(slot, data + at, n);
			/* Bytes after the NUL must not tell equal strings apart. */
			uint8_t *z = memchr(slot, 0, n);

			if (z)
				memset(z, 0, f->slot_size - (z - slot));
			continue;
		} else {
			v = read_num(u, f, data, ev->size);
		}
		if (f->f.mod == HIST_MOD_LOG2)
			v = ilog2_roundup(v);
		else if (f->f.mod == HIST_MOD_BUCKETS)
			v = v / f->f.buckets * f->f.buckets;
		memcpy(slot, &v, 8);
	}
}

void hist_user_event(struct hist_user *u, const struct tfile_event *ev)
{
	uint8_t key[HIST_MAX_KEYS * KEY_STR_MAX];
	uint64_t h;
	uint8_t *e;
	size_t i;

	if (ev->size < u->type_off + u->type_size ||
	    tep_read_number(u->tep, (const uint8_t *)ev->data + u->type_off, u->type_size) !=
		    (unsigned long long)u->event->id)
		return;
	if (u->filter) {
		struct tep_record rec = { .ts = ev->ts, .size = ev->size, .cpu = ev->cpu,
					  .data = padded(u, ev) };

		if (tep_filter_match(u->filter, &rec) != TEP_ERRNO__FILTER_MATCH)
			return;
	}
	u->hits++;
	make_key(u, ev, key);
	h = htab_hash_words(key, u->keylen);
	for (e = htab_first(&u->table, h, &i);; e = htab_next(&u->table, h, &i)) {
		if (!htab_tag(e)) {
			if (u->table.n >= u->max_entries) {
				u->dropped++;
				return;
			}
			htab_claim(&u->table, e, h);
			memcpy(e + 8, key, u->keylen);
			break;
		}
		if (!memcmp(e + 8, key, u->keylen))
			break;
	}
	uint64_t *vals = (uint64_t *)(e + 8 + u->keylen);

	for (size_t v = 0; v < u->nvals; v++) {
		const struct ufield *f = &u->vals[v];

		if (f->src == SRC_HITCOUNT)
			vals[v]++;
		else if (f->src == SRC_CPU)
			vals[v] += ev->cpu;
		else if (f->src == SRC_TS)
			vals[v] += f->f.mod == HIST_MOD_USECS ? ev->ts / 1000 : ev->ts;
		else
			vals[v] += read_num(u, f, ev->data, ev->size);
	}
}

void hist_user_lost(struct hist_user *u, uint64_t n)
{
	u->lost += n;
}

uint64_t hist_user_hits(const struct hist_user *u)
{
	return u->hits;
}

/* A key slot as a cell: the text and numbers the renderer shows for its kind. */
static void key_cell(struct hist_user *u, const struct ufield *f, const struct hist_col *col,
		     const uint8_t *slot, struct hist_cell *c)
{
	uint64_t v;

	if (f->is_str) {
		size_t n = strnlen((const char *)slot, f->slot_size);

		/* ftrace:print's buf ends with the marker's newline. */
		while (n && slot[n - 1] == '\n')
			n--;
		c->text = xasprintf("%.*s", (int)n, (const char *)slot);
		return;
	}
	memcpy(&v, slot, 8);
	c->num = v;
	switch (col->kind) {
	case HIST_K_SYM: {
		const char *fn = tep_find_function(u->tep, v);

		if (fn && f->f.mod == HIST_MOD_SYM_OFFSET)
			c->text = xasprintf("%s+0x%llx", fn,
					    (unsigned long long)(v - tep_find_function_address(u->tep, v)));
		else
			c->text = xstrdup(fn ? fn : "");
		break;
	}
	case HIST_K_TASK: {
		const char *comm = tep_data_comm_from_pid(u->tep, (int)v);
		char *pc = NULL, *path;
		size_t len;

		/* Live, a task saved_cmdlines lost may still be in /proc. */
		if (v && u->proc_comm && (!comm || !strcmp(comm, "<...>"))) {
			path = xasprintf("/proc/%llu/comm", (unsigned long long)v);
			if (!read_file(path, &pc, &len))
				str_rstrip(pc);
			free(path);
		}
		c->text = pc ? pc : xstrdup(v == 0 ? "<idle>" : comm ? comm : "<...>");
		break;
	}
	case HIST_K_SYSCALL:
		c->text = v < u->nsyscalls && u->syscalls[v] ? xstrdup(u->syscalls[v])
							     : xasprintf("syscall_%llu",
									 (unsigned long long)v);
		break;
	case HIST_K_RANGE:
		if (f->f.mod == HIST_MOD_LOG2) {
			c->num2 = v;
			c->num = v < 64 ? 1ULL << v : UINT64_MAX;
		} else {
			c->num2 = v + f->f.buckets - 1;
		}
		break;
	default:
		if (f->is_signed && (int64_t)v < 0)
			c->text = xasprintf("%lld", (long long)v);
		break;
	}
}

int hist_user_result(struct hist_user *u, struct hist_result *r)
{
	uint64_t total[HIST_MAX_VALS + 1] = { 0 }, max[HIST_MAX_VALS + 1] = { 0 };

	hist_result_init(r, u->spec);
	for (size_t k = 0; k < u->nkeys; k++)
		if (u->keys[k].is_str)
			r->cols[k].kind = HIST_K_STR;
	/* Rows in slot order, which rows that sort equal keep (hist_result_sort()). */
	HTAB_EACH(&u->table, const uint8_t, e) {
		const uint64_t *vals = (const uint64_t *)(e + 8 + u->keylen);
		size_t row = hist_result_add_row(r);

		for (size_t k = 0; k < u->nkeys; k++)
			key_cell(u, &u->keys[k], &r->cols[k], e + 8 + u->keys[k].slot,
				 hist_cell(r, row, k));
		for (size_t v = 0; v < u->nvals; v++) {
			hist_cell(r, row, r->nkeys + v)->num = vals[v];
			total[v] += vals[v];
			if (vals[v] > max[v])
				max[v] = vals[v];
		}
	}
	/* .percent and .graph are relative to the column's total and maximum, as in the kernel. */
	for (size_t v = 0; v < u->nvals; v++) {
		struct hist_col *col = &r->cols[r->nkeys + v];

		for (size_t i = 0; i < r->nrows; i++) {
			struct hist_cell *c = hist_cell(r, i, r->nkeys + v);

			if (col->kind == HIST_K_PERCENT)
				c->pct = total[v] ? (double)c->num * 100 / total[v] : 0;
		}
	}
	hist_result_sort(r, u->spec);
	for (size_t v = 0; v < u->nvals; v++)
		if (r->cols[r->nkeys + v].kind == HIST_K_GRAPH)
			for (size_t i = 0; i < r->nrows; i++) {
				struct hist_cell *c = hist_cell(r, i, r->nkeys + v);

				c->num = max[v] ? c->num * 20 / max[v] : 0;
			}
	r->has_totals = true;
	r->hits = u->hits;
	r->entries = u->table.n;
	r->dropped = u->dropped;
	r->lost = u->lost;
	return 0;
}

void hist_user_free(struct hist_user *u)
{
	if (!u)
		return;
	if (u->filter)
		tep_filter_free(u->filter);
	for (size_t i = 0; i < u->nsyscalls; i++)
		free(u->syscalls[i]);
	free(u->syscalls);
	free(u->scratch);
	htab_clear(&u->table);
	free(u);
}
