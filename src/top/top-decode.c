// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The top decoder: raw records into top_recs (see top.h).
 *
 * Every event id of the tep handle gets a kind and the offsets of the
 * fields that kind uses, looked up once by name, so that decoding costs a
 * table lookup and a few loads.  Formats differ between kernels
 * (sched_migrate_task's comm became a __data_loc string; 6.1 has fixed
 * arrays), which is why nothing here assumes an offset.
 *
 * Where two events say the same thing only one is decoded, so enabling
 * both never counts twice: sched_waking wins over sched_wakeup, and
 * raw_syscalls over the per-syscall syscalls:* events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "hist.h"
#include "top-local.h"

struct fld {
	int off;		/* -1: the event has no such field */
	uint8_t size;
	bool sign, dyn, rel;
};

struct evdef {
	struct fld pid, pid2, num, num2, str, str2;
	const char *sc_name;	/* syscalls:sys_{enter,exit}_NAME: "NAME" */
};

/* common_type is an unsigned short: no record names a larger id. */
#define TOP_MAX_EVENT_ID 65535

struct top_decoder {
	struct tep_handle *tep;
	bool swap;		/* the records' byte order is not ours */
	int max_id;
	uint8_t *kind;		/* by id */
	struct evdef *defs;	/* by id */
	char **names;		/* by id: "sys:event" */
	bool has[TOP_EV__COUNT];
	struct fld type, cpid;
	int lat_start, lat_end;	/* ids, -1 none */
	struct fld lat_sf, lat_ef;
};

static const struct fld none = { .off = -1 };

static struct fld field_of(struct tep_event *e, const char *name)
{
	struct tep_format_field *f = e ? tep_find_any_field(e, name) : NULL;
	struct fld r = none;

	if (!f)
		return r;
	r.off = f->offset;
	r.dyn = f->flags & TEP_FIELD_IS_DYNAMIC;
	r.rel = f->flags & TEP_FIELD_IS_RELATIVE;
	r.size = r.dyn ? 4 : f->size > 255 ? 255 : f->size;
	r.sign = f->flags & TEP_FIELD_IS_SIGNED;
	/* Numbers wider than 8 bytes are not numbers here. */
	if (!r.dyn && !(f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_ARRAY)) && f->size > 8)
		return none;
	return r;
}

static inline bool rd(const struct top_decoder *d, const struct fld *f, const uint8_t *p,
		      uint32_t size, int64_t *out)
{
	uint64_t v = 0;

	if (f->off < 0 || (uint32_t)f->off + f->size > size)
		return false;
	switch (f->size) {
	case 1: v = p[f->off]; break;
	case 2: { uint16_t x; memcpy(&x, p + f->off, 2); v = d->swap ? __builtin_bswap16(x) : x; break; }
	case 4: { uint32_t x; memcpy(&x, p + f->off, 4); v = d->swap ? __builtin_bswap32(x) : x; break; }
	case 8: memcpy(&v, p + f->off, 8); v = d->swap ? __builtin_bswap64(v) : v; break;
	default: return false;
	}
	if (f->sign && f->size < 8) {
		unsigned sh = 64 - 8 * f->size;

		v = (uint64_t)((int64_t)(v << sh) >> sh);
	}
	*out = (int64_t)v;
	return true;
}

static bool rd_str(const struct top_decoder *d, const struct fld *f, const uint8_t *p,
		   uint32_t size, struct top_str *s)
{
	if (f->off < 0)
		return false;
	if (f->dyn) {
		int64_t v;
		uint32_t o, l;

		if (!rd(d, f, p, size, &v))
			return false;
		o = (uint32_t)v & 0xffff;
		l = (uint32_t)v >> 16;
		if (f->rel)
			o += f->off + 4;
		if (o > size || l > size - o)
			return false;
		s->s = (const char *)p + o;
		s->len = l;
		return true;
	}
	if ((uint32_t)f->off + f->size > size)
		return false;
	s->s = (const char *)p + f->off;
	s->len = f->size;
	return true;
}

static struct tep_event *find(struct tep_handle *tep, const char *sys, const char *name)
{
	return tep_find_event_by_name(tep, sys, name);
}

