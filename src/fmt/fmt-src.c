// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The formatter's sources: one per tep handle, with its comm and tgid
 * tables, its cache of what each event id needs, its filters and tasks.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "tfile-format.h"
#include "fmt-core-local.h"
#include "fmt-filter.h"
#include "parse.h"

/* ---- sources: comm tables and the event cache ---- */

struct fmt_src *fmt_src_new(struct fmt *f, struct tep_handle *tep)
{
	struct fmt_src *s = xcalloc(1, sizeof(*s));
	struct tep_event *e = tep_get_first_event(tep);
	struct tep_format_field *fld;

	s->f = f;
	s->tep = tep;
	s->ids = xcalloc(65536, sizeof(*s->ids));
	htab_init(&s->comms, sizeof(struct comm_ent), 1024, 0);
	s->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	s->pid_off = 4, s->pid_size = 4;
	s->type_off = 0, s->type_size = 2;
	if (e && (fld = tep_find_common_field(e, "common_pid"))) {
		s->pid_off = fld->offset;
		s->pid_size = fld->size;
	}
	if (e && (fld = tep_find_common_field(e, "common_type"))) {
		s->type_off = fld->offset;
		s->type_size = fld->size;
	}
	s->flags_off = 2, s->pc_off = 3;
	if (e) {
		fld = tep_find_common_field(e, "common_flags");
		s->flags_off = fld && fld->size == 1 ? fld->offset : -1;
		fld = tep_find_common_field(e, "common_preempt_count");
		s->pc_off = fld && fld->size == 1 ? fld->offset : -1;
	}
	s->clock_ns = true;
	fmt_src_graph_opts(s, NULL);
	s->vmemmap_default = 0xffffea0000000000ULL;	/* 4-level paging */
	s->next = f->srcs;
	f->srcs = s;
	return s;
}

void fmt_src_free(struct fmt_src *s)
{
	struct fmt_src **pp;

	if (!s)
		return;
	for (pp = &s->f->srcs; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	strv_free(&s->ep_names);
	strv_free(&s->ep_events);
	for (int i = 0; i < 65536; i++)
		if (s->ids[i]) {
			fmt_prog_free(s->ids[i]->prog);
			kprog_free(s->ids[i]->kp);
			free(s->ids[i]);
		}
	for (size_t i = 0; i < s->ngraphs; i++)
		fmt_graph_free(s->graphs[i].g);
	free(s->graphs);
	free(s->file);
	free(s->ksym_text);
	free(s->ksyms);
	HTAB_EACH(&s->kstrs, struct kstr, k)
		free(k->s);
	htab_clear(&s->kstrs);
	free(s->ids);
	htab_clear(&s->comms);
	free(s->mute);
	htab_clear(&s->tgids);
	free(s->scratch);
	for (int i = 0; i < s->nfilters; i++)
		tep_filter_free(s->filters[i]);
	free(s->filters);
	free(s->task_pids);
	strv_free(&s->task_comms);
	free(s->started);
	free(s);
}

static void forget_comms(struct fmt_src *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(s->last); i++)
		s->last[i].comm = NULL;
}

static struct comm_ent *comm_slot(struct fmt_src *s, int pid, bool insert)
{
	if (!insert)
		return htab_find(&s->comms, (uint32_t)pid);
	forget_comms(s);	/* the table may move, and the name change */
	return htab_get(&s->comms, (uint32_t)pid, NULL);
}

static void set_comm(struct fmt_src *s, int pid, const char *comm, size_t n, int state)
{
	struct comm_ent *c = comm_slot(s, pid, true);

	if (c->state > state)
		return;
	c->state = state;
	if (n >= COMM_LEN)
		n = COMM_LEN - 1;
	memcpy(c->comm, comm, n);
	c->comm[n] = '\0';
}

static void cmdline_comm(void *arg, int pid, const char *comm, size_t len)
{
	set_comm(arg, pid, comm, len, 2);
}

void fmt_src_cmdlines(struct fmt_src *s, const char *text)
{
	tfile_cmdlines_each(text, cmdline_comm, s);
}

