// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace.dat files to Perfetto's TracePacket stream (include/pftrace.h says
 * what goes in and in which order).  The events are read per buffer and
 * CPU with tfile's cursors and written per CPU in FtraceEventBundles;
 * Perfetto's trace processor sorts them by time on import, as it does for
 * its own recorder's bundles.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "pf-local.h"
#include "pftrace.h"
#include "tfile.h"

/* Bundle limits: what Perfetto's own recorder writes is of this order. */
#define BUNDLE_BYTES (64u << 10)
#define BUNDLE_COMPACT 4096
/* Output is written in pieces of this size. */
#define OUT_CHUNK (1u << 20)
/*
 * The sequence-scoped clock id ftrace bundles with an ftrace_clock refer to
 * (trace_processor's ftrace tokenizer): the first of the 64..127 range.
 */
#define SEQ_CLOCK 64
/*
 * Dense generic events (Perfetto v50+): FtraceEvent's fields from 65536 on
 * are left for events described in the bundle, each with at most 31 fields
 * (what trace_processor takes).  The numbers are unique in the whole
 * output: trace_processor keeps the first description of each.
 */
#define GEN_FIRST 65536
#define GEN_LAST 131072
#define GEN_MAX_FIELDS 31
/* google.protobuf's DescriptorProto and FieldDescriptorProto, and its field types. */
enum { DESC_NAME = 1, DESC_FIELD = 2, FDESC_NAME = 1, FDESC_NUMBER = 3, FDESC_LABEL = 4,
       FDESC_TYPE = 5, LABEL_OPTIONAL = 1, TYPE_INT64 = 3, TYPE_UINT64 = 4, TYPE_FIXED64 = 6,
       TYPE_STRING = 9 };

/* How one event id of one input is written. */
enum ev_kind { EV_GENERIC, EV_TYPED, EV_SWITCH, EV_WAKING, EV_PRINT };

struct fmap {
	const struct pf_field *pf;
	struct tep_format_field *tf;
};

struct evmap {
	enum ev_kind kind;
	struct tep_event *te;
	const struct pf_event *pe;
	struct fmap *f;
	size_t nf;
	/* compact forms' fields */
	struct tep_format_field *c[5];	/* compact: 3 numbers, comm, prev_pid */
	struct tep_format_field *buf;	/* print: its text, looked up once */
	/*
	 * Generic events in the dense form: the FtraceEvent field the event
	 * goes in (0: GenericFtraceEvent instead) and the DescriptorProto of
	 * its message, written once, in the bundle of the first event.
	 */
	uint32_t gid;
	struct pf_buf desc;
	bool desc_written;
	uint8_t gtype[GEN_MAX_FIELDS];	/* each field's type in the descriptor (gen_type) */
};

/* The columns of one bundle's compact_sched. */
struct column {
	uint64_t *v;
	size_t n, cap;
};

enum {
	SW_TS, SW_STATE, SW_PID, SW_PRIO, SW_COMM,
	WK_TS, WK_PID, WK_CPU, WK_PRIO, WK_COMM, WK_FLAGS,
	NCOLS
};

static const uint32_t col_field[NCOLS] = {
	PF_COMPACT_SWITCH_TIMESTAMP, PF_COMPACT_SWITCH_PREV_STATE, PF_COMPACT_SWITCH_NEXT_PID,
	PF_COMPACT_SWITCH_NEXT_PRIO, PF_COMPACT_SWITCH_NEXT_COMM_INDEX,
	PF_COMPACT_WAKING_TIMESTAMP, PF_COMPACT_WAKING_PID, PF_COMPACT_WAKING_TARGET_CPU,
	PF_COMPACT_WAKING_PRIO, PF_COMPACT_WAKING_COMM_INDEX, PF_COMPACT_WAKING_COMMON_FLAGS,
};

struct conv {
	const struct pf_opts *o;
	struct pf_result *res;
	int fd;
	struct pf_buf out, pkt;
	/* the input being written */
	struct tfile *tf;
	struct tep_handle *tep;
	uint32_t machine, seq;
	int ftrace_clock;		/* 0: the timestamps are BOOTTIME */
	struct evmap **maps;		/* by event id */
	struct tep_format_field *common_pid, *common_flags;
	/*
	 * Compact sched: trace_processor takes a compact sched_switch's prev_*
	 * and a compact sched_waking's waker from the CPU's previous switch, so
	 * each CPU's first switch goes whole (it drops a compact one), so does
	 * one whose prev_pid is not the last switch's next_pid or a waking not
	 * by that task (a recording of some tasks only), and the form is used
	 * only where one buffer holds the input's sched events.
	 */
	bool compact_ok, cpu_switched;
	uint64_t cpu_task;		/* the last switch's next_pid */
	uint32_t next_gid;		/* the next dense generic event's field */
	struct evmap **pending;		/* descriptors for the open bundle */
	size_t npending, pending_cap;
	/* the open bundle */
	bool open;
	size_t bundle_mark;
	int cpu;
	uint64_t nevents;
	struct column col[NCOLS];
	uint64_t sw_last, wk_last;
	char (*comms)[16];
	size_t ncomms, comms_cap;
	/* per CPU of the input: lost events (known counts) */
	uint64_t *lost;
	int nlost;
};