static void def(struct top_decoder *d, struct tep_event *e, enum top_kind k, const char *pid,
		const char *pid2, const char *num, const char *num2, const char *str,
		const char *str2)
{
	struct evdef *x;

	if (!e || e->id < 0 || e->id > d->max_id)
		return;
	x = &d->defs[e->id];
	*x = (struct evdef){ none, none, none, none, none, none, NULL };
	if (pid)
		x->pid = field_of(e, pid);
	if (pid2)
		x->pid2 = field_of(e, pid2);
	if (num)
		x->num = field_of(e, num);
	if (num2)
		x->num2 = field_of(e, num2);
	if (str)
		x->str = field_of(e, str);
	if (str2)
		x->str2 = field_of(e, str2);
	d->kind[e->id] = k;
	d->has[k] = true;
}

static int lat_side(struct top_decoder *d, const char *sysev, const char *field, int *id,
		    struct fld *f)
{
	char *sys = NULL, *ev = NULL;
	struct tep_event *e;
	int r = hist_event_parse(sysev, &sys, &ev);

	if (r)
		return r;
	e = find(d->tep, sys, ev);
	if (!e)
		r = tr_fail(-ENOENT, "no event '%s' on this kernel", sysev);
	else if ((*f = field_of(e, field)).off < 0 || f->dyn || f->size > 8)
		r = tr_fail(-ENOENT, "no number field '%s' in '%s'", field, sysev);
	else
		*id = e->id;
	free(sys);
	free(ev);
	return r;
}

int top_decoder_new(struct tep_handle *tep, const struct top_lat_spec *lat,
		    struct top_decoder **out)
{
	struct top_decoder *d = xcalloc(1, sizeof(*d));
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	struct tep_event *sw = NULL;
	bool raw_sc;
	int r = 0;

	d->tep = tep;
	d->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	d->lat_start = d->lat_end = -1;
	/*
	 * The tables are sized by the largest id, which a file declares as it
	 * likes: ids beyond what common_type (an unsigned short) can hold never
	 * match a record, so they are left out rather than sizing anything.
	 */
	for (int i = 0; evs && evs[i]; i++)
		if (evs[i]->id > d->max_id && evs[i]->id <= TOP_MAX_EVENT_ID)
			d->max_id = evs[i]->id;
	d->kind = xcalloc(d->max_id + 1, 1);
	d->defs = xcalloc(d->max_id + 1, sizeof(*d->defs));
	d->names = xcalloc(d->max_id + 1, sizeof(char *));
	for (int i = 0; evs && evs[i]; i++) {
		struct tep_event *e = evs[i];

		if (e->id >= 0 && e->id <= d->max_id && !d->names[e->id])
			d->names[e->id] = xasprintf("%s:%s", e->system, e->name);
		if (!sw)
			sw = e;
	}
	/* The common fields are laid out alike in every event. */
	d->type = sw ? field_of(sw, "common_type") : none;
	d->cpid = sw ? field_of(sw, "common_pid") : none;
	if (d->type.off < 0) {
		d->type = (struct fld){ .off = 0, .size = 2 };
		d->cpid = (struct fld){ .off = 4, .size = 4, .sign = true };
	}