static int tgid_of(struct fmt_src *s, int pid)
{
	const struct tgid_ent *t = htab_find(&s->tgids, (uint32_t)pid);

	return t ? t->tgid : 0;
}

int fmt_src_tgid(struct fmt_src *s, int pid)
{
	return tgid_of(s, pid);
}

void fmt_src_tgids(struct fmt_src *s, const char *text)
{
	size_t n = 0;

	for (const char *p = text; p && *p; p++)
		n += *p == '\n';
	if (!n)
		return;
	forget_comms(s);
	/* A second text replaces the first (tr stream reads them again). */
	htab_clear(&s->tgids);
	htab_init(&s->tgids, sizeof(struct tgid_ent), n * 2, 0);
	while (*text) {
		const char *nl = strchrnul(text, '\n');
		char *end = (char *)text, *end2 = (char *)text;
		long pid = 0, tgid = 0;

		/* strtol skips newlines: an empty line must not make it scan the rest. */
		if (isdigit((unsigned char)*text)) {
			pid = strtol(text, &end, 10);
			if (*end == ' ' && isdigit((unsigned char)end[1]))
				tgid = strtol(end, &end2, 10);
		}
		if (end != text && end2 != end && pid > 0 && pid <= INT32_MAX && tgid > 0 &&
		    tgid <= INT32_MAX) {
			struct tgid_ent *t = htab_get(&s->tgids, (uint32_t)pid, NULL);

			t->tgid = tgid;
		}
		text = *nl ? nl + 1 : nl;
	}
}

const char *fmt_src_comm(struct fmt_src *s, int pid)
{
	struct comm_ent *c;
	int tgid;
	typeof(&s->last[0]) last;

	if (!pid)
		return "<idle>";
	/* A run of a few tasks' records asks for a few names. */
	last = &s->last[pid & (ARRAY_SIZE(s->last) - 1)];
	if (last->comm && last->pid == pid)
		return last->comm;
	c = comm_slot(s, pid, false);
	if (!c) {
		tgid = tgid_of(s, pid);
		if (!tgid || tgid == pid || !(c = comm_slot(s, tgid, false)))
			return "<...>";
	}
	last->pid = pid;
	last->comm = c->comm;
	return c->comm;
}

/* Note the fields that give __print_hex/__print_array a length (tfile-format.h). */
static void find_lens(struct ev_info *ei, struct tep_print_arg *a, int depth)
{
	struct tep_print_arg *len = NULL;
	struct tep_format_field *fld;
	int el = 1;

	if (!a || depth > 64)
		return;
	switch (a->type) {
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		len = a->hex.size;
		break;
	case TEP_PRINT_INT_ARRAY:
		len = a->int_array.count;
		el = 8;
		if (a->int_array.el_size && a->int_array.el_size->type == TEP_PRINT_ATOM &&
		    a->int_array.el_size->atom.atom)
			el = atoi(a->int_array.el_size->atom.atom);
		if (el < 1 || el > 8)
			el = 8;
		break;
	case TEP_PRINT_OP:
		find_lens(ei, a->op.left, depth + 1);
		find_lens(ei, a->op.right, depth + 1);
		break;
	case TEP_PRINT_TYPE:
		find_lens(ei, a->typecast.item, depth + 1);
		break;
	default:
		break;
	}
	while (len && len->type == TEP_PRINT_TYPE)
		len = len->typecast.item;
	if (!len || len->type != TEP_PRINT_FIELD)
		return;
	/* libtraceevent looks the field up at the first print: do it now. */
	fld = len->field.field ? len->field.field
			       : tep_find_any_field(ei->event, len->field.name);
	if (ei->nlens == (int)ARRAY_SIZE(ei->lens) || !fld) {
		ei->withheld = "a length read from the record that tr cannot check";
		return;
	}
	ei->lens[ei->nlens].fld = fld;
	ei->lens[ei->nlens++].el = el;
}