static int flush_out(struct conv *x, size_t keep_below)
{
	size_t off = 0;

	if (x->out.len < keep_below)
		return 0;
	while (off < x->out.len) {
		ssize_t w = write(x->fd, x->out.p + off, x->out.len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return tr_fail(-errno, "cannot write the output: %s", strerror(errno));
		off += (size_t)w;
	}
	x->res->bytes += x->out.len;
	x->out.len = 0;
	return 0;
}

/* Start a TracePacket of the current input (in x->pkt). */
static void packet_start(struct conv *x)
{
	x->pkt.len = 0;
	pf_uint(&x->pkt, PF_PACKET_TRUSTED_PACKET_SEQUENCE_ID, x->seq);
	if (x->machine)
		pf_uint(&x->pkt, PF_PACKET_MACHINE_ID, x->machine);
}

/* Append the packet to the output as one Trace.packet. */
static int packet_end(struct conv *x)
{
	pf_bytes(&x->out, PF_TRACE_PACKET, x->pkt.p, x->pkt.len);
	x->res->packets++;
	return flush_out(x, OUT_CHUNK);
}

/* "[local] global counter" or "local" -> "local" (static buffer). */
static const char *clock_name(const char *text, char *buf, size_t size)
{
	const char *s = text ? strchr(text, '[') : NULL;
	size_t n;

	if (!text || !*text)
		return "local";
	if (s) {
		const char *e = strchr(++s, ']');

		n = e ? (size_t)(e - s) : strlen(s);
	} else {
		s = text;
		n = strcspn(s, " \t\n");
	}
	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

/* uname as tr and trace-cmd store it: "sysname nodename release [version] machine". */
static void put_sysinfo(struct conv *x)
{
	const struct tfile_info *in = tfile_info(x->tf);
	char *copy = xstrdup(in->uname ? in->uname : ""), *tok[4] = { 0 }, *p = copy, *ver = NULL;
	int n = 0;
	size_t mark, um;

	while (n < 3 && (tok[n] = strsep(&p, " ")))
		n++;
	if (p) {
		char *last = strrchr(p, ' ');

		if (last) {
			*last = '\0';
			ver = p;
			tok[3] = last + 1;
		} else {
			tok[3] = p;
		}
	}
	packet_start(x);
	mark = pf_open(&x->pkt, PF_PACKET_SYSTEM_INFO);
	if (tok[0] && *tok[0]) {
		um = pf_open(&x->pkt, PF_SYSINFO_UTSNAME);
		pf_str(&x->pkt, PF_UTS_SYSNAME, tok[0]);
		if (tok[2])
			pf_str(&x->pkt, PF_UTS_RELEASE, tok[2]);
		if (ver)
			pf_str(&x->pkt, PF_UTS_VERSION, ver);
		if (tok[3])
			pf_str(&x->pkt, PF_UTS_MACHINE, tok[3]);
		pf_close(&x->pkt, um);
	}
	if (in->cpus > 0)
		pf_uint(&x->pkt, PF_SYSINFO_NUM_CPUS, (uint64_t)in->cpus);
	if (in->page_size)
		pf_uint(&x->pkt, PF_SYSINFO_PAGE_SIZE, in->page_size);
	if (tok[1] && *tok[1])
		pf_str(&x->pkt, PF_SYSINFO_MACHINE_NAME, tok[1]);
	pf_close(&x->pkt, mark);
	free(copy);
}

static void put_clock(struct pf_buf *b, uint32_t id, uint64_t ts)
{
	size_t m = pf_open(b, PF_CLOCKS_CLOCKS);

	pf_uint(b, PF_CLOCK_CLOCK_ID, id);
	pf_uint(b, PF_CLOCK_TIMESTAMP, ts);
	pf_close(b, m);
}

/*
 * The clocks.  Perfetto takes ftrace timestamps as BOOTTIME unless a
 * bundle names another ftrace clock, whose values it then maps through
 * the sequence's clock SEQ_CLOCK: the pairing's snapshots define that one.
 */
static int put_clocks(struct conv *x, uint64_t first_ts)
{
	const struct tfile_info *in = tfile_info(x->tf);
	const struct tfile_clocks *cp = &in->clocks;
	char buf[32];
	const char *clock = clock_name(in->clock, buf, sizeof(buf));
	const char *path = tfile_path(x->tf);
	int r;

	x->ftrace_clock = 0;
	if (cp->valid) {
		bool boot = !strcmp(clock, "boot");

		for (int i = 0; i < 2; i++) {
			size_t m;

			packet_start(x);
			m = pf_open(&x->pkt, PF_PACKET_CLOCK_SNAPSHOT);
			if (!boot)
				put_clock(&x->pkt, SEQ_CLOCK, cp->trace[i] + (uint64_t)in->ts_offset);
			put_clock(&x->pkt, PF_BUILTIN_CLOCK_BOOTTIME, cp->boot[i]);
			put_clock(&x->pkt, PF_BUILTIN_CLOCK_MONOTONIC, cp->mono[i]);
			put_clock(&x->pkt, PF_BUILTIN_CLOCK_REALTIME, cp->real[i]);
			pf_close(&x->pkt, m);
			if ((r = packet_end(x)))
				return r;
		}
		if (!boot)
			x->ftrace_clock = !strcmp(clock, "global") ? PF_FTRACE_CLOCK_GLOBAL
								   : PF_FTRACE_CLOCK_LOCAL;
		strv_push_owned(&x->res->notes,
				xasprintf("%s: clock '%s', tied to BOOTTIME, MONOTONIC and REALTIME "
					  "by the recording's clock pairing", path, clock));
		return 0;
	}
	if (!strcmp(clock, "boot")) {
		strv_push_owned(&x->res->notes,
				xasprintf("%s: clock 'boot' is BOOTTIME (no clock pairing in the "
					  "file: no MONOTONIC or REALTIME)", path));
		return 0;
	}
	/*
	 * No pairing: the times stay as they are, and a snapshot says BOOTTIME
	 * and MONOTONIC read the same, so that they are MONOTONIC's.
	 */
	packet_start(x);
	{
		size_t m = pf_open(&x->pkt, PF_PACKET_CLOCK_SNAPSHOT);

		put_clock(&x->pkt, PF_BUILTIN_CLOCK_BOOTTIME, first_ts);
		put_clock(&x->pkt, PF_BUILTIN_CLOCK_MONOTONIC, first_ts);
		pf_close(&x->pkt, m);
	}
	if ((r = packet_end(x)))
		return r;
	strv_push_owned(&x->res->notes,
			xasprintf("%s: clock '%s' taken as MONOTONIC (no clock pairing in the "
				  "file)", path, clock));
	return 0;
}

struct tgid {
	int pid, tgid;
};

static int cmp_tgid(const void *a, const void *b)
{
	const struct tgid *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

struct tree {
	struct conv *x;
	struct tgid *t;
	size_t n;
};

static void tree_task(void *arg, int pid, const char *comm, size_t len)
{
	struct tree *t = arg;
	struct pf_buf *b = &t->x->pkt;
	struct tgid key = { .pid = pid }, *hit;
	size_t m;

	hit = t->n ? bsearch(&key, t->t, t->n, sizeof(*t->t), cmp_tgid) : NULL;
	if (hit && hit->tgid != pid) {
		m = pf_open(b, PF_PTREE_THREADS);
		pf_uint(b, PF_THREAD_TID, (uint64_t)pid);
		pf_uint(b, PF_THREAD_TGID, (uint64_t)hit->tgid);
		pf_bytes(b, PF_THREAD_NAME, comm, len);
		pf_close(b, m);
		return;
	}
	/*
	 * A main thread, or a task whose process is not recorded: as its own
	 * process, named by its comm (Perfetto names the thread from it too).
	 */
	m = pf_open(b, PF_PTREE_PROCESSES);
	pf_uint(b, PF_PROC_PID, (uint64_t)pid);
	pf_bytes(b, PF_PROC_CMDLINE, comm, len);
	pf_uint(b, PF_PROC_CMDLINE_IS_COMM, 1);
	pf_close(b, m);
}

/* saved_tgids: "PID TGID" lines. */
static void parse_tgids(const char *text, struct tree *t)
{
	size_t cap = 0;

	for (const char *p = text; p && *p;) {
		char *end;
		long pid = strtol(p, &end, 10), tgid;

		if (end != p && *end == ' ') {
			const char *q = end + 1;

			tgid = strtol(q, &end, 10);
			if (end != q && pid > 0 && pid <= INT32_MAX && tgid > 0 && tgid <= INT32_MAX) {
				if (t->n == cap) {
					cap = cap ? cap * 2 : 256;
					t->t = xrealloc(t->t, cap * sizeof(*t->t));
				}
				t->t[t->n++] = (struct tgid){ (int)pid, (int)tgid };
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (t->n)
		qsort(t->t, t->n, sizeof(*t->t), cmp_tgid);
}

static int put_tree(struct conv *x)
{
	struct tree t = { .x = x };
	size_t m;
	int r;

	parse_tgids(tfile_tgids(x->tf), &t);
	packet_start(x);
	m = pf_open(&x->pkt, PF_PACKET_PROCESS_TREE);
	tfile_cmdlines_each(tfile_cmdlines(x->tf), tree_task, &t);
	pf_close(&x->pkt, m);
	free(t.t);
	r = packet_end(x);
	return r;
}

/* FtraceStats: START with nothing lost, END with the counts per CPU. */
static int put_stats(struct conv *x, int phase)
{
	size_t m;

	packet_start(x);
	m = pf_open(&x->pkt, PF_PACKET_FTRACE_STATS);
	pf_uint(&x->pkt, PF_FSTATS_PHASE, (uint64_t)phase);
	for (int cpu = 0; cpu < x->nlost; cpu++) {
		size_t c = pf_open(&x->pkt, PF_FSTATS_CPU_STATS);

		pf_uint(&x->pkt, PF_CPUSTATS_CPU, (uint64_t)cpu);
		pf_uint(&x->pkt, PF_CPUSTATS_OVERRUN,
			phase == PF_PHASE_END_OF_TRACE ? x->lost[cpu] : 0);
		pf_close(&x->pkt, c);
	}
	pf_close(&x->pkt, m);
	return packet_end(x);
}

/* ---- event fields ---- */

static bool is_char_array(const struct tep_format_field *f)
{
	return (f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_ARRAY)) &&
	       f->type && (strstr(f->type, "char") != NULL);
}

/* Where a field's bytes are in the record: false when out of it. */
static bool field_span(struct conv *x, const struct tep_format_field *f, const uint8_t *d,
		       uint32_t size, const uint8_t **p, size_t *n)
{
	size_t off = (size_t)f->offset, len = (size_t)f->size;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (len != 4 || off + 4 > size)
			return false;
		loc = (uint32_t)tep_read_number(x->tep, d + off, 4);
		len = loc >> 16;
		off = (loc & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? off + 4 : 0);
	} else if ((f->flags & TEP_FIELD_IS_ARRAY) && !len && off <= size) {
		len = size - off;	/* "char buf[]": to the end of the record */
	}
	if (off > size || len > size - off)
		return false;
	*p = d + off;
	*n = len;
	return true;
}

static bool field_str(struct conv *x, const struct tep_format_field *f, const uint8_t *d,
		      uint32_t size, const char **s, size_t *n)
{
	const uint8_t *p;
	size_t len;

	if (!field_span(x, f, d, size, &p, &len))
		return false;
	*s = (const char *)p;
	*n = strnlen(*s, len);
	return true;
}

static bool is_number(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

static bool field_num(struct conv *x, const struct tep_format_field *f, const uint8_t *d,
		      uint32_t size, uint64_t *v)
{
	if (!is_number(f) || (size_t)f->offset + (size_t)f->size > size)
		return false;
	*v = tep_read_number(x->tep, d + f->offset, f->size);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8) {
		int shift = 64 - 8 * f->size;

		*v = (uint64_t)((int64_t)(*v << shift) >> shift);
	}
	return true;
}

/* Systems whose events are made by users, whatever their names. */
static bool dynamic_system(const char *sys)
{
	static const char *const dyn[] = { "kprobes", "uprobes", "eprobes", "fprobes",
					   "tracepoints", "synthetic", "user_events",
					   "user_events_multi" };

	for (size_t i = 0; i < ARRAY_SIZE(dyn); i++)
		if (!strcmp(sys, dyn[i]))
			return true;
	return false;
}

static struct tep_format_field *need(struct tep_event *te, const char *name)
{
	struct tep_format_field *f = tep_find_field(te, name);

	return f && is_number(f) ? f : NULL;
}

/* The type a generic field goes as: string, int64 or uint64. */
/*
 * Whether a field holds a kernel address (print's ip, kmalloc's call_site, a
 * pointer): as a varint its high bits make it 10 bytes, as fixed64 it is 8.
 */
static bool is_address(const struct tep_format_field *tf)
{
	size_t n = strlen(tf->name);

	if (tf->size != 8 || (tf->flags & TEP_FIELD_IS_SIGNED))
		return false;
	return (tf->flags & TEP_FIELD_IS_POINTER) || !strcmp(tf->name, "ip") ||
	       (n > 3 && !strcmp(tf->name + n - 3, "_ip")) || !strcmp(tf->name, "call_site") ||
	       strstr(tf->name, "addr") || strstr(tf->name, "ptr");
}

static int gen_type(const struct tep_format_field *tf)
{
	if (is_char_array(tf) || (tf->flags & TEP_FIELD_IS_STRING) || !is_number(tf))
		return TYPE_STRING;
	if (is_address(tf))
		return TYPE_FIXED64;
	return (tf->flags & TEP_FIELD_IS_SIGNED) ? TYPE_INT64 : TYPE_UINT64;
}

/* A generic event's DescriptorProto, when it has few enough fields and a number is left. */
static void describe(struct conv *x, struct evmap *m)
{
	int n = 0, num = 0;

	if (!m->te || x->next_gid > GEN_LAST)
		return;
	for (struct tep_format_field *tf = m->te->format.fields; tf; tf = tf->next)
		n++;
	if (n > GEN_MAX_FIELDS)
		return;
	m->gid = x->next_gid++;
	pf_str(&m->desc, DESC_NAME, m->te->name);
	for (struct tep_format_field *tf = m->te->format.fields; tf; tf = tf->next) {
		size_t f = pf_open(&m->desc, DESC_FIELD);

		pf_str(&m->desc, FDESC_NAME, tf->name);
		pf_uint(&m->desc, FDESC_NUMBER, (uint64_t)++num);
		pf_uint(&m->desc, FDESC_LABEL, LABEL_OPTIONAL);
		m->gtype[num - 1] = (uint8_t)gen_type(tf);
		pf_uint(&m->desc, FDESC_TYPE, m->gtype[num - 1]);
		pf_close(&m->desc, f);
	}
}

static struct evmap *make_map(struct conv *x, int id)
{
	struct evmap *m = xcalloc(1, sizeof(*m));
	struct tep_event *te = tep_find_event(x->tep, id);

	m->te = te;
	if (!te || dynamic_system(te->system) || !(m->pe = pf_event_find(te->name))) {
		m->kind = EV_GENERIC;
		describe(x, m);
		return m;
	}
	m->kind = EV_TYPED;
	if (!strcmp(te->system, "ftrace") && !strcmp(te->name, "print")) {
		m->kind = EV_PRINT;
		m->buf = tep_find_field(te, "buf");
	}
	if (!x->o->no_compact_sched && !strcmp(te->system, "sched")) {
		struct tep_format_field *comm;

		if (!strcmp(te->name, "sched_switch") &&
		    (comm = tep_find_field(te, "next_comm")) && is_char_array(comm) &&
		    (m->c[0] = need(te, "prev_state")) && (m->c[1] = need(te, "next_pid")) &&
		    (m->c[2] = need(te, "next_prio")) && (m->c[4] = need(te, "prev_pid"))) {
			m->c[3] = comm;
			m->kind = EV_SWITCH;
		} else if (!strcmp(te->name, "sched_waking") &&
			   (comm = tep_find_field(te, "comm")) && is_char_array(comm) &&
			   (m->c[0] = need(te, "pid")) && (m->c[1] = need(te, "target_cpu")) &&
			   (m->c[2] = need(te, "prio"))) {
			m->c[3] = comm;
			m->kind = EV_WAKING;
		}
	}
	m->f = xcalloc(m->pe->nfields ? m->pe->nfields : 1, sizeof(*m->f));
	for (uint32_t i = 0; i < m->pe->nfields; i++) {
		const struct pf_field *pf = &m->pe->fields[i];
		struct tep_format_field *tf = tep_find_field(te, pf->name);
		bool str = tf && (is_char_array(tf) || (tf->flags & TEP_FIELD_IS_STRING));

		if (!tf)
			continue;
		/* A field of another kind in this kernel than in the schema is left out. */
		if (pf->type == PF_STRING ? !str :
		    pf->type == PF_BYTES ? false : !is_number(tf))
			continue;
		m->f[m->nf++] = (struct fmap){ pf, tf };
	}
	return m;
}

static struct evmap *event_map(struct conv *x, const uint8_t *d, uint32_t size)
{
	int id;

	if (size < 2)
		return NULL;
	id = (int)tep_read_number(x->tep, d, 2);
	if (!x->maps[id])
		x->maps[id] = make_map(x, id);
	return x->maps[id];
}

static void free_maps(struct conv *x)
{
	if (!x->maps)
		return;
	for (int i = 0; i < 65536; i++)
		if (x->maps[i]) {
			pf_buf_free(&x->maps[i]->desc);
			free(x->maps[i]->f);
			free(x->maps[i]);
		}
	free(x->maps);
	x->maps = NULL;
}

/* ---- bundles ---- */

static void col_push(struct column *c, uint64_t v)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	c->v[c->n++] = v;
}

static uint64_t intern(struct conv *x, const char *s, size_t n)
{
	char key[16] = { 0 };

	memcpy(key, s, n < 15 ? n : 15);
	for (size_t i = x->ncomms; i-- > 0;)
		if (!memcmp(x->comms[i], key, sizeof(key)))
			return i;
	if (x->ncomms == x->comms_cap) {
		x->comms_cap = x->comms_cap ? x->comms_cap * 2 : 64;
		x->comms = xrealloc(x->comms, x->comms_cap * sizeof(*x->comms));
	}
	memcpy(x->comms[x->ncomms], key, sizeof(key));
	return x->ncomms++;
}

static void bundle_open(struct conv *x, int cpu, bool lost)
{
	packet_start(x);
	x->bundle_mark = pf_open(&x->pkt, PF_PACKET_FTRACE_EVENTS);
	pf_uint(&x->pkt, PF_BUNDLE_CPU, (uint64_t)cpu);
	if (lost)
		pf_uint(&x->pkt, PF_BUNDLE_LOST_EVENTS, 1);
	if (x->ftrace_clock)
		pf_uint(&x->pkt, PF_BUNDLE_FTRACE_CLOCK, (uint64_t)x->ftrace_clock);
	x->open = true;
	x->cpu = cpu;
	x->nevents = 0;
	x->sw_last = x->wk_last = 0;
	x->ncomms = 0;
	x->npending = 0;
	for (int i = 0; i < NCOLS; i++)
		x->col[i].n = 0;
}

static int bundle_close(struct conv *x)
{
	if (!x->open)
		return 0;
	x->open = false;
	if (x->col[SW_TS].n || x->col[WK_TS].n) {
		size_t m = pf_open(&x->pkt, PF_BUNDLE_COMPACT_SCHED);

		for (size_t i = 0; i < x->ncomms; i++)
			pf_bytes(&x->pkt, PF_COMPACT_INTERN_TABLE, x->comms[i],
				 strnlen(x->comms[i], sizeof(x->comms[i])));
		for (int i = 0; i < NCOLS; i++)
			pf_packed(&x->pkt, col_field[i], x->col[i].v, x->col[i].n);
		pf_close(&x->pkt, m);
	}
	for (size_t i = 0; i < x->npending; i++) {
		size_t m = pf_open(&x->pkt, PF_BUNDLE_GENERIC_EVENT_DESCRIPTORS);

		pf_uint(&x->pkt, PF_GDESC_FIELD_ID, x->pending[i]->gid);
		pf_bytes(&x->pkt, PF_GDESC_EVENT_DESCRIPTOR, x->pending[i]->desc.p,
			 x->pending[i]->desc.len);
		pf_close(&x->pkt, m);
	}
	x->npending = 0;
	pf_close(&x->pkt, x->bundle_mark);
	return packet_end(x);
}

/* Signed values of the packed int32 columns: as int64, two's complement. */
static uint64_t s64(uint64_t v, int size)
{
	int shift = 64 - 8 * size;

	return size < 8 ? (uint64_t)((int64_t)(v << shift) >> shift) : v;
}

static bool put_compact(struct conv *x, const struct evmap *m, const struct tfile_event *ev)
{
	const uint8_t *d = ev->data;
	uint64_t a, b, c;
	const char *comm;
	size_t n;

	if (!field_num(x, m->c[0], d, ev->size, &a) || !field_num(x, m->c[1], d, ev->size, &b) ||
	    !field_num(x, m->c[2], d, ev->size, &c) ||
	    !field_str(x, m->c[3], d, ev->size, &comm, &n))
		return false;
	if (m->kind == EV_SWITCH) {
		col_push(&x->col[SW_TS], ev->ts - x->sw_last);
		x->sw_last = ev->ts;
		col_push(&x->col[SW_STATE], a);
		col_push(&x->col[SW_PID], s64(b, 4));
		col_push(&x->col[SW_PRIO], s64(c, 4));
		col_push(&x->col[SW_COMM], intern(x, comm, n));
	} else {
		uint64_t pid, flags = 0;

		col_push(&x->col[WK_TS], ev->ts - x->wk_last);
		x->wk_last = ev->ts;
		pid = a;
		col_push(&x->col[WK_PID], s64(pid, 4));
		col_push(&x->col[WK_CPU], s64(b, 4));
		col_push(&x->col[WK_PRIO], s64(c, 4));
		col_push(&x->col[WK_COMM], intern(x, comm, n));
		if (x->common_flags)
			field_num(x, x->common_flags, d, ev->size, &flags);
		col_push(&x->col[WK_FLAGS], flags & 0xffffffff);
	}
	x->res->compact++;
	return true;
}

static void put_typed(struct conv *x, const struct evmap *m, const struct tfile_event *ev)
{
	const uint8_t *d = ev->data;
	size_t mark = pf_open(&x->pkt, m->pe->num);

	for (size_t i = 0; i < m->nf; i++) {
		const struct pf_field *pf = m->f[i].pf;
		const struct tep_format_field *tf = m->f[i].tf;
		const uint8_t *p;
		const char *s;
		size_t n;
		uint64_t v;

		switch (pf->type) {
		case PF_STRING:
			if (field_str(x, tf, d, ev->size, &s, &n))
				pf_bytes(&x->pkt, pf->num, s, n);
			break;
		case PF_BYTES:
			if (field_span(x, tf, d, ev->size, &p, &n))
				pf_bytes(&x->pkt, pf->num, p, n);
			break;
		case PF_INT32:
			if (field_num(x, tf, d, ev->size, &v))
				pf_int(&x->pkt, pf->num, (int32_t)v);
			break;
		case PF_UINT32:
			if (field_num(x, tf, d, ev->size, &v))
				pf_uint(&x->pkt, pf->num, (uint32_t)v);
			break;
		case PF_BOOL:
			if (field_num(x, tf, d, ev->size, &v))
				pf_uint(&x->pkt, pf->num, v != 0);
			break;
		case PF_INT64:
		case PF_UINT64:
			if (field_num(x, tf, d, ev->size, &v))
				pf_uint(&x->pkt, pf->num, v);
			break;
		}
	}
	pf_close(&x->pkt, mark);
	x->res->typed++;
}

/* Any other array: its elements in hex, "{0x1,0x2}", as text. */
static void put_array(struct conv *x, const struct tep_format_field *tf, const uint8_t *p,
		      size_t n, uint32_t field)
{
	size_t es = tf->elementsize > 0 && tf->elementsize <= 8 ? (size_t)tf->elementsize : 1;
	struct pf_buf t = { 0 };
	char buf[24];

	for (size_t i = 0; i + es <= n; i += es) {
		int len = snprintf(buf, sizeof(buf), "%s0x%llx", i ? "," : "{",
				   tep_read_number(x->tep, p + i, (int)es));

		pf_raw(&t, buf, (size_t)len);
	}
	pf_raw(&t, t.len ? "}" : "{}", t.len ? 1 : 2);
	pf_bytes(&x->pkt, field, t.p, t.len);
	pf_buf_free(&t);
}

/* A generic event in the dense form: its fields numbered as its descriptor says. */
static void put_dense(struct conv *x, struct evmap *m, const struct tfile_event *ev)
{
	const uint8_t *d = ev->data;
	size_t mark = pf_open(&x->pkt, m->gid);
	uint32_t num = 0;

	if (!m->desc_written) {
		if (x->npending == x->pending_cap) {
			x->pending_cap = x->pending_cap ? x->pending_cap * 2 : 16;
			x->pending = xrealloc(x->pending, x->pending_cap * sizeof(*x->pending));
		}
		x->pending[x->npending++] = m;
		m->desc_written = true;
	}
	for (struct tep_format_field *tf = m->te->format.fields; tf; tf = tf->next) {
		const uint8_t *p;
		const char *s;
		size_t n;
		uint64_t v;
		int type = m->gtype[num++];

		if (type == TYPE_FIXED64) {
			if (field_num(x, tf, d, ev->size, &v))
				pf_fixed64(&x->pkt, num, v);
		} else if (type != TYPE_STRING) {
			if (field_num(x, tf, d, ev->size, &v))
				pf_uint(&x->pkt, num, v);
		} else if (is_char_array(tf) || (tf->flags & TEP_FIELD_IS_STRING)) {
			if (field_str(x, tf, d, ev->size, &s, &n))
				pf_bytes(&x->pkt, num, s, n);
		} else if (field_span(x, tf, d, ev->size, &p, &n)) {
			put_array(x, tf, p, n, num);
		}
	}
	pf_close(&x->pkt, mark);
	x->res->generic++;
}

static void put_generic(struct conv *x, const struct evmap *m, const struct tfile_event *ev)
{
	const uint8_t *d = ev->data;
	size_t mark = pf_open(&x->pkt, PF_EVENT_GENERIC);
	char name[64];

	if (m->te)
		pf_str(&x->pkt, PF_GENERIC_EVENT_NAME, m->te->name);
	else {
		snprintf(name, sizeof(name), "unknown_%u", (unsigned)tep_read_number(x->tep, d, 2));
		pf_str(&x->pkt, PF_GENERIC_EVENT_NAME, name);
	}
	for (struct tep_format_field *tf = m->te ? m->te->format.fields : NULL; tf; tf = tf->next) {
		size_t fm = pf_open(&x->pkt, PF_GENERIC_FIELD);
		const uint8_t *p;
		const char *s;
		size_t n;
		uint64_t v;

		pf_str(&x->pkt, PF_GFIELD_NAME, tf->name);
		if (is_char_array(tf) || (tf->flags & TEP_FIELD_IS_STRING)) {
			if (field_str(x, tf, d, ev->size, &s, &n))
				pf_bytes(&x->pkt, PF_GFIELD_STR_VALUE, s, n);
		} else if (is_number(tf)) {
			if (field_num(x, tf, d, ev->size, &v)) {
				if (tf->flags & TEP_FIELD_IS_SIGNED)
					pf_int(&x->pkt, PF_GFIELD_INT_VALUE, (int64_t)v);
				else
					pf_uint(&x->pkt, PF_GFIELD_UINT_VALUE, v);
			}
		} else if (field_span(x, tf, d, ev->size, &p, &n)) {
			put_array(x, tf, p, n, PF_GFIELD_STR_VALUE);
		}
		pf_close(&x->pkt, fm);
	}
	pf_close(&x->pkt, mark);
	x->res->generic++;
}

/*
 * Whether a print event's text is atrace's ("B|pid|name", "E|pid", "C|...",
 * "S|", "F|", and the I, N, G, H kinds): trace_processor makes slices and
 * counters of those, and counts any other text of a typed print as an
 * import error, so that goes as a generic "print" event.
 */
static bool is_atrace(struct conv *x, const struct evmap *m, const struct tfile_event *ev)
{
	const char *s;
	size_t n;

	if (!m->buf || !field_str(x, m->buf, ev->data, ev->size, &s, &n) || !n || !strchr("BECSFINGH", s[0]))
		return false;
	return n == 1 || s[1] == '|' || s[1] == '\n';
}

static int put_event(struct conv *x, const struct tfile_event *ev)
{
	struct evmap *m = event_map(x, ev->data, ev->size);
	uint64_t pid = 0;
	size_t mark;
	bool generic;
	int r;

	if (x->open && (ev->missed || x->pkt.len > BUNDLE_BYTES ||
			x->col[SW_TS].n + x->col[WK_TS].n >= BUNDLE_COMPACT))
		if ((r = bundle_close(x)))
			return r;
	if (!x->open)
		bundle_open(x, ev->cpu, ev->missed != 0);
	if (ev->missed) {
		if (ev->missed > 0 && ev->cpu >= 0 && ev->cpu < x->nlost)
			x->lost[ev->cpu] += (uint64_t)ev->missed;
		else
			x->res->lost_unknown = true;
		x->res->lost += ev->missed > 0 ? (uint64_t)ev->missed : 0;
	}
	if (!m)
		return 0;
	if (m->kind == EV_SWITCH || m->kind == EV_WAKING) {
		bool chained = x->cpu_switched;
		uint64_t v = 0;

		if (m->kind == EV_SWITCH) {
			chained &= field_num(x, m->c[4], ev->data, ev->size, &v) &&
				    (uint32_t)v == (uint32_t)x->cpu_task;
			x->cpu_switched = field_num(x, m->c[1], ev->data, ev->size, &x->cpu_task);
		} else {
			chained &= x->common_pid &&
				   field_num(x, x->common_pid, ev->data, ev->size, &v) &&
				   (uint32_t)v == (uint32_t)x->cpu_task;
		}
		if (x->compact_ok && chained && put_compact(x, m, ev))
			return 0;
	}
	mark = pf_open(&x->pkt, PF_BUNDLE_EVENT);
	pf_uint(&x->pkt, PF_EVENT_TIMESTAMP, ev->ts);
	if (x->common_pid)
		field_num(x, x->common_pid, ev->data, ev->size, &pid);
	pf_uint(&x->pkt, PF_EVENT_PID, (uint32_t)pid);
	/* A print that is not atrace text goes as a generic event. */
	generic = m->kind == EV_GENERIC || (m->kind == EV_PRINT && !is_atrace(x, m, ev));
	if (generic && m->kind == EV_PRINT && !m->gid && !m->desc.len)
		describe(x, m);
	if (generic && m->gid)
		put_dense(x, m, ev);
	else if (generic)
		put_generic(x, m, ev);
	else
		put_typed(x, m, ev);
	pf_close(&x->pkt, mark);
	return 0;
}

/* The first timestamp of the input (for a snapshot without a pairing), or 0. */
static int first_ts(struct tfile *tf, uint64_t *ts)
{
	*ts = UINT64_MAX;
	for (int b = 0; b < tfile_nbuffers(tf); b++) {
		const struct tfile_buffer *buf = tfile_buffer(tf, b);

		for (int c = 0; !buf->latency && c < buf->ncpus; c++) {
			struct tfile_cursor *cur;
			struct tfile_event ev;
			int r = tfile_cursor_open(tf, b, c, &cur);

			if (r)
				return r;
			r = tfile_cursor_next(cur, &ev);
			if (r == 1 && ev.ts < *ts)
				*ts = ev.ts;
			tfile_cursor_free(cur);
			if (r < 0)
				return r;
		}
	}
	if (*ts == UINT64_MAX)
		*ts = 0;
	return 0;
}

static int put_input(struct conv *x, struct tfile *tf, uint32_t index)
{
	const struct tfile_info *in = tfile_info(tf);
	struct tep_event *any;
	uint64_t t0;
	int r, maxcpu = in->cpus > 0 ? in->cpus : 1;

	x->tf = tf;
	x->tep = tfile_tep(tf);
	x->machine = index;
	x->seq = index + 1;
	x->maps = xcalloc(65536, sizeof(*x->maps));
	any = tep_get_first_event(x->tep);
	x->common_pid = any ? tep_find_common_field(any, "common_pid") : NULL;
	x->common_flags = any ? tep_find_common_field(any, "common_flags") : NULL;
	for (int b = 0; b < tfile_nbuffers(tf); b++)
		for (int c = 0; c < tfile_buffer(tf, b)->ncpus; c++)
			if (tfile_buffer(tf, b)->cpus[c].cpu >= maxcpu)
				maxcpu = tfile_buffer(tf, b)->cpus[c].cpu + 1;
	x->nlost = maxcpu;
	x->lost = xcalloc((size_t)maxcpu, sizeof(*x->lost));

	put_sysinfo(x);
	if ((r = packet_end(x)) || (r = first_ts(tf, &t0)) || (r = put_clocks(x, t0)) ||
	    (r = put_tree(x)) || (r = put_stats(x, PF_PHASE_START_OF_TRACE)))
		goto out;
	x->compact_ok = !x->o->no_compact_sched;
	for (int b = 0, nb = 0; b < tfile_nbuffers(tf); b++) {
		const struct tfile_buffer *buf = tfile_buffer(tf, b);
		uint64_t bytes = 0;

		for (int c = 0; c < buf->ncpus; c++)
			bytes += buf->cpus[c].size;
		if (!buf->latency && bytes && ++nb > 1)
			x->compact_ok = false;
	}
	for (int b = 0; b < tfile_nbuffers(tf) && !r; b++) {
		const struct tfile_buffer *buf = tfile_buffer(tf, b);

		if (buf->latency) {
			x->res->latency_buffers++;
			continue;
		}
		for (int c = 0; c < buf->ncpus && !r; c++) {
			struct tfile_cursor *cur;
			struct tfile_event ev;

			if ((r = tfile_cursor_open(tf, b, c, &cur)))
				break;
			x->cpu_switched = false;
			while ((r = tfile_cursor_next(cur, &ev)) == 1)
				if ((r = put_event(x, &ev)))
					break;
			tfile_cursor_free(cur);
			if (r >= 0)
				r = bundle_close(x);
		}
	}
	if (!r)
		r = put_stats(x, PF_PHASE_END_OF_TRACE);
out:
	free_maps(x);
	free(x->lost);
	x->lost = NULL;
	return r;
}

int pf_convert(struct tfile *const *inputs, size_t n, int fd, const struct pf_opts *o,
	       struct pf_result *res)
{
	struct conv x = { .o = o, .res = res, .fd = fd, .next_gid = GEN_FIRST };
	int r = 0;

	*res = (struct pf_result){ 0 };
	for (size_t i = 0; i < n && !r; i++)
		r = put_input(&x, inputs[i], (uint32_t)i);
	if (!r)
		r = flush_out(&x, 0);
	pf_buf_free(&x.out);
	pf_buf_free(&x.pkt);
	for (int i = 0; i < NCOLS; i++)
		free(x.col[i].v);
	free(x.comms);
	free(x.pending);
	return r;
}

void pf_result_free(struct pf_result *res)
{
	strv_free(&res->notes);
}