	def(d, find(tep, "sched", "sched_switch"), TOP_EV_SWITCH, "prev_pid", "next_pid",
	    "prev_state", NULL, "prev_comm", "next_comm");
	if (find(tep, "sched", "sched_waking"))
		def(d, find(tep, "sched", "sched_waking"), TOP_EV_WAKING, "pid", NULL, "target_cpu",
		    NULL, "comm", NULL);
	else
		def(d, find(tep, "sched", "sched_wakeup"), TOP_EV_WAKING, "pid", NULL, "target_cpu",
		    NULL, "comm", NULL);
	def(d, find(tep, "sched", "sched_wakeup_new"), TOP_EV_WAKEUP_NEW, "pid", NULL,
	    "target_cpu", NULL, "comm", NULL);
	def(d, find(tep, "sched", "sched_migrate_task"), TOP_EV_MIGRATE, "pid", NULL, "dest_cpu",
	    NULL, "comm", NULL);
	def(d, find(tep, "sched", "sched_process_exit"), TOP_EV_EXIT, "pid", NULL, NULL, NULL,
	    "comm", NULL);
	def(d, find(tep, "sched", "sched_process_fork"), TOP_EV_FORK, "parent_pid", "child_pid",
	    NULL, NULL, NULL, "child_comm");
	def(d, find(tep, "task", "task_rename"), TOP_EV_RENAME, "pid", NULL, NULL, NULL, "newcomm",
	    NULL);
	def(d, find(tep, "irq", "irq_handler_entry"), TOP_EV_IRQ_ENTRY, NULL, NULL, "irq", NULL,
	    "name", NULL);
	def(d, find(tep, "irq", "irq_handler_exit"), TOP_EV_IRQ_EXIT, NULL, NULL, "irq", "ret",
	    NULL, NULL);
	def(d, find(tep, "irq", "softirq_entry"), TOP_EV_SOFTIRQ_ENTRY, NULL, NULL, "vec", NULL,
	    NULL, NULL);
	def(d, find(tep, "irq", "softirq_exit"), TOP_EV_SOFTIRQ_EXIT, NULL, NULL, "vec", NULL, NULL,
	    NULL);
	def(d, find(tep, "exceptions", "page_fault_user"), TOP_EV_FAULT_USER, NULL, NULL, NULL,
	    NULL, NULL, NULL);
	def(d, find(tep, "exceptions", "page_fault_kernel"), TOP_EV_FAULT_KERNEL, NULL, NULL, NULL,
	    NULL, NULL, NULL);
	def(d, find(tep, "block", "block_rq_issue"), TOP_EV_BLOCK_ISSUE, NULL, NULL, "dev",
	    "sector", NULL, NULL);
	def(d, find(tep, "block", "block_rq_complete"), TOP_EV_BLOCK_DONE, NULL, NULL, "dev",
	    "sector", NULL, NULL);
	raw_sc = find(tep, "raw_syscalls", "sys_enter") || find(tep, "raw_syscalls", "sys_exit");
	def(d, find(tep, "raw_syscalls", "sys_enter"), TOP_EV_SYS_ENTER, NULL, NULL, "id", NULL,
	    NULL, NULL);
	def(d, find(tep, "raw_syscalls", "sys_exit"), TOP_EV_SYS_EXIT, NULL, NULL, "id", "ret",
	    NULL, NULL);
	/* The per-syscall events name their syscall; they count only without raw_syscalls. */
	for (int i = 0; evs && evs[i]; i++) {
		struct tep_event *e = evs[i];
		bool enter;

		if (strcmp(e->system, "syscalls") || e->id < 0 || e->id > d->max_id)
			continue;
		enter = !strncmp(e->name, "sys_enter_", 10);
		if (!enter && strncmp(e->name, "sys_exit_", 9))
			continue;
		def(d, e, TOP_EV_OTHER, NULL, NULL, "__syscall_nr", enter ? NULL : "ret", NULL, NULL);
		d->defs[e->id].sc_name = e->name + (enter ? 10 : 9);
		if (!raw_sc) {
			d->kind[e->id] = enter ? TOP_EV_SYS_ENTER : TOP_EV_SYS_EXIT;
			d->has[d->kind[e->id]] = true;
		}
	}
	d->has[TOP_EV_OTHER] = true;
	if (lat) {
		r = lat_side(d, lat->start, lat->start_field, &d->lat_start, &d->lat_sf);
		if (!r)
			r = lat_side(d, lat->end, lat->end_field, &d->lat_end, &d->lat_ef);
	}
	/* evs belongs to tep (tep_list_events caches it). */
	if (r) {
		top_decoder_free(d);
		return r;
	}
	*out = d;
	return 0;
}

enum top_kind top_decode(const struct top_decoder *d, const struct tfile_event *ev,
			 struct top_rec *r)
{
	const uint8_t *p = ev->data;
	const struct evdef *x;
	int64_t v;