/* Do this record's lengths (find_lens) stay inside it? */
bool fmt_lens_fit(struct fmt_src *s, const struct ev_info *ei, const struct tep_record *rec)
{
	for (int i = 0; i < ei->nlens; i++) {
		const struct tep_format_field *fld = ei->lens[i].fld;
		uint64_t v;

		if (fld->size != 1 && fld->size != 2 && fld->size != 4 && fld->size != 8)
			return false;
		if ((uint32_t)fld->offset + fld->size > (uint32_t)rec->size)
			return false;
		v = rd_num(s, (const uint8_t *)rec->data + fld->offset, fld->size);
		if ((fld->flags & TEP_FIELD_IS_SIGNED) && (v >> (fld->size * 8 - 1)) & 1)
			return false;
		if (v > (uint64_t)rec->size / ei->lens[i].el)
			return false;
	}
	return true;
}

static bool ev_needs_symbols(struct fmt_src *s, struct ev_info *ei);

struct ev_info *fmt_ev_new(struct fmt_src *s, int id)
{
	struct ev_info *ei = xcalloc(1, sizeof(*ei));

	s->ids[id & 0xffff] = ei;
	ei->event = tep_find_event(s->tep, id);
	if (!ei->event && s->load_event && !s->load_event(s->load_ctx, s->tep, id))
		ei->event = tep_find_event(s->tep, id);
	if (ei->event) {
		/* A format whose fields lie past 64 KiB is not one the kernel wrote. */
		for (struct tep_format_field *fld = ei->event->format.fields; fld; fld = fld->next)
			if ((uint64_t)(unsigned)fld->offset + (unsigned)fld->size > 65536)
				ei->event = NULL;
		for (struct tep_format_field *fld = ei->event ? ei->event->format.common_fields : NULL;
		     fld; fld = fld->next)
			if ((uint64_t)(unsigned)fld->offset + (unsigned)fld->size > 65536)
				ei->event = NULL;
	}
	if (ei->event) {
		const char *pf = ei->event->print_fmt.format;
		int n;

		for (size_t i = 0; i < s->ep_names.n; i++) {
			const char *gn = s->ep_names.v[i], *sl = strchr(gn, '/');

			if (!strncmp(gn, ei->event->system, sl - gn) && !ei->event->system[sl - gn] &&
			    !strcmp(sl + 1, ei->event->name))
				ei->eprobe = s->ep_events.v[i];
		}

		if (pf && !strncmp(pf, TFILE_FORMAT_MARK, strlen(TFILE_FORMAT_MARK)))
			ei->withheld = pf + strlen(TFILE_FORMAT_MARK);
		else
			for (struct tep_print_arg *a = ei->event->print_fmt.args; a; a = a->next)
				find_lens(ei, a, 0);
		if (ei->withheld) {
			tr_warn("event '%s:%s': its print fmt is not used (%s): its events show "
				"their fields", ei->event->system, ei->event->name, ei->withheld);
		}
		/*
		 * libtraceevent takes a field of size 0 to run to the record's end:
		 * a record ending before such a field starts would be a negative
		 * length to it.
		 */
		for (struct tep_format_field *fld = ei->event->format.fields; fld; fld = fld->next)
			if (!fld->size && (uint32_t)fld->offset > ei->min_size)
				ei->min_size = fld->offset;
		for (struct tep_format_field *fld = ei->event->format.common_fields; fld;
		     fld = fld->next)
			if (!fld->size && (uint32_t)fld->offset > ei->min_size)
				ei->min_size = fld->offset;
		n = snprintf(ei->name_col, sizeof(ei->name_col) - 2, "%s:", ei->event->name);

		if (n < 0 || n > (int)sizeof(ei->name_col) - 3)
			n = sizeof(ei->name_col) - 3;
		while (n < NAME_COL)
			ei->name_col[n++] = ' ';
		ei->name_col[n++] = ' ';
		ei->name_len = n;
		ei->user = fmt_user_event(ei->event);
		if (!strcmp(ei->event->system, "ftrace") &&
		    (!strcmp(ei->event->name, "funcgraph_entry") ||
		     !strcmp(ei->event->name, "fgraph_retaddr_entry") ||
		     !strcmp(ei->event->name, "funcgraph_exit"))) {
			struct tep_event *e = ei->event;

			ei->g_func = tep_find_field(e, "func");
			ei->g_depth = tep_find_field(e, "depth");
			ei->g_call = tep_find_field(e, "calltime");
			ei->g_ret = tep_find_field(e, "rettime");
			/* 6.5+ with CONFIG_FUNCTION_GRAPH_RETVAL */
			ei->g_retval = tep_find_field(e, "retval");
			ei->g_overrun = tep_find_field(e, "overrun");
			ei->g_retaddr = tep_find_field(e, "retaddr");
			ei->g_args = tep_find_field(e, "args");
			ei->g_is_retaddr = !strcmp(e->name, "fgraph_retaddr_entry");
			if (ei->g_func && ei->g_depth && strcmp(e->name, "funcgraph_exit"))
				ei->graph = FG_ENTRY;
			else if (ei->g_func && ei->g_depth && ei->g_call && ei->g_ret)
				ei->graph = FG_EXIT;
		}
		if (!ei->user && !ei->withheld)
			ei->prog = fmt_prog_compile(s->tep, ei->event);
		if (s->load_syms && (s->f->o.raw || ev_needs_symbols(s, ei))) {
			fmt_load_syms_fn fn = s->load_syms;

			s->load_syms = NULL;
			fn(s->load_ctx, s, s->tep);
		}
	}
	return ei;
}

static bool ev_needs_symbols(struct fmt_src *s, struct ev_info *ei)
{
	const char *f;

	if (ei->event->handler)
		return true;
	if (!s->f->o.lib) {
		fmt_kernel_compile(s, ei);
		if (ei->kp && kprog_needs_symbols(ei->kp))
			return true;
	}
	for (f = ei->event->print_fmt.format; f && (f = strstr(f, "%p")); f += 2)
		if (f[2] && strchr("sSfFB", f[2]))
			return true;
	return false;
}

bool fmt_src_needs_symbols(struct fmt_src *s)
{
	for (int id = 0; id < 65536; id++) {
		struct ev_info *ei = s->ids[id];

		if (ei && ei->event && ev_needs_symbols(s, ei))
			return true;
	}
	return false;
}

int fmt_src_event_id(struct fmt_src *s, const struct tfile_event *ev)
{
	if (ev->size < (uint32_t)(s->type_off + s->type_size))
		return -1;
	return rd_num(s, (const uint8_t *)ev->data + s->type_off, s->type_size) & 0xffff;
}

const char *fmt_src_event_name(struct fmt_src *s, int id, const char **system)
{
	struct ev_info *ei = id >= 0 ? fmt_ev(s, id) : NULL;

	if (system)
		*system = ei && ei->event ? ei->event->system : NULL;
	return ei && ei->event ? ei->event->name : NULL;
}

int fmt_src_user_stack_tgid(struct fmt_src *s, const struct tfile_event *ev)
{
	int id = fmt_src_event_id(s, ev);
	struct ev_info *ei = id >= 0 ? fmt_ev(s, id) : NULL;
	struct tep_format_field *f;

	if (!ei || !ei->event)
		return -1;
	if (!ei->us_done) {
		ei->us_done = true;
		f = tep_find_field(ei->event, "tgid");
		if (!strcmp(ei->event->name, "user_stack") && !strcmp(ei->event->system, "ftrace") &&
		    f && f->size == 4)
			ei->us_tgid = f;
	}
	f = ei->us_tgid;
	if (!f || (uint64_t)(unsigned)f->offset + 4 > ev->size)
		return -1;
	return (int)rd_num(s, (const uint8_t *)ev->data + f->offset, 4);
}

bool fmt_src_has_procmap(const struct fmt_src *s, int tgid)
{
	return fmt_kprocmap((void *)s, tgid) != NULL;
}

int fmt_src_pid(struct fmt_src *s, const struct tfile_event *ev)
{
	return rec_pid(s, ev);
}

/*
 * The fields that name a task for sure: the comm and the pid are of the
 * same task.  (Not every comm/pid pair is: sched_process_wait's comm is
 * the waiter's, its pid the waited-for's.)  A comm of "" is the exec'd
 * file's base name, as the kernel sets it.
 */