	r->kind = TOP_EV_OTHER;
	r->ts = ev->ts;
	r->cpu = ev->cpu;
	r->id = -1;
	r->pid = 0;
	r->tpid = r->tpid2 = 0;
	r->num = r->num2 = 0;
	r->str = r->str2 = (struct top_str){ 0 };
	r->lat_start = r->lat_end = false;
	r->sc_name = NULL;
	if (!rd(d, &d->type, p, ev->size, &v))
		return TOP_EV_OTHER;
	r->id = (int)(uint16_t)v;
	if (rd(d, &d->cpid, p, ev->size, &v))
		r->pid = (int)v;
	if (r->id > d->max_id)
		return TOP_EV_OTHER;
	if (r->id == d->lat_start && rd(d, &d->lat_sf, p, ev->size, &v)) {
		r->lat_start = true;
		r->lat_skey = (uint64_t)v;
	}
	if (r->id == d->lat_end && rd(d, &d->lat_ef, p, ev->size, &v)) {
		r->lat_end = true;
		r->lat_ekey = (uint64_t)v;
	}
	x = &d->defs[r->id];
	if (x->sc_name) {
		r->sc_name = x->sc_name;
		if (rd(d, &x->num, p, ev->size, &v))
			r->num = v;
	}
	if (!d->kind[r->id])
		return TOP_EV_OTHER;
	/* Every number the kind uses must be there, or the record is just counted. */
	if (x->pid.off >= 0) {
		if (!rd(d, &x->pid, p, ev->size, &v))
			return TOP_EV_OTHER;
		r->tpid = (int)v;
	} else {
		r->tpid = r->pid;
	}
	if (x->pid2.off >= 0) {
		if (!rd(d, &x->pid2, p, ev->size, &v))
			return TOP_EV_OTHER;
		r->tpid2 = (int)v;
	}
	if ((x->num.off >= 0 && !rd(d, &x->num, p, ev->size, &r->num)) ||
	    (x->num2.off >= 0 && !rd(d, &x->num2, p, ev->size, &r->num2)))
		return TOP_EV_OTHER;
	if (x->str.off >= 0)
		rd_str(d, &x->str, p, ev->size, &r->str);
	if (x->str2.off >= 0)
		rd_str(d, &x->str2, p, ev->size, &r->str2);
	r->kind = d->kind[r->id];
	return r->kind;
}

bool top_decoder_has(const struct top_decoder *d, enum top_kind k)
{
	return k < TOP_EV__COUNT && d->has[k];
}

const char *top_decoder_event_name(const struct top_decoder *d, int id)
{
	return id >= 0 && id <= d->max_id ? d->names[id] : NULL;
}

void top_decoder_free(struct top_decoder *d)
{
	if (!d)
		return;
	for (int i = 0; i <= d->max_id && d->names; i++)
		free(d->names[i]);
	free(d->names);
	free(d->kind);
	free(d->defs);
	free(d);
}

/* ---- --latency ---- */

int top_lat_parse(const char *text, struct top_lat_spec *out)
{
	char *copy, *parts[4] = { 0 }, *save = NULL, *eq;
	size_t n = 0;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!text)
		text = "sched:sched_waking,sched:sched_switch,pid=next_pid";
	copy = xstrdup(text);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == 3) {
			free(copy);
			return tr_fail(-EINVAL, "bad --latency '%s': START,END[,MATCH]", text);
		}
		parts[n++] = t;
	}
	if (n < 2) {
		free(copy);
		return tr_fail(-EINVAL, "bad --latency '%s': START,END[,MATCH]", text);
	}
	for (size_t i = 0; i < 2 && !r; i++) {
		char *sys = NULL, *ev = NULL;

		r = hist_event_parse(parts[i], &sys, &ev);
		free(sys);
		free(ev);
	}
	if (!r) {
		out->start = xstrdup(parts[0]);
		out->end = xstrdup(parts[1]);
		if (!parts[2]) {
			out->start_field = xstrdup("common_pid");
			out->end_field = xstrdup("common_pid");
		} else if ((eq = strchr(parts[2], '='))) {
			*eq = '\0';
			out->start_field = xstrdup(parts[2]);
			out->end_field = xstrdup(eq + 1);
		} else {
			out->start_field = xstrdup(parts[2]);
			out->end_field = xstrdup(parts[2]);
		}
		if (!*out->start_field || !*out->end_field)
			r = tr_fail(-EINVAL, "bad --latency match '%s': START_FIELD=END_FIELD", parts[2]);
	}
	free(copy);
	if (r)
		top_lat_free(out);
	return r;
}

void top_lat_free(struct top_lat_spec *l)
{
	free(l->start);
	free(l->end);
	free(l->start_field);
	free(l->end_field);
	memset(l, 0, sizeof(*l));
}

/* ---- syscall names: the architecture's table ---- */

static void add_syscall(void *arg, unsigned nr, const char *name)
{
	top_model_syscall_name(arg, nr, name);
}

int top_syscall_names(struct top_model *m)
{
	return syscall_names(add_syscall, m);
}