static const struct {
	const char *sys, *event, *comm, *pid;
} name_fields[] = {
	{ "sched", "sched_switch", "prev_comm", "prev_pid" },
	{ "sched", "sched_switch", "next_comm", "next_pid" },
	{ "sched", "sched_wakeup", "comm", "pid" },
	{ "sched", "sched_wakeup_new", "comm", "pid" },
	{ "sched", "sched_waking", "comm", "pid" },
	{ "sched", "sched_process_fork", "parent_comm", "parent_pid" },
	{ "sched", "sched_process_fork", "child_comm", "child_pid" },
	{ "sched", "sched_process_exec", "filename", "pid" },
	{ "task", "task_newtask", "comm", "pid" },
	{ "task", "task_rename", "newcomm", "pid" },
};

static void find_pairs(struct ev_info *ei)
{
	ei->learn_done = true;
	if (!ei->event || !ei->event->system)
		return;
	if (!strcmp(ei->event->system, "pagemap")) {
		ei->folio = tep_find_field(ei->event, "folio");
		ei->pfn = tep_find_field(ei->event, "pfn");
		if (!ei->folio || !ei->pfn || ei->folio->size != 8 || ei->pfn->size != 8)
			ei->folio = ei->pfn = NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(name_fields) && ei->npairs < 4; i++) {
		struct tep_format_field *comm, *pid;

		if (strcmp(ei->event->system, name_fields[i].sys) ||
		    strcmp(ei->event->name, name_fields[i].event))
			continue;
		comm = tep_find_field(ei->event, name_fields[i].comm);
		pid = tep_find_field(ei->event, name_fields[i].pid);
		if (!comm || !pid || pid->size > 8 || (pid->flags & TEP_FIELD_IS_ARRAY) ||
		    !(comm->flags & TEP_FIELD_IS_ARRAY))
			continue;
		ei->pairs[ei->npairs].comm = comm;
		ei->pairs[ei->npairs].pid = pid;
		ei->npairs++;
	}
}

/*
 * vmemmap_base from a folio's address and its pfn (pagemap's events show
 * both): base = folio - pfn * sizeof(struct page).  KASLR moves vmemmap in
 * steps of 1 GiB, so a base that is not so aligned is not believed.
 */
static void learn_vmemmap(struct fmt_src *s, struct ev_info *ei, const struct tfile_event *ev)
{
	unsigned ps = src_btf(s) ? btf_struct_size(s->btf, "page") : 0;
	uint64_t folio, pfn, base;

	if ((uint32_t)(ei->folio->offset + 8) > ev->size || (uint32_t)(ei->pfn->offset + 8) > ev->size)
		return;
	folio = rd_num(s, (const uint8_t *)ev->data + ei->folio->offset, 8);
	pfn = rd_num(s, (const uint8_t *)ev->data + ei->pfn->offset, 8);
	base = folio - pfn * (ps ? ps : 64);
	if (!folio || (base & ((1ULL << 30) - 1)) || !(base >> 63))
		return;
	s->env.vmemmap = base;
	s->vmemmap_learned = true;
}

void fmt_src_learn(struct fmt_src *s, const struct tfile_event *ev)
{
	int id = fmt_src_event_id(s, ev);
	struct ev_info *ei;

	if (id < 0 || (s->mute && s->mute[id >> 6] >> (id & 63) & 1))
		return;
	ei = fmt_ev(s, id);
	if (ei->graph)
		s->graph_seen = true;
	if (!ei->learn_done) {
		find_pairs(ei);
		/* Most records teach nothing: the next of this id is passed over at once. */
		if (!ei->graph && !ei->folio && !ei->npairs) {
			if (!s->mute)
				s->mute = xcalloc(65536 / 64, sizeof(*s->mute));
			s->mute[id >> 6] |= 1ULL << (id & 63);
			return;
		}
	}
	if (ei->folio && !s->vmemmap_learned)
		learn_vmemmap(s, ei, ev);
	for (int i = 0; i < ei->npairs; i++) {
		struct tep_format_field *c = ei->pairs[i].comm, *p = ei->pairs[i].pid;
		struct comm_ent *known;
		const char *name;
		size_t len;
		int pid;

		if ((uint32_t)(c->offset + c->size) > ev->size ||
		    (uint32_t)(p->offset + p->size) > ev->size)
			continue;
		pid = (int)rd_num(s, (const uint8_t *)ev->data + p->offset, p->size);
		if (pid <= 0)
			continue;
		/* saved_cmdlines' name stands (set_comm): most tasks' are there. */
		if (s->named[pid & (ARRAY_SIZE(s->named) - 1)] == pid)
			continue;
		known = comm_slot(s, pid, false);
		if (known && known->state > 1) {
			s->named[pid & (ARRAY_SIZE(s->named) - 1)] = pid;
			continue;
		}
		if (c->flags & TEP_FIELD_IS_DYNAMIC) {
			/* sched_process_exec: the comm becomes the file's base name. */
			uint32_t v = rd_num(s, (const uint8_t *)ev->data + c->offset, 4);
			uint32_t off = (v & 0xffff) + ((c->flags & TEP_FIELD_IS_RELATIVE) ?
						       (uint32_t)c->offset + 4 : 0);
			const char *slash;

			if ((uint64_t)off + (v >> 16) > ev->size)
				continue;
			name = (const char *)ev->data + off;
			len = strnlen(name, v >> 16);
			slash = memrchr(name, '/', len);
			if (slash) {
				len -= slash + 1 - name;
				name = slash + 1;
			}
			if (len > 15)
				len = 15;	/* TASK_COMM_LEN - 1 */
		} else {
			name = (const char *)ev->data + c->offset;
			len = strnlen(name, c->size);
		}
		if (len)
			set_comm(s, pid, name, len, 1);
	}
}

/*
 * libtraceevent turns a field an event lacks into FALSE, silently: every
 * name in the filter must be a field of at least one of the events it
 * selected (COMM and CPU are its own).  0, or the first name that is not,
 * copied into name.
 */
static int filter_fields_exist(struct tep_event_filter *flt, const char *part, char *name,
			       size_t len)
{
	for (const char *p = part; *p; p++) {
		const char *w;
		bool found = false;

		if (*p == '"' || *p == '\'') {
			p = str_skip_quoted(p);
			if (!p)
				break;
			continue;
		}
		if (!(isalpha((unsigned char)*p) || *p == '_') ||
		    (p > part && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
			continue;
		for (w = p; isalnum((unsigned char)*w) || *w == '_'; w++)
			;
		snprintf(name, len, "%.*s", (int)(w - p), p);
		p = w - 1;
		if (!strcmp(name, "COMM") || !strcmp(name, "CPU"))
			continue;
		for (int i = 0; i < flt->filters && !found; i++)
			found = tep_find_any_field(flt->event_filters[i].event, name) != NULL;
		if (!found)
			return -ENOENT;
	}
	return 0;
}

int fmt_src_filter(struct fmt_src *s, const char *expr)
{
	enum tep_errno e;
	char msg[256], name[64];
	struct fmt_filter ff;
	const char *part;
	char *all;

	/*
	 * Note that a second filter for the same event would replace the first
	 * inside one tep_event_filter: each -F gets its own, and they are ORed.
	 */
	struct tep_event_filter *flt;

	/* libtraceevent sees only what the fence parsed, in its canonical spelling. */
	if (fmt_filter_parse(expr, 0, &ff, msg, sizeof(msg)))
		return tr_fail(-EINVAL, "bad filter '%.60s%s': %s", expr, strlen(expr) > 60 ? "..." : "",
			       msg);
	/* "common_pid == 1" with no "EVENT:" before it: for every event, as users expect. */
	all = fmt_filter_string(&ff, ".*");
	part = ff.expr;
	flt = tep_filter_alloc(s->tep);
	e = tep_filter_add_filter_str(flt, all);
	if (e < 0) {
		if (tep_filter_strerror(flt, e, msg, sizeof(msg)))
			tep_strerror(s->tep, e, msg, sizeof(msg));
		tep_filter_free(flt);
		free(all);
		fmt_filter_free(&ff);
		return tr_fail(-EINVAL, "bad filter '%s': %s", expr, fmt_filter_reason(msg));
	}
	if (part && filter_fields_exist(flt, part, name, sizeof(name))) {
		int err;

		if (flt->filters == 1) {
			struct tep_event *ev = flt->event_filters[0].event;
			const char *cands[256], *near;
			size_t n = 0;

			for (struct tep_format_field *f = ev->format.fields; f && n < 256; f = f->next)
				cands[n++] = f->name;
			for (struct tep_format_field *f = ev->format.common_fields; f && n < 256;
			     f = f->next)
				cands[n++] = f->name;
			near = suggest_closest(name, cands, n);
			err = tr_fail(-EINVAL, "bad filter '%s': no field '%s' in '%s:%s'%s%s%s", expr,
				      name, ev->system, ev->name, near ? " (did you mean '" : "",
				      near ? near : "", near ? "'?)" : "");
		}
		else
			err = tr_fail(-EINVAL, "bad filter '%s': no field '%s' in %s", expr, name,
				      flt->filters ? "the events it selects" : "any event");
		tep_filter_free(flt);
		free(all);
		fmt_filter_free(&ff);
		return err;
	}
	free(all);
	fmt_filter_free(&ff);
	s->filters = xrealloc(s->filters, (s->nfilters + 1) * sizeof(*s->filters));
	s->filters[s->nfilters++] = flt;
	s->has_filter = true;
	return 0;
}

void fmt_src_filter_invert(struct fmt_src *s, bool invert)
{
	s->invert = invert;
}

/*
 * libtraceevent reads fields where the event's format says and __data_loc
 * strings where the record says, without checking either against the
 * record's size.  A damaged or hostile file could send it past the end of
 * the page; so it gets a copy of the record followed by zeros, far enough
 * (a __data_loc offset and length are 16 bits each; formats reaching past
 * 64 KiB are refused in fmt_ev_new) that every such read stays inside.
 */
enum { SCRATCH_TAIL = (128 << 10) + 64 };

void *fmt_safe_record(struct fmt_src *s, const void *data, uint32_t size)
{
	if (!s->scratch || size > s->scratch_cap) {
		free(s->scratch);
		s->scratch_cap = size > 65536 ? size : 65536;
		s->scratch = xcalloc(1, (size_t)s->scratch_cap + SCRATCH_TAIL);
		s->scratch_used = 0;
	}
	memcpy(s->scratch, data, size);
	if (s->scratch_used > size)
		memset(s->scratch + size, 0, s->scratch_used - size);
	s->scratch_used = size;
	return s->scratch;
}

void fmt_src_tasks(struct fmt_src *s, const int *pids, size_t npids, const struct strv *comms)
{
	if (npids) {
		s->task_pids = xrealloc(s->task_pids, (s->ntask_pids + npids) * sizeof(*pids));
		memcpy(s->task_pids + s->ntask_pids, pids, npids * sizeof(*pids));
		s->ntask_pids += npids;
	}
	for (size_t i = 0; comms && i < comms->n; i++)
		strv_push(&s->task_comms, comms->v[i]);
	s->has_tasks = s->ntask_pids || s->task_comms.n;
}

/* --pid and --comm: a task passes if any pid or any comm glob names it. */
static bool task_wanted(struct fmt_src *s, int pid)
{
	const char *comm;

	for (size_t i = 0; i < s->ntask_pids; i++)
		if (s->task_pids[i] == pid)
			return true;
	if (!s->task_comms.n)
		return false;
	comm = fmt_src_comm(s, pid);
	for (size_t i = 0; i < s->task_comms.n; i++)
		if (!fnmatch(s->task_comms.v[i], comm, 0))
			return true;
	return false;
}

bool fmt_src_match(struct fmt_src *s, const struct tfile_event *ev)
{
	struct tep_record rec;
	bool match = false;

	if (s->has_tasks && !task_wanted(s, rec_pid(s, ev)))
		return false;
	if (!s->has_filter)
		return true;
	fill_record(&rec, ev);
	rec.data = fmt_safe_record(s, ev->data, ev->size);
	for (int i = 0; i < s->nfilters && !match; i++)
		match = tep_filter_match(s->filters[i], &rec) == FILTER_MATCH;
	return match != s->invert;
}

void fmt_src_cpus(struct fmt_src *s, int ncpus)
{
	s->ncpus = ncpus;
}

void fmt_src_file(struct fmt_src *s, const char *name)
{
	free(s->file);
	s->file = name ? xstrdup(name) : NULL;
}
