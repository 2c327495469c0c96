// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The formatter: one record in, one line out.
 *
 * Text lines have trace-cmd report's layout,
 *   "PREFIX        COMM-PID   [CPU]  SECS.USECS: NAME:                TEXT"
 * where TEXT is libtraceevent's rendering of the event's print fmt (or, with
 * plugins loaded on the tep, the plugin's), i.e. what the kernel's `trace`
 * file shows.  The columns are formatted here, by hand, into one line buffer
 * that is written with a single fwrite: this is the hot path of tr report,
 * so nothing in it allocates and tep event lookups are cached by id.
 *
 * JSON lines carry every field typed (numbers, strings, arrays); CSV rows
 * the common columns and the event text.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "btf.h"
#include "tfile-format.h"
#include "fmt-filter.h"
#include "parse.h"
#include "fmt-kernel.h"
#include "fmt-graph.h"
#include "fmt-local.h"
#include "fmt-usym.h"
#include "json.h"
#include "tfile.h"

enum { COMM_LEN = 24, NAME_COL = 21 };

struct comm_ent {
	int pid;
	uint8_t state;		/* 0 empty, 1 learned from the trace, 2 saved_cmdlines */
	char comm[COMM_LEN];
};

struct tgid_ent {
	int pid, tgid;		/* pid 0 marks an empty slot (0 is never stored) */
};

/* A field pair that names a task: "prev_comm"/"prev_pid", "comm"/"pid". */
struct comm_pair {
	struct tep_format_field *comm, *pid;
};

struct ev_info {
	struct tep_event *event;
	bool looked;
	bool learn_done;
	int npairs;
	struct comm_pair pairs[4];
	struct fmt_prog *prog;	/* the fast printer, or NULL */
	bool user;		/* a user event: printed as the kernel does (fmt-user.c) */
	const char *withheld;	/* why the print fmt is not used (tfile-format.h), or NULL */
	/* __print_hex/__print_array lengths read from the record, checked per record. */
	int nlens;
	struct { struct tep_format_field *fld; int el; } lens[4];
	bool lens_warned;
	uint32_t min_size;	/* a shorter record is not for libtraceevent */
	int checked;		/* records compared with libtraceevent so far */
	struct kprog *kp;	/* the kernel's printer, or NULL */
	bool kp_done;		/* kp compiled (or found impossible) */
	/* pagemap's folio and pfn, from which vmemmap_base follows (0: none) */
	struct tep_format_field *folio, *pfn;
	/* ftrace:funcgraph_entry/exit (FG_ENTRY, FG_EXIT) and the fields the graph reads */
	enum fmt_graph_kind graph;
	struct tep_format_field *g_func, *g_depth, *g_call, *g_ret, *g_retval, *g_overrun;
	/* 6.13+ fgraph_retaddr_entry's retaddr; 6.15+ the entries' args[] (a dynamic array) */
	struct tep_format_field *g_retaddr, *g_args;
	bool g_is_retaddr;	/* fgraph_retaddr_entry (a later one keeps retaddr in args[0]) */
	int name_len;		/* bytes of the padded "NAME: " column */
	char name_col[72];
	const char *eprobe;	/* an eprobe's event ("sched.sched_switch"), or NULL */
	/* ftrace:user_stack's tgid field (fmt_src_user_stack_tgid()), once looked up */
	bool us_done;
	struct tep_format_field *us_tgid;
};

static const struct tfile_procmap *kprocmap(void *ctx, int tgid);

struct fmt_src {
	struct fmt *f;
	struct tep_handle *tep;
	struct comm_ent *comms;
	size_t ncomm_cap, ncomms;
	/*
	 * fmt_src_comm()'s last answers, by the pid's low bits (comm NULL:
	 * none; any change to the names drops them all): scheduler events
	 * name a few tasks by turns.
	 */
	struct {
		int pid;
		const char *comm;
	} last[8];
	/* fmt_src_learn(): pids saved_cmdlines names (those names stand), by the low bits */
	int named[256];
	/* fmt_src_learn(): ids whose records teach nothing (a bit each) */
	uint64_t *mute;
	struct tgid_ent *tgids;
	size_t ntgid_cap, ntgids;
	const struct tfile_procmap *procmaps;	/* fmt_src_procmaps(): the caller's */
	int nprocmaps;
	struct ev_info **ids;	/* by event id, 0..65535 */
	/* A record's copy with zeros after it, for libtraceevent (see safe_record). */
	uint8_t *scratch;
	uint32_t scratch_used, scratch_cap;
	struct tep_event_filter **filters;	/* one per -F: an event passes if any matches */
	int nfilters;
	bool has_filter, invert;
	/* --pid / --comm: only these tasks (either list may be empty) */
	int *task_pids;
	size_t ntask_pids;
	struct strv task_comms;
	bool has_tasks;
	bool swap;		/* the file's byte order is not ours */
	int pid_off, pid_size;	/* common_pid */
	int flags_off, pc_off;	/* common_flags, common_preempt_count (one byte each; -1: none) */
	/* eprobes: "group/name" and the event each is on ("sched.sched_switch") */
	struct strv ep_names, ep_events;
	int type_off, type_size;/* common_type */
	/* What the kernel's printer reads beside the records (see fmt.h). */
	struct kenv env;
	bool env_done;
	fmt_format_fn format_fn;
	void *format_ctx;
	fmt_load_event_fn load_event;	/* fmt_src_lazy() */
	fmt_load_syms_fn load_syms;
	void *load_ctx;
	char *ksym_text;	/* the symbols' names, each NUL-ended */
	size_t ksym_len, ksym_cap, ksyms_cap;
	uint32_t ksym_mod;	/* the last module named, at this offset (0: none yet) */
	bool ksyms_done;	/* fmt_src_kallsyms_end() came */
	struct ksym *ksyms;	/* by address */
	size_t nksyms;
	/*
	 * The kernel's own text and init text (_stext.._etext, _sinittext..
	 * _einittext; 0 when kallsyms does not name them), and whether kallsyms
	 * lists data symbols (CONFIG_KALLSYMS_ALL: static data shows as d or b).
	 * Without them the kernel's kallsyms_lookup() names no address outside
	 * the text: a static timer's address prints bare under %pS.
	 */
	uint64_t stext, etext, sinittext, einittext;
	bool ksym_data;
	struct kstr *kstrs;	/* printk_formats, by address (open addressing) */
	size_t kstr_cap;
	const struct btf *btf;
	fmt_load_btf_fn btf_fn;	/* where btf comes from at its first use, or NULL */
	void *btf_ctx;
	bool tep_syms;		/* the tep's own symbol table can be asked */
	void (*tep_load)(void *arg);	/* or will have, once this is called */
	/* The last symbols found, by address: a trace names few, often. */
	struct ksym_hit {
		uint64_t addr, start, size;
		const char *name, *mod;
	} ksym_cache[64];
	void *tep_load_arg;
	uint64_t vmemmap_default;	/* vmemmap_base without KASLR */
	bool vmemmap_learned;	/* from a folio and its pfn in the trace */
	const char *clock;	/* the clock last given, by pointer */
	bool clock_ns;		/* the timestamps count ns */
	bool lib_raw;		/* trace-cmd prints them as a count (counter, x86-tsc) */
	/* The function_graph view: one printer per buffer (by its prefix pointer). */
	bool graph_seen;
	int ncpus;
	char *file;		/* fmt_src_file: JSON's "file", or NULL */
	struct fmt_graph_opts gopts;	/* the file's, then fmt_opts.graph_opts */
	struct { const char *prefix; struct fmt_graph *g; } *graphs;
	size_t ngraphs;
	bool irq_done;
	uint64_t irq_lo, irq_hi;
	/* The kernel's trace options that shape its lines (fmt-kopts.c). */
	struct fmt_kopts ko;
	bool ko_line;		/* one of them leaves tr's usual line: kernel_line() prints */
	int blk_type;		/* the blk tracer's entry type, -1 when unknown; 0: not looked */
	bool irq_col;		/* tr's usual line shows the irq-info column */
	bool overran;		/* the buffer overran: annotate marks each CPU's start */
	uint8_t *started;	/* annotate: CPUs whose first event was printed, by number */
	int nstarted;
	char release[65];	/* the kernel's, for the latency header */
	char missing[512];
	struct fmt_src *next;
};

/* The BTF, loaded at the first use when it comes from fmt_src_btf_lazy(). */
static const struct btf *src_btf(struct fmt_src *s)
{
	if (!s->btf && s->btf_fn) {
		fmt_load_btf_fn fn = s->btf_fn;

		s->btf_fn = NULL;
		s->btf = fn(s->btf_ctx);
	}
	return s->btf;
}

/*
 * 16 bytes a symbol and its name in ksym_text: a kernel has 120,000 of
 * them, and kept as pointers into a copy of the text (and sorted through
 * another copy) they were most of a short tr stream's memory.
 */
struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset in ksym_text; of symbols at one address, the first wins */
	uint32_t mod;		/* offset of the module's name, or 0 for the kernel's own */
};

struct kstr {
	uint64_t addr;
	char *s;
};

struct fmt {
	FILE *out;
	struct fmt_opts o;
	struct trace_seq seq;
	struct fmt_line ln;	/* the output line being built */
	struct fmt_line txt;	/* event text, for CSV */
	bool verify_all;	/* TR_FMT_VERIFY: check every fast-printed record */
	bool mismatch;		/* a check failed (reported once) */
	struct fmt_src *srcs;
	int err;
	uint64_t sec;		/* put_time(): the last seconds printed, */
	char sec_txt[32];	/* as " %5llu." */
	int sec_len;		/* (0: none yet) */
	uint64_t last_ts;	/* ts_diff: the previous printed event's */
	bool have_last;
	fmt_peek_fn peek;	/* the function_graph view's look-ahead (fmt_lookahead) */
	fmt_skip_fn skip;
	void *peek_ctx;
	uint64_t idx;		/* records printed, as the kernel's iterator counts them */
	/*
	 * latency-format: a line waits for the next record, whose time its
	 * time column needs; pend holds it, and its time goes in at pend_at.
	 */
	struct fmt_line pend, tmp;
	size_t pend_at;
	uint64_t pend_ts;
	bool pending, pend_verbose, pend_ns;
	/* fmt_event(): the last prefix and its length */
	const char *pfx;
	size_t pfx_len;
	/* fmt_buffer(): lines gather here and go out in large writes */
	struct fmt_line obuf;
	bool buffered;
	struct usym_cache *usyms;	/* --user-syms: the objects' ELF symbols, by path */
};

/* ---- the line buffer ---- */

static void grow(struct fmt *f, size_t more)
{
	if (f->ln.len + more > f->ln.cap) {
		f->ln.cap = (f->ln.len + more) * 2;
		f->ln.p = xrealloc(f->ln.p, f->ln.cap);
	}
}

static inline void put(struct fmt *f, const char *s, size_t n)
{
	if (!n)
		return;
	grow(f, n);
	fmt_copy(f->ln.p + f->ln.len, s, n);
	f->ln.len += n;
}

static inline void puts_(struct fmt *f, const char *s)
{
	put(f, s, strlen(s));
}

static inline void putc_(struct fmt *f, char c)
{
	grow(f, 1);
	f->ln.p[f->ln.len++] = c;
}

void fmt_line_vprintf(struct fmt_line *l, const char *fmt, va_list ap)
{
	char tmp[64];
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	if (n > 0 && n < (int)sizeof(tmp)) {
		fmt_line_grow(l, n);
		memcpy(l->p + l->len, tmp, n);
		l->len += n;
	} else if (n > 0) {
		/* Longer than the usual piece: once more, into the line itself. */
		fmt_line_grow(l, n + 1);
		vsnprintf(l->p + l->len, n + 1, fmt, again);
		l->len += n;
	}
	va_end(again);
}

void fmt_line_printf(struct fmt_line *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_line_vprintf(l, fmt, ap);
	va_end(ap);
}

/* Unsigned decimal, right-aligned in width (0: no padding), zero-padded if zero. */
static inline void put_u(struct fmt *f, uint64_t v, int width, bool zero)
{
	char tmp[24];
	int n = fmt_u_digits(tmp + sizeof(tmp), v);

	grow(f, (n > width ? n : width));
	/* memset, not a loop of stores through f->ln.p (see put_comm_pid). */
	if (width > n) {
		memset(f->ln.p + f->ln.len, zero ? '0' : ' ', width - n);
		f->ln.len += width - n;
	}
	memcpy(f->ln.p + f->ln.len, tmp + sizeof(tmp) - n, n);
	f->ln.len += n;
}

static inline void put_i(struct fmt *f, int64_t v)
{
	if (v < 0) {
		putc_(f, '-');
		put_u(f, -(uint64_t)v, 0, false);
	} else {
		put_u(f, v, 0, false);
	}
}

/* fmt_buffer(): the bytes gathered before they are written */
#define FMT_OBUF (64 * 1024)

/*
 * What fmt_buffer() gathered, written to the stream's file itself: stdio
 * would copy it once more into its own buffer (fmt_buffer flushed that).
 */
static void drain(struct fmt *f)
{
	size_t done = 0;

	while (done < f->obuf.len && !f->err) {
		ssize_t n = write(fileno(f->out), f->obuf.p + done, f->obuf.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			f->err = n < 0 ? -errno : -EIO;
		else
			done += n;
	}
	f->obuf.len = 0;
}

/* Bytes for the output, in order: gathered when buffered (a stdio call a line costs more). */
static void write_out(struct fmt *f, const char *p, size_t n)
{
	if (!n)
		return;		/* (a held latency line leaves none, and obuf may be NULL) */
	if (f->buffered) {
		fmt_line_grow(&f->obuf, n);
		memcpy(f->obuf.p + f->obuf.len, p, n);
		f->obuf.len += n;
		if (f->obuf.len >= FMT_OBUF)
			drain(f);
		return;
	}
	if (fwrite_unlocked(p, 1, n, f->out) != n && !f->err)
		f->err = errno ? -errno : -EIO;
}

static void emit(struct fmt *f)
{
	write_out(f, f->ln.p, f->ln.len);
	f->ln.len = 0;
}

void fmt_buffer(struct fmt *f, bool on)
{
	if (on == f->buffered)
		return;
	if (on && fflush(f->out) && !f->err)
		f->err = -errno;
	if (!on)
		drain(f);
	f->buffered = on;
}

int fmt_error(const struct fmt *f)
{
	return f->err;
}

struct fmt *fmt_new(FILE *out, const struct fmt_opts *o)
{
	struct fmt *f = xcalloc(1, sizeof(*f));

	f->out = out;
	f->o = *o;
	f->ln.cap = 4096;
	f->ln.p = xmalloc(f->ln.cap);
	trace_seq_init(&f->seq);
	f->verify_all = getenv("TR_FMT_VERIFY") && *getenv("TR_FMT_VERIFY") == '1';
	if (f->o.kind == FMT_CSV) {
		puts_(f, "timestamp,cpu,comm,pid,system,event,info\n");
		emit(f);
	}
	return f;
}

static void lat_release(struct fmt *f, uint64_t next);

int fmt_flush(struct fmt *f)
{
	if (f->pending)
		lat_release(f, f->pend_ts);
	drain(f);
	if (fflush(f->out) && !f->err)
		f->err = -errno;
	return f->err;
}

void fmt_free(struct fmt *f)
{
	if (!f)
		return;
	drain(f);
	while (f->srcs)
		fmt_src_free(f->srcs);
	trace_seq_destroy(&f->seq);
	free(f->ln.p);
	free(f->txt.p);
	free(f->pend.p);
	free(f->tmp.p);
	free(f->obuf.p);
	usym_cache_free(f->usyms);
	free(f);
}

/* ---- sources: comm tables and the event cache ---- */

struct fmt_src *fmt_src_new(struct fmt *f, struct tep_handle *tep)
{
	struct fmt_src *s = xcalloc(1, sizeof(*s));
	struct tep_event *e = tep_get_first_event(tep);
	struct tep_format_field *fld;

	s->f = f;
	s->tep = tep;
	s->ids = xcalloc(65536, sizeof(*s->ids));
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
	for (size_t i = 0; i < s->kstr_cap; i++)
		free(s->kstrs[i].s);
	free(s->kstrs);
	free(s->ids);
	free(s->comms);
	free(s->mute);
	free(s->tgids);
	free(s->scratch);
	for (int i = 0; i < s->nfilters; i++)
		tep_filter_free(s->filters[i]);
	free(s->filters);
	free(s->task_pids);
	strv_free(&s->task_comms);
	free(s->started);
	free(s);
}

static inline size_t hash_pid(int pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static void forget_comms(struct fmt_src *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(s->last); i++)
		s->last[i].comm = NULL;
}

static struct comm_ent *comm_slot(struct fmt_src *s, int pid, bool insert)
{
	size_t i;

	if (insert)
		forget_comms(s);	/* the table may move, and the name change */

	if (!s->ncomm_cap) {
		if (!insert)
			return NULL;
		s->ncomm_cap = 1024;
		s->comms = xcalloc(s->ncomm_cap, sizeof(*s->comms));
	}
	if (insert && (s->ncomms + 1) * 2 > s->ncomm_cap) {
		struct comm_ent *old = s->comms;
		size_t oldcap = s->ncomm_cap;

		s->ncomm_cap *= 2;
		s->comms = xcalloc(s->ncomm_cap, sizeof(*s->comms));
		for (size_t j = 0; j < oldcap; j++) {
			if (!old[j].state)
				continue;
			for (i = hash_pid(old[j].pid, s->ncomm_cap); s->comms[i].state;
			     i = (i + 1) & (s->ncomm_cap - 1))
				;
			s->comms[i] = old[j];
		}
		free(old);
	}
	for (i = hash_pid(pid, s->ncomm_cap); s->comms[i].state; i = (i + 1) & (s->ncomm_cap - 1))
		if (s->comms[i].pid == pid)
			return &s->comms[i];
	if (!insert)
		return NULL;
	s->ncomms++;
	s->comms[i].pid = pid;
	return &s->comms[i];
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
	if (!s->ntgid_cap)
		return 0;
	size_t mask = s->ntgid_cap - 1;

	for (size_t i = hash_pid(pid, s->ntgid_cap); s->tgids[i].pid; i = (i + 1) & mask)
		if (s->tgids[i].pid == pid)
			return s->tgids[i].tgid;
	return 0;
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
	free(s->tgids);
	/* A second text replaces the first (tr stream reads them again). */
	s->ntgids = 0;
	for (s->ntgid_cap = 64; s->ntgid_cap < n * 2 + 2; s->ntgid_cap *= 2)
		;
	s->tgids = xcalloc(s->ntgid_cap, sizeof(*s->tgids));
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
		    tgid <= INT32_MAX && s->ntgids + 1 < s->ntgid_cap) {
			size_t i;

			i = hash_pid(pid, s->ntgid_cap);
			while (s->tgids[i].pid && s->tgids[i].pid != pid)
				i = (i + 1) & (s->ntgid_cap - 1);
			if (!s->tgids[i].pid)
				s->ntgids++;
			s->tgids[i].pid = pid;
			s->tgids[i].tgid = tgid;
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

/* A number of the record, in the file's byte order. */
static inline uint64_t rd_num(struct fmt_src *s, const void *p, int size)
{
	if (!s->swap) {
		switch (size) {
		case 1: return *(const uint8_t *)p;
		case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
		case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
		case 8: { uint64_t v; memcpy(&v, p, 8); return v; }
		}
	}
	return tep_read_number(s->tep, p, size);
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
static bool lens_fit(struct fmt_src *s, const struct ev_info *ei, const struct tep_record *rec)
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
static void kernel_compile(struct fmt_src *s, struct ev_info *ei);

static struct ev_info *ev_lookup(struct fmt_src *s, int id)
{
	struct ev_info *ei = s->ids[id & 0xffff];

	if (ei)
		return ei;
	ei = xcalloc(1, sizeof(*ei));
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
		kernel_compile(s, ei);
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
	struct ev_info *ei = id >= 0 ? ev_lookup(s, id) : NULL;

	if (system)
		*system = ei && ei->event ? ei->event->system : NULL;
	return ei && ei->event ? ei->event->name : NULL;
}

int fmt_src_user_stack_tgid(struct fmt_src *s, const struct tfile_event *ev)
{
	int id = fmt_src_event_id(s, ev);
	struct ev_info *ei = id >= 0 ? ev_lookup(s, id) : NULL;
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
	return kprocmap((void *)s, tgid) != NULL;
}

static inline int rec_pid(struct fmt_src *s, const struct tfile_event *ev)
{
	if (ev->size < (uint32_t)(s->pid_off + s->pid_size))
		return -1;
	return (int)rd_num(s, (const uint8_t *)ev->data + s->pid_off, s->pid_size);
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
	ei = ev_lookup(s, id);
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
 * 64 KiB are refused in ev_lookup) that every such read stays inside.
 */
enum { SCRATCH_TAIL = (128 << 10) + 64 };

static void *safe_record(struct fmt_src *s, const void *data, uint32_t size)
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

static inline void fill_record(struct tep_record *rec, const struct tfile_event *ev)
{
	memset(rec, 0, sizeof(*rec));
	rec->ts = ev->ts;
	rec->cpu = ev->cpu;
	rec->data = ev->data;
	rec->size = ev->size;
	rec->record_size = ev->size;
	rec->missed_events = ev->missed;
	rec->ref_count = 1;
	rec->locked = 1;
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
	rec.data = safe_record(s, ev->data, ev->size);
	for (int i = 0; i < s->nfilters && !match; i++)
		match = tep_filter_match(s->filters[i], &rec) == FILTER_MATCH;
	return match != s->invert;
}

/* ---- what the kernel's printer reads beside the records ---- */

void fmt_src_formats(struct fmt_src *s, fmt_format_fn fn, void *ctx)
{
	s->format_fn = fn;
	s->format_ctx = ctx;
}

void fmt_src_lazy(struct fmt_src *s, fmt_load_event_fn event, fmt_load_syms_fn syms, void *ctx)
{
	s->load_event = event;
	s->load_syms = syms;
	s->load_ctx = ctx;
}

static void vmemmap_guess(struct fmt_src *s);

static bool kernel_half(const struct fmt_src *s, uint64_t addr)
{
	return tep_get_long_size(s->tep) == 4 ? addr >> 31 == 1 && addr <= UINT32_MAX : addr >> 63;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

void fmt_src_vmemmap(struct fmt_src *s, uint64_t base)
{
	s->vmemmap_default = base;
	if (s->env.vmemmap && !s->vmemmap_learned)
		s->env.vmemmap = base;
}

uint64_t fmt_running_vmemmap(void)
{
	char *text, *flags;
	bool la57 = false;

	/* The kernel keeps "la57" among the CPU's flags only when it pages with 5 levels. */
	if (!read_file("/proc/cpuinfo", &text, NULL)) {
		flags = strstr(text, "\nflags");
		if (flags) {
			char *nl = strchrnul(flags + 1, '\n');

			*nl = '\0';
			la57 = strstr(flags, " la57") != NULL;
		}
		free(text);
	}
	return la57 ? 0xffd4000000000000ULL : 0xffffea0000000000ULL;
}

void fmt_src_kernel(struct fmt_src *s, const char *release)
{
	unsigned a = 0, b = 0;

	if (release && sscanf(release, "%u.%u", &a, &b) == 2 && a < 256 && b < 256)
		s->env.kver = a << 8 | b;
	snprintf(s->release, sizeof(s->release), "%s", release ? release : "");
}

void fmt_src_tep_symbols(struct fmt_src *s)
{
	s->tep_syms = true;
	if (s->env_done)
		vmemmap_guess(s);
}

void fmt_src_tep_symbols_loader(struct fmt_src *s, void (*load)(void *arg), void *arg)
{
	s->tep_load = load;
	s->tep_load_arg = arg;
}

void fmt_src_kallsyms(struct fmt_src *s, const char *text)
{
	if (!text || s->ksyms_done)
		return;
	fmt_src_kallsyms_lines(s, text, strlen(text));
	fmt_src_kallsyms_end(s);
}

/* Append name[0..n) and a NUL to the names, and say where. */
static uint32_t keep_name(struct fmt_src *s, const char *name, size_t n)
{
	size_t at = s->ksym_len;

	if (s->ksym_cap - at < n + 1) {
		s->ksym_cap = s->ksym_cap ? s->ksym_cap * 2 : 65536;
		if (s->ksym_cap - at < n + 1)
			s->ksym_cap = at + n + 1;
		s->ksym_text = xrealloc(s->ksym_text, s->ksym_cap);
	}
	memcpy(s->ksym_text + at, name, n);
	s->ksym_text[at + n] = '\0';
	s->ksym_len += n + 1;
	return (uint32_t)at;
}

/* Note where the kernel's text and init text start and end (a module has none of these). */
static void text_bound(struct fmt_src *s, const char *name, size_t n, uint64_t addr)
{
	static const struct {
		const char *name;
		size_t off;
	} bounds[] = {
		{ "_stext", offsetof(struct fmt_src, stext) },
		{ "_etext", offsetof(struct fmt_src, etext) },
		{ "_sinittext", offsetof(struct fmt_src, sinittext) },
		{ "_einittext", offsetof(struct fmt_src, einittext) },
	};

	if (n < 6 || name[0] != '_')
		return;
	for (size_t i = 0; i < ARRAY_SIZE(bounds); i++)
		if (strlen(bounds[i].name) == n && !memcmp(bounds[i].name, name, n))
			*(uint64_t *)((char *)s + bounds[i].off) = addr;
}

/* One line: "ffffffff81000000 T _text" or "... t name\t[module]". */
static void ksym_line(struct fmt_src *s, const char *p, const char *eol)
{
	const char *name, *end, *name_end, *mod, *e = p;
	uint64_t addr = 0;

	/* By hand, not strtoull(): a piece of lines need not end in a NUL. */
	for (; e < eol && e - p < 16 && isxdigit((unsigned char)*e); e++)
		addr = addr << 4 | (uint64_t)(isdigit((unsigned char)*e) ? *e - '0' :
					      (tolower((unsigned char)*e) - 'a' + 10));
	/*
	 * Only the kernel's half of the address space: the per-CPU symbols
	 * listed at small offsets are not where anything runs.
	 */
	if (e == p || e + 3 >= eol || e[0] != ' ' || e[1] == '\n' || e[2] != ' ' ||
	    !kernel_half(s, addr))
		return;
	name = e + 3;
	for (end = name; end < eol && *end != ' ' && *end != '\t'; end++)
		;
	/* Offsets are 32 bits: names of 4 GiB are not a kernel's. */
	if (end == name || s->ksym_len + (size_t)(eol - p) >= UINT32_MAX)
		return;
	if (s->nksyms == s->ksyms_cap) {
		s->ksyms_cap = s->ksyms_cap ? s->ksyms_cap * 2 : 4096;
		s->ksyms = xrealloc(s->ksyms, s->ksyms_cap * sizeof(*s->ksyms));
	}
	s->ksyms[s->nksyms].addr = addr;
	name_end = end;
	s->ksyms[s->nksyms].name = keep_name(s, name, (size_t)(end - name));
	s->ksyms[s->nksyms].mod = 0;
	while (end < eol && (*end == ' ' || *end == '\t'))
		end++;
	if (end < eol && *end == '[') {
		size_t n;

		mod = ++end;
		while (end < eol && *end != ']')
			end++;
		n = (size_t)(end - mod);
		/* A module's name once for its run of symbols. */
		if (!s->ksym_mod || strlen(s->ksym_text + s->ksym_mod) != n ||
		    memcmp(s->ksym_text + s->ksym_mod, mod, n))
			s->ksym_mod = keep_name(s, mod, n);
		s->ksyms[s->nksyms].mod = s->ksym_mod;
	} else if (e[1] == 'd' || e[1] == 'b') {
		s->ksym_data = true;
	} else if (e[1] == 'T') {
		text_bound(s, name, (size_t)(name_end - name), addr);
	}
	s->nksyms++;
}

void fmt_src_kallsyms_lines(struct fmt_src *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	if (s->ksyms_done)
		return;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			eol = end;
		ksym_line(s, p, eol);
		p = eol + 1;
	}
}

static bool ksyms_sorted(const struct fmt_src *s)
{
	for (size_t i = 1; i < s->nksyms; i++)
		if (cmp_ksym(&s->ksyms[i - 1], &s->ksyms[i]) > 0)
			return false;
	return true;
}

void fmt_src_kallsyms_end(struct fmt_src *s)
{
	if (s->ksyms_done)
		return;
	s->ksyms_done = true;
	if (s->ksym_text)
		s->ksym_text = xrealloc(s->ksym_text, s->ksym_len);
	if (s->nksyms) {
		s->ksyms = xrealloc(s->ksyms, s->nksyms * sizeof(*s->ksyms));
		/* The kernel lists them in order; sorting a sorted list took a copy of it. */
		if (!ksyms_sorted(s))
			qsort(s->ksyms, s->nksyms, sizeof(*s->ksyms), cmp_ksym);
	}
	vmemmap_guess(s);
}

static bool ksym(void *ctx, uint64_t addr, const char **name, uint64_t *start, uint64_t *size,
		 const char **mod);

/*
 * vmemmap_base (pfn_to_page() in kmem's formats): the default for the
 * paging mode (fmt_src_vmemmap), when the kernel's text is where x86-64
 * links it -- KASLR, which moves vmemmap, moves the text too.  Otherwise
 * unknown, and those records print as libtraceevent prints them.
 */
static void vmemmap_guess(struct fmt_src *s)
{
	const char *name, *mod;
	uint64_t start, size;

	/* (Any name: several symbols start the text, and "_text" need not come first.) */
	if (tep_get_long_size(s->tep) == 8 && !s->vmemmap_learned &&
	    ksym(s, 0xffffffff81000000ULL, &name, &start, &size, &mod) &&
	    start == 0xffffffff81000000ULL && !mod)
		s->env.vmemmap = s->vmemmap_default;
}

/* The kernel's kallsyms_lookup(): the symbol at or below addr, its size to the next one. */
static bool ksym(void *ctx, uint64_t addr, const char **name, uint64_t *start, uint64_t *size,
		 const char **mod)
{
	struct fmt_src *s = ctx;
	size_t lo = 0, hi = s->nksyms, i, j;
	struct ksym_hit *hit;

	hit = &s->ksym_cache[(addr >> 4 ^ addr >> 12) & 63];
	/* (Only kernel addresses get there: the check below is passed already.) */
	if (s->nksyms && hit->name && hit->addr == addr) {
		*name = hit->name;
		*start = hit->start;
		*size = hit->size;
		*mod = hit->mod;
		return true;
	}
	/* A user-space address (a page fault's, a uprobe's) is no symbol's. */
	if (!kernel_half(s, addr))
		return false;
	if (!s->nksyms) {
		unsigned long sz = 0;
		unsigned long long st = 0;

		/*
		 * No text of our own (a live stream): libtraceevent's table.
		 * Note that it must not be asked before it has the symbols: it
		 * builds its index at the first lookup and never again.
		 */
		if (!s->tep_syms || !tep_find_function_info(s->tep, addr, name, &st, &sz))
			return false;
		*start = st;
		*size = sz;
		*mod = NULL;
		return true;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	i = lo - 1;
	while (i && s->ksyms[i - 1].addr == s->ksyms[i].addr)
		i--;
	for (j = i + 1; j < s->nksyms && s->ksyms[j].addr == s->ksyms[i].addr; j++)
		;
	/* Past the last symbol there is nothing to say it belongs to. */
	if (j == s->nksyms)
		return false;
	/* is_ksym_addr(): without data symbols, only the text has names. */
	if (!s->ksyms[i].mod && !s->ksym_data && s->stext && s->etext &&
	    !(addr >= s->stext && addr < s->etext) &&
	    !(addr >= s->sinittext && addr < s->einittext))
		return false;
	*name = s->ksym_text + s->ksyms[i].name;
	*start = s->ksyms[i].addr;
	*size = s->ksyms[j].addr - s->ksyms[i].addr;
	*mod = s->ksyms[i].mod ? s->ksym_text + s->ksyms[i].mod : NULL;
	*hit = (struct ksym_hit){ addr, *start, *size, *name, *mod };
	return true;
}

static size_t kstr_slot(const struct fmt_src *s, uint64_t addr)
{
	size_t i = (size_t)((addr >> 3) * 0x9E3779B97F4A7C15ULL) & (s->kstr_cap - 1);

	while (s->kstrs[i].s && s->kstrs[i].addr != addr)
		i = (i + 1) & (s->kstr_cap - 1);
	return i;
}

void fmt_src_printk(struct fmt_src *s, const char *text)
{
	size_t n = 0;

	if (!text || s->kstrs)
		return;
	for (const char *p = text; *p; p++)
		n += *p == '\n';
	for (s->kstr_cap = 64; s->kstr_cap < n * 2 + 2; s->kstr_cap *= 2)
		;
	s->kstrs = xcalloc(s->kstr_cap, sizeof(*s->kstrs));
	/* "0xffffffff82521880 : \"mt_find\"", with \n, \t, \\ and \" escaped. */
	while (*text) {
		const char *nl = strchrnul(text, '\n'), *q;
		char *end, *str, *o;
		uint64_t addr = strtoull(text, &end, 16);
		size_t i;

		if (end == text || strncmp(end, " : \"", 4) || nl - end < 5 || nl[-1] != '"') {
			text = *nl ? nl + 1 : nl;
			continue;
		}
		str = o = xmalloc(nl - end);
		for (q = end + 4; q < nl - 1; q++) {
			if (*q == '\\' && q + 1 < nl - 1) {
				q++;
				*o++ = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q;
			} else {
				*o++ = *q;
			}
		}
		*o = '\0';
		i = kstr_slot(s, addr);
		free(s->kstrs[i].s);
		s->kstrs[i] = (struct kstr){ addr, str };
		text = *nl ? nl + 1 : nl;
	}
}

static const char *kstring(void *ctx, uint64_t addr)
{
	struct fmt_src *s = ctx;

	if (!s->kstrs)
		return NULL;
	return s->kstrs[kstr_slot(s, addr)].s;
}

void fmt_src_btf(struct fmt_src *s, const struct btf *btf)
{
	s->btf = btf;
}

void fmt_src_btf_lazy(struct fmt_src *s, fmt_load_btf_fn fn, void *ctx)
{
	s->btf_fn = fn;
	s->btf_ctx = ctx;
}

/*
 * Enum constants with values that have not changed in years, for traces
 * whose kernel's BTF is not at hand.  (Others, like the inode state bits,
 * moved between versions: only BTF can say.)
 */
static const struct {
	const char *name;
	uint64_t v;
} known_consts[] = {
	{ "HRTIMER_MODE_ABS", 0 }, { "HRTIMER_MODE_REL", 1 }, { "HRTIMER_MODE_PINNED", 2 },
	{ "HRTIMER_MODE_SOFT", 4 }, { "HRTIMER_MODE_HARD", 8 },
	{ "HRTIMER_MODE_ABS_PINNED", 2 }, { "HRTIMER_MODE_REL_PINNED", 3 },
	{ "HRTIMER_MODE_ABS_SOFT", 4 }, { "HRTIMER_MODE_REL_SOFT", 5 },
	{ "HRTIMER_MODE_ABS_PINNED_SOFT", 6 }, { "HRTIMER_MODE_REL_PINNED_SOFT", 7 },
	{ "HRTIMER_MODE_ABS_HARD", 8 }, { "HRTIMER_MODE_REL_HARD", 9 },
	{ "HRTIMER_MODE_ABS_PINNED_HARD", 10 }, { "HRTIMER_MODE_REL_PINNED_HARD", 11 },
	{ "IOPRIO_CLASS_NONE", 0 }, { "IOPRIO_CLASS_RT", 1 }, { "IOPRIO_CLASS_BE", 2 },
	{ "IOPRIO_CLASS_IDLE", 3 }, { "IOPRIO_CLASS_INVALID", 7 },
};

static bool kconst(void *ctx, const char *name, uint64_t *v)
{
	struct fmt_src *s = ctx;
	int64_t x;

	if (src_btf(s) && btf_enum(s->btf, name, &x)) {
		*v = x;
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(known_consts); i++)
		if (!strcmp(known_consts[i].name, name)) {
			*v = known_consts[i].v;
			return true;
		}
	return false;
}

static unsigned kstruct_size(void *ctx, const char *name)
{
	struct fmt_src *s = ctx;

	return src_btf(s) ? btf_struct_size(s->btf, name) : 0;
}

/* HZ, as the kernel wrote it into writeback's formats: "(jiffies - ...) / 250". */
static unsigned guess_hz(struct fmt_src *s)
{
	static const char *const evs[] = { "writeback_single_inode", "writeback_sb_inodes_requeue",
					   "writeback_single_inode_start" };
	unsigned hz = 0;

	for (size_t i = 0; i < ARRAY_SIZE(evs) && !hz && s->format_fn; i++) {
		char *t = s->format_fn(s->format_ctx, "writeback", evs[i]);
		const char *p = t ? strstr(t, "dirtied_when) / ") : NULL;

		if (p)
			hz = strtoul(p + 16, NULL, 10);
		free(t);
	}
	return hz >= 24 && hz <= 10000 ? hz : 250;
}

/* The memory map stored for process tgid, or NULL. */
static const struct tfile_procmap *kprocmap(void *ctx, int tgid)
{
	struct fmt_src *s = ctx;

	for (int i = 0; i < s->nprocmaps; i++)
		if (s->procmaps[i].pid == tgid)
			return &s->procmaps[i];
	return NULL;
}

static const char *kuser_sym(void *ctx, const char *path, uint64_t low, uint64_t ip,
			     uint64_t *off)
{
	struct fmt_src *s = ctx;

	if (!s->f->usyms)
		s->f->usyms = usym_cache_new();
	return usym_cache_find(s->f->usyms, path, low, ip, off);
}

char *fmt_user_syms_unread(const struct fmt *f)
{
	return f->usyms ? usym_cache_unread(f->usyms) : NULL;
}

void fmt_src_procmaps(struct fmt_src *s, const struct tfile_procmap *maps, int n)
{
	s->procmaps = maps;
	s->nprocmaps = n;
}

static const char *kcomm(void *ctx, int pid)
{
	return fmt_src_comm(ctx, pid);
}

/*
 * The blk tracer's entry type (TRACE_BLK) has no format file: in the
 * kernel's enum trace_type it sits between user_stack and bputs, as it has
 * since 2.6.30, so it is the one id between theirs.  -1 when the file's
 * formats do not show that gap.
 */
static int blk_type(struct fmt_src *s)
{
	struct tep_event *us, *bp;

	if (!s->blk_type) {
		us = tep_find_event_by_name(s->tep, "ftrace", "user_stack");
		bp = tep_find_event_by_name(s->tep, "ftrace", "bputs");
		s->blk_type = us && bp && bp->id == us->id + 2 && !tep_find_event(s->tep, us->id + 1)
				      ? us->id + 1 : -1;
	}
	return s->blk_type;
}

static void env_setup(struct fmt_src *s)
{
	if (s->env_done)
		return;
	s->env_done = true;
	s->env.tep = s->tep;
	s->env.long_size = tep_get_long_size(s->tep) == 4 ? 4 : 8;
	s->env.swap = s->swap;
	s->env.hz = guess_hz(s);
	s->env.page_struct = 64;
	s->env.sym = ksym;
	s->env.constant = kconst;
	s->env.string = kstring;
	s->env.struct_size = kstruct_size;
	s->env.procmap = kprocmap;
	s->env.comm = kcomm;
	if (s->f->o.user_syms)
		s->env.user_sym = kuser_sym;
	s->env.ctx = s;
	vmemmap_guess(s);
}

static void kernel_compile(struct fmt_src *s, struct ev_info *ei)
{
	char *text;

	if (ei->kp_done || !ei->event)
		return;
	ei->kp_done = true;
	/* (sizeof(struct page) comes from BTF through kstruct_size, when asked.) */
	env_setup(s);
	text = s->format_fn ? s->format_fn(s->format_ctx, ei->event->system, ei->event->name) : NULL;
	ei->kp = kprog_compile(&s->env, ei->event, text);
	free(text);
}

static const char *const raw_clocks[] = { "counter", "uptime", "x86-tsc", "ppc-tb" };

static bool clock_is(const char *clock, const char *name);

bool fmt_clock_in_ns(const char *clock)
{
	for (size_t i = 0; clock && i < ARRAY_SIZE(raw_clocks); i++)
		if (clock_is(clock, raw_clocks[i]))
			return false;
	return true;
}

/* Is the current clock in clock's text (a name, or "a [b] c") name? */
static bool clock_is(const char *clock, const char *name)
{
	const char *b = strchr(clock, '['), *e;
	size_t n;

	if (b && (e = strchr(b, ']'))) {
		clock = b + 1;
		n = e - clock;
	} else {
		n = strcspn(clock, " \n");
	}
	return strlen(name) == n && !strncmp(clock, name, n);
}

void fmt_src_clock(struct fmt_src *s, const char *clock, bool ns)
{
	if (clock == s->clock)
		return;
	s->clock = clock;
	s->clock_ns = ns || fmt_clock_in_ns(clock);
	s->lib_raw = !ns && clock && (clock_is(clock, "counter") || clock_is(clock, "x86-tsc"));
}

/* ---- text ---- */

static void put_comm_pid(struct fmt *f, struct fmt_src *s, int pid)
{
	const char *comm = fmt_src_comm(s, pid);
	size_t n = strlen(comm);
	char *o;
	int d = 0, k = 0;
	unsigned v;

	grow(f, n + 40);
	/*
	 * "%16s-%-5d", through a local pointer: stores through f->ln.p would
	 * make the compiler reload f->ln at every byte (a sixth of a report).
	 */
	o = f->ln.p + f->ln.len;
	if (n < 16) {
		/* All 16 at once (a constant size is a store, memset's n a call); the name covers the rest. */
		memcpy(o, "                ", 16);
		o += 16 - n;
	}
	fmt_copy(o, comm, n);
	o += n;
	*o++ = '-';
	if (pid < 0) {
		*o++ = '-';
		d++;
	}
	v = pid < 0 ? -(unsigned)pid : (unsigned)pid;
	/*
	 * Straight into the line: a copy through a buffer read back the
	 * digits' 2-byte stores in wider loads, which stall.
	 */
	k = fmt_u_len(v);
	fmt_u_digits(o + k, v);
	o += k;
	d += k;
	/* Five blanks (a store), of which the pid's digits leave 5 - d (memset's n is a call). */
	memcpy(o, "     ", 5);
	if (d < 5)
		o += 5 - d;
	f->ln.len = o - f->ln.p;
}

/* " [%03d]": the CPU column, its three digits stored at once. */
static inline void put_cpu(struct fmt *f, unsigned cpu)
{
	char *o;

	if (cpu >= 1000) {
		puts_(f, " [");
		put_u(f, cpu, 3, true);
		putc_(f, ']');
		return;
	}
	grow(f, 6);
	o = f->ln.p + f->ln.len;
	o[0] = ' ';
	o[1] = '[';
	o[2] = '0' + cpu / 100;
	o[3] = '0' + cpu / 10 % 10;
	o[4] = '0' + cpu % 10;
	o[5] = ']';
	f->ln.len += 6;
}

/*
 * The time column, after "]".  The kernel's: a clock that counts
 * nanoseconds as seconds and microseconds (rounded), " %5lu.%06lu", or with
 * ns the nine digits; the others (counter, uptime, x86-tsc) as the count,
 * " %12llu".  trace-cmd's (lib): the same, except that a time not above one
 * second is printed whole, and that it counts only counter and x86-tsc as
 * counts, printed "%12llu" with no space before.
 */
static void put_time(struct fmt *f, struct fmt_src *s, uint64_t ts)
{
	uint64_t p10 = f->o.ns ? 1000000000ULL : 1000000ULL;
	uint64_t t;

	if (f->o.lib ? s->lib_raw : !s->clock_ns) {
		if (!f->o.lib)
			putc_(f, ' ');
		put_u(f, ts, 12, false);
		return;
	}
	t = f->o.ns ? ts : (ts + 500) / 1000;
	if (t > p10 || !f->o.lib) {
		/* Division by a constant is a multiplication; by p10, a divide instruction. */
		uint64_t sec = f->o.ns ? t / 1000000000ULL : t / 1000000ULL;
		uint32_t frac = f->o.ns ? t % 1000000000ULL : t % 1000000ULL;
		int w = f->o.ns ? 9 : 6, n;
		char *o;

		/* The seconds change once in many events: kept as text. */
		if (!f->sec_len || sec != f->sec) {
			char tmp[24];

			n = fmt_u_digits(tmp + sizeof(tmp), sec);
			f->sec_len = n < 5 ? 6 : n + 1;
			memset(f->sec_txt, ' ', f->sec_len - n);
			memcpy(f->sec_txt + f->sec_len - n, tmp + sizeof(tmp) - n, n);
			f->sec_txt[f->sec_len++] = '.';
			f->sec = sec;
		}
		/* A whole sec_txt, whatever its length: a copy of fixed size is inlined. */
		grow(f, sizeof(f->sec_txt) + 9);
		o = f->ln.p + f->ln.len;
		memcpy(o, f->sec_txt, sizeof(f->sec_txt));
		o += f->sec_len;
		/* Zeros of fixed size, then the digits over their end. */
		memcpy(o, "000000000", 9);
		fmt_u_digits(o + w, frac);
		f->ln.len += f->sec_len + w;
	} else {
		putc_(f, ' ');
		put_u(f, t, 12, false);
	}
}

/* The kernel's trace_flag_type bits (include/linux/trace_events.h). */
enum {
	TF_IRQS_OFF = 0x01,
	TF_LAZY = 0x02,		/* 6.13+: NEED_RESCHED_LAZY; before, IRQS_NOSUPPORT */
	TF_NEED_RESCHED = 0x04,
	TF_HARDIRQ = 0x08,
	TF_SOFTIRQ = 0x10,
	TF_PREEMPT_RESCHED = 0x20,
	TF_NMI = 0x40,
	TF_BH_OFF = 0x80,
};

/*
 * As the kernel's trace_print_lat_fmt() prints them.  Bit 0x02 changed
 * meaning in 6.13 (lazy preemption took the bit of "irq flags not
 * supported", printed X); a file of an older kernel keeps the old one.
 */
void fmt_irq_info(unsigned flags, unsigned preempt, unsigned kver, char out[6])
{
	bool old = kver && kver < (6 << 8 | 13);
	bool nr = flags & TF_NEED_RESCHED, pr = flags & TF_PREEMPT_RESCHED;
	bool lazy = !old && (flags & TF_LAZY);
	bool nmi = flags & TF_NMI, hard = flags & TF_HARDIRQ, soft = flags & TF_SOFTIRQ;
	bool bh = flags & TF_BH_OFF, off = flags & TF_IRQS_OFF;
	static const char hex[] = "0123456789abcdef";

	out[0] = off && bh ? 'D' : off ? 'd' : bh ? 'b' : old && (flags & TF_LAZY) ? 'X' : '.';
	out[1] = nr && lazy && pr ? 'B' : nr && pr ? 'N' : lazy && pr ? 'L' : nr && lazy ? 'b' :
		 nr ? 'n' : pr ? 'p' : lazy ? 'l' : '.';
	out[2] = nmi && hard ? 'Z' : nmi ? 'z' : hard && soft ? 'H' : hard ? 'h' : soft ? 's' : '.';
	out[3] = preempt & 0xf ? hex[preempt & 0xf] : '.';
	out[4] = preempt & 0xf0 ? hex[(preempt >> 4) & 0xf] : '.';
	out[5] = '\0';
}

static void put_irq_info(struct fmt *f, struct fmt_src *s, const struct tfile_event *ev)
{
	const uint8_t *d = ev->data;
	unsigned flags = 0, pc = 0;
	char col[6];

	if (s->flags_off >= 0 && ev->size > (uint32_t)s->flags_off)
		flags = d[s->flags_off];
	if (s->pc_off >= 0 && ev->size > (uint32_t)s->pc_off)
		pc = d[s->pc_off];
	fmt_irq_info(flags, pc, s->env.kver, col);
	putc_(f, ' ');
	put(f, col, 5);
}

/*
 * --ts-diff: " (+0.000123)", the time since the previous printed event
 * (whatever its CPU; filtered-out events do not count), in the precision of
 * the time column.  The first event shows +0.
 */
static void put_delta(struct fmt *f, uint64_t ts)
{
	uint64_t d = f->have_last && ts > f->last_ts ? ts - f->last_ts : 0;
	uint64_t p10 = f->o.ns ? 1000000000ULL : 1000000ULL;
	uint64_t t = f->o.ns ? d : (d + 500) / 1000;

	f->last_ts = ts;
	f->have_last = true;
	puts_(f, " (+");
	put_u(f, t / p10, 0, false);
	putc_(f, '.');
	put_u(f, t % p10, f->o.ns ? 9 : 6, true);
	putc_(f, ')');
}

static void put_json_str(struct fmt *f, const char *p, size_t n);

void fmt_lost(struct fmt *f, const char *prefix, int cpu, int64_t n)
{
	if (f->o.kind == FMT_JSON) {
		size_t len = strlen(prefix);

		/* The prefix is "name: " (or blanks); JSON wants the name. */
		while (len && (prefix[len - 1] == ' ' || prefix[len - 1] == ':'))
			len--;
		fmt_line_printf(&f->ln, "{\"cpu\":%d,\"lost\":%lld", cpu, (long long)n);
		if (len) {
			puts_(f, ",\"buffer\":");
			put_json_str(f, prefix, len);
		}
		puts_(f, "}\n");
	} else if (f->o.kind == FMT_CSV) {
		fmt_line_printf(&f->ln, ",%d,,,,LOST,%lld\n", cpu, (long long)n);
	} else {
		puts_(f, prefix);
		if (n >= 0)
			fmt_line_printf(&f->ln, "CPU:%d [LOST %lld EVENTS]\n", cpu, (long long)n);
		else
			fmt_line_printf(&f->ln, "CPU:%d [LOST EVENTS]\n", cpu);
	}
	emit(f);
}

/* Number of records per event checked against libtraceevent when verify_all is off. */
enum { CHECKS = 4 };

static void lib_text(struct fmt *f, struct fmt_src *s, struct tep_record *rec, bool raw)
{
	void *data = rec->data;

	rec->data = safe_record(s, data, rec->size);
	if (s->tep_load) {
		s->tep_load(s->tep_load_arg);
		s->tep_load = NULL;
	}
	trace_seq_reset(&f->seq);
	tep_print_event(s->tep, &f->seq, rec, "%s", raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	rec->data = data;
}

static void line_put(struct fmt_line *l, const char *p, size_t n)
{
	fmt_line_grow(l, n);
	memcpy(l->p + l->len, p, n);
	l->len += n;
}

static bool is_char_type(const struct tep_format_field *fld);

/*
 * The event's own fields as "name=value ...", for an event whose print fmt
 * was withheld (or a record too short for libtraceevent): every length is
 * checked against the record, strings stop at 256 bytes and arrays at 64
 * elements.
 */
static void fields_text(struct fmt_src *s, struct ev_info *ei, const struct tep_record *rec,
			struct fmt_line *out)
{
	const uint8_t *data = rec->data;
	uint32_t size = rec->size;

	for (struct tep_format_field *fld = ei->event->format.fields; fld; fld = fld->next) {
		uint32_t off = fld->offset, len = fld->size;

		if (fld != ei->event->format.fields)
			line_put(out, " ", 1);
		line_put(out, fld->name, strnlen(fld->name, 128));
		line_put(out, "=", 1);
		if (!len && (fld->flags & TEP_FIELD_IS_ARRAY) && off <= size)
			len = size - off;
		if (off > size || len > size - off) {
			line_put(out, "<past the record>", 17);
			continue;
		}
		if (fld->flags & TEP_FIELD_IS_DYNAMIC) {
			uint32_t v = len >= 4 ? (uint32_t)rd_num(s, data + off, 4) : 0;

			off = ((fld->flags & TEP_FIELD_IS_RELATIVE) ? off + len : 0) + (v & 0xffff);
			len = v >> 16;
			if (off > size || len > size - off) {
				line_put(out, "<past the record>", 17);
				continue;
			}
		} else if (!(fld->flags & TEP_FIELD_IS_ARRAY) &&
			   (len == 1 || len == 2 || len == 4 || len == 8)) {
			uint64_t v = rd_num(s, data + off, len);

			if (fld->flags & TEP_FIELD_IS_SIGNED) {
				int sh = 64 - 8 * len;

				fmt_line_printf(out, "%lld", (long long)((int64_t)(v << sh) >> sh));
			} else {
				fmt_line_printf(out, "%llu", (unsigned long long)v);
			}
			continue;
		}
		if (is_char_type(fld)) {
			size_t n = strnlen((const char *)data + off, len > 256 ? 256 : len);

			for (size_t i = 0; i < n; i++) {
				char c = data[off + i];

				line_put(out, c >= 0x20 && c < 0x7f ? &c : "?", 1);
			}
			continue;
		}
		line_put(out, "ARRAY[", 6);
		for (uint32_t i = 0; i < len && i < 64; i++)
			fmt_line_printf(out, "%s%02x", i ? ", " : "", data[off + i]);
		line_put(out, len > 64 ? ", ...]" : "]", len > 64 ? 6 : 1);
	}
}

/*
 * Append the event text to out.  By default the kernel's printer's; with
 * lib (or where the kernel's printer cannot print a record) the fast
 * printer's when it has one (checked against libtraceevent for the first
 * records of each event), else libtraceevent's.  One trailing newline is
 * dropped, as the kernel's trace file and trace-cmd do (a trace_marker
 * write keeps its own newline in the record).  KPROG_LINE when the text is
 * all that follows the timestamp (the kernel prints no "name: " for it).
 */
static int event_text(struct fmt *f, struct fmt_src *s, struct ev_info *ei,
		      struct tep_record *rec, bool raw, struct fmt_line *out)
{
	size_t start = out->len;
	int ret = KPROG_TEXT;

	if (!ei->event && rec->size >= 2 && !raw &&
	    (int)rd_num(s, (const uint8_t *)rec->data, 2) == blk_type(s)) {
		struct krec kr = { rec->data, rec->size, s->clock_ns ? rec->ts : 0, rec->ts };

		env_setup(s);
		if ((ret = kblk_run(&s->env, &kr, out)) != KPROG_FAIL)
			return ret;
		ret = KPROG_TEXT;
	}
	if (!ei->event) {
		const char *u = "[UNKNOWN EVENT]";

		fmt_line_grow(out, strlen(u));
		memcpy(out->p + out->len, u, strlen(u));
		out->len += strlen(u);
		return ret;
	}
	/*
	 * A print fmt tfile-format.h refused, or a record too short for a field
	 * of size 0, goes to no printer that trusts the format: the kernel's,
	 * the fast one or libtraceevent.
	 */
	if (ei->withheld || (uint32_t)rec->size < ei->min_size) {
		fields_text(s, ei, rec, out);
		return ret;
	}
	if (!lens_fit(s, ei, rec)) {
		if (!ei->lens_warned)
			tr_warn("event '%s:%s': a record's __print_hex or __print_array length runs "
				"past it: such records show their fields", ei->event->system,
				ei->event->name);
		ei->lens_warned = true;
		fields_text(s, ei, rec, out);
		return ret;
	}
	/* An eprobe's line names the event it is on before its fields. */
	if (!raw && !f->o.lib && ei->eprobe) {
		fmt_line_grow(out, strlen(ei->eprobe) + 3);
		out->len += sprintf(out->p + out->len, "(%s)", ei->eprobe);
	}
	/* User events print field by field, as the kernel prints them (fmt-user.c). */
	if (!raw && ei->user) {
		fmt_user_text(s->tep, ei->event, rec->data, (uint32_t)rec->size, out);
		return ret;
	}
	/* A plugin's handler (--plugins) prints trace-cmd's compact forms. */
	if (!raw && !f->o.lib && !ei->event->handler) {
		struct krec kr = { rec->data, rec->size, s->clock_ns ? rec->ts : 0, rec->ts };

		kernel_compile(s, ei);
		/* The kernel's text, whole: its own newlines are the kernel's too. */
		if (ei->kp && (ret = kprog_run(ei->kp, &s->env, &kr, out)) != KPROG_FAIL)
			return ret;
		ret = KPROG_TEXT;
		goto lib;
	}
	if (!raw && ei->prog && fmt_prog_run(ei->prog, s->tep, rec->data, rec->size, out)) {
		if (ei->checked < CHECKS || f->verify_all) {
			ei->checked++;
			lib_text(f, s, rec, false);
			if (f->seq.len != out->len - start ||
			    memcmp(f->seq.buffer, out->p + start, f->seq.len)) {
				/* Not exact after all: libtraceevent prints it from now on. */
				if (f->verify_all && !f->mismatch)
					tr_warn("fast printer differs for '%s': '%.*s' vs '%.*s'",
						ei->event->name, (int)(out->len - start),
						out->p + start, (int)f->seq.len, f->seq.buffer);
				f->mismatch = true;
				fmt_prog_free(ei->prog);
				ei->prog = NULL;
				out->len = start;
				goto lib;
			}
		}
		goto strip;
	}
lib:
	lib_text(f, s, rec, raw);
	if (f->seq.len) {
		fmt_line_grow(out, f->seq.len);
		memcpy(out->p + out->len, f->seq.buffer, f->seq.len);
		out->len += f->seq.len;
	}
strip:
	if (out->len > start && out->p[out->len - 1] == '\n')
		out->len--;
	return ret;
}

static void put_json_str(struct fmt *f, const char *p, size_t n)
{
	grow(f, JSON_ESCAPED_MAX(n));
	f->ln.len += json_escape(f->ln.p + f->ln.len, p, n);
}

static void put_csv_str(struct fmt *f, const char *p, size_t n)
{
	grow(f, CSV_QUOTED_MAX(n));
	f->ln.len += csv_quote(f->ln.p + f->ln.len, p, n);
}

static bool is_char_type(const struct tep_format_field *fld)
{
	const char *t = fld->type;

	if (fld->flags & TEP_FIELD_IS_STRING)
		return true;
	if (!strncmp(t, "__data_loc ", 11))
		t += 11;
	if (!strncmp(t, "__rel_loc ", 10))
		t += 10;
	if (!strncmp(t, "const ", 6))
		t += 6;
	if (!strncmp(t, "unsigned ", 9) || !strncmp(t, "signed ", 7))
		return false;
	return !strncmp(t, "char", 4) && (t[4] == '[' || t[4] == ' ' || !t[4]);
}

static void put_json_num(struct fmt *f, struct fmt_src *s, const uint8_t *p, int size, bool sign)
{
	uint64_t v;

	if (size != 1 && size != 2 && size != 4 && size != 8) {
		putc_(f, '"');
		for (int i = 0; i < size; i++)
			fmt_line_printf(&f->ln, "%02x", p[i]);
		putc_(f, '"');
		return;
	}
	v = rd_num(s, p, size);
	if (sign) {
		int shift = 64 - size * 8;

		put_i(f, (int64_t)(v << shift) >> shift);
	} else {
		put_u(f, v, 0, false);
	}
}

static void put_json_field(struct fmt *f, struct fmt_src *s, const struct tep_format_field *fld,
			   const struct tfile_event *ev)
{
	const uint8_t *data = ev->data, *p;
	uint32_t off = fld->offset, len = fld->size;
	bool sign = fld->flags & TEP_FIELD_IS_SIGNED;

	/* A char buf[] of size 0 (ftrace's print) runs to the end of the record. */
	if (!len && (fld->flags & TEP_FIELD_IS_ARRAY) && !(fld->flags & TEP_FIELD_IS_DYNAMIC) &&
	    off <= ev->size)
		len = ev->size - off;
	if (off + (uint64_t)len > ev->size) {
		puts_(f, "null");
		return;
	}
	if (fld->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t v = rd_num(s, data + off, len >= 4 ? 4 : len);

		off = (fld->flags & TEP_FIELD_IS_RELATIVE) ? fld->offset + fld->size + (v & 0xffff)
							   : (v & 0xffff);
		len = v >> 16;
		if (off + (uint64_t)len > ev->size) {
			puts_(f, "null");
			return;
		}
	} else if (!(fld->flags & TEP_FIELD_IS_ARRAY)) {
		put_json_num(f, s, data + off, len, sign);
		return;
	}
	p = data + off;
	if (is_char_type(fld)) {
		put_json_str(f, (const char *)p, strnlen((const char *)p, len));
		return;
	}
	{
		int el = fld->elementsize;

		if (el <= 0 || el > 8)
			el = 1;
		putc_(f, '[');
		for (uint32_t i = 0; i + el <= len; i += el) {
			if (i)
				putc_(f, ',');
			put_json_num(f, s, p + i, el, sign);
		}
		putc_(f, ']');
	}
}

static void json_event(struct fmt *f, struct fmt_src *s, struct ev_info *ei, const char *prefix,
		       const struct tfile_event *ev, int pid)
{
	const char *comm = fmt_src_comm(s, pid);

	puts_(f, "{\"ts\":");
	put_u(f, ev->ts, 0, false);
	puts_(f, ",\"cpu\":");
	put_i(f, ev->cpu);
	puts_(f, ",\"pid\":");
	put_i(f, pid);
	puts_(f, ",\"comm\":");
	put_json_str(f, comm, strlen(comm));
	if (prefix && *prefix) {
		size_t n = strlen(prefix);

		/* The prefix is "name: "; JSON wants the name. */
		while (n && (prefix[n - 1] == ' ' || prefix[n - 1] == ':'))
			n--;
		puts_(f, ",\"buffer\":");
		put_json_str(f, prefix, n);
	}
	if (s->file) {
		puts_(f, ",\"file\":");
		put_json_str(f, s->file, strlen(s->file));
	}
	if (!ei->event) {
		puts_(f, ",\"event\":null}\n");
		return;
	}
	puts_(f, ",\"system\":");
	put_json_str(f, ei->event->system, strlen(ei->event->system));
	puts_(f, ",\"event\":");
	put_json_str(f, ei->event->name, strlen(ei->event->name));
	puts_(f, ",\"fields\":{");
	for (struct tep_format_field *fld = ei->event->format.fields; fld; fld = fld->next) {
		if (fld != ei->event->format.fields)
			putc_(f, ',');
		put_json_str(f, fld->name, strlen(fld->name));
		putc_(f, ':');
		put_json_field(f, s, fld, ev);
	}
	puts_(f, "}}\n");
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

/*
 * An eprobe's line of dynamic_events ("e:grp/ep sched.sched_switch ARGS"):
 * its name and the event it is on, which the kernel prints in front of its
 * fields and the format does not hold.
 */
static void learn_eprobe(struct fmt_src *s, const char *line)
{
	size_t n = strcspn(line, " "), m;
	char *ev, *sl;

	if (!line[n] || !(m = strcspn(line + n + 1, " ")))
		return;
	/* "e:NAME" without a group is in the kernel's "eprobes". */
	strv_push_owned(&s->ep_names, xasprintf("%s%.*s", memchr(line, '/', n) ? "" : "eprobes/",
						(int)(n - 2), line + 2));
	ev = xasprintf("%.*s", (int)m, line + n + 1);
	/* SYSTEM/EVENT is taken too; the kernel prints SYSTEM.EVENT. */
	if ((sl = strchr(ev, '/')))
		*sl = '.';
	strv_push_owned(&s->ep_events, ev);
}

/*
 * Only these options take the line from tr's usual one (irq-info is a
 * column of it; annotate matters only when the buffer overran).
 */
static void ko_update(struct fmt_src *s)
{
	const struct fmt_kopts *k = &s->ko;

	s->ko_line = s->f->o.kind == FMT_TEXT && !s->f->o.lib &&
		     (k->raw || k->hex || k->bin || !k->context || k->lat || k->fields || k->tgid ||
		      (k->msg_only && k->printk) || (k->annotate && s->overran));
}

/* Apply "raw,nocontext-info" (commas or white space) to the kernel's options. */
static void kopts_apply(struct fmt_kopts *o, const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, ", \t\n");

		if (n)
			fmt_kopts_word(o, p, n);
		p += n;
		p += strspn(p, ", \t\n");
	}
}

int fmt_kopts_check(const char *text, char *bad, size_t n)
{
	struct fmt_kopts o;

	fmt_kopts_default(&o);
	for (const char *p = text; p && *p;) {
		size_t k = strcspn(p, ", \t\n");

		if (k && (!fmt_kopts_word(&o, p, k) || !strncmp(p, "tracer:", 7))) {
			snprintf(bad, n, "%.*s", (int)k, p);
			return -EINVAL;
		}
		p += k;
		p += strspn(p, ", \t\n");
	}
	return 0;
}

void fmt_src_graph_opts(struct fmt_src *s, const char *text)
{
	struct fmt_kopts u;

	/* The kernel's defaults where the file does not say. */
	s->env.sym_offset = s->env.sym_addr = s->env.no_parent = false;
	fmt_graph_opts_default(&s->gopts);
	fmt_kopts_default(&s->ko);
	for (const char *p = text; p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
		char *line = xasprintf("%.*s", (int)strcspn(p, "\n"), p);
		bool no = !strncmp(line, "no", 2);
		const char *w = no ? line + 2 : line;

		if (!strncmp(line, "e:", 2))
			learn_eprobe(s, line);
		else if (!strcmp(w, "sym-offset"))
			s->env.sym_offset = !no;
		else if (!strcmp(w, "sym-addr"))
			s->env.sym_addr = !no;
		else if (!strcmp(w, "print-parent"))
			s->env.no_parent = no;
		else if (!fmt_kopts_word(&s->ko, line, strlen(line)))
			fmt_graph_opts_apply(&s->gopts, line, false, NULL, 0);
		free(line);
	}
	/* The command checked the user's words: any error is theirs, reported there. */
	fmt_graph_opts_apply(&s->gopts, s->f->o.graph_opts, false, NULL, 0);
	kopts_apply(&s->ko, s->f->o.kopts);
	if (s->f->o.irq_info)
		s->ko.irq = true;
	/* Symbols are named after their objects: --user-syms asks for both. */
	if (s->f->o.user_syms)
		s->ko.userobj = true;
	s->env.userobj = s->ko.userobj;
	s->env.verbose = s->ko.verbose;
	s->env.mmiotrace = !strcmp(s->ko.tracer, "mmiotrace");
	/*
	 * tr's usual line shows the irq-info column when asked (--irq-info,
	 * -O irq-info), not for the recording's irq-info (set by default):
	 * its layout stays trace-cmd's.  The kernel's lines follow the file.
	 */
	fmt_kopts_default(&u);
	kopts_apply(&u, s->f->o.kopts);
	s->irq_col = s->f->o.irq_info || (u.irq_said && u.irq);
	ko_update(s);
}

const char *fmt_src_missing(struct fmt_src *s)
{
	struct fmt_kopts o = s->ko;

	/* What the source has is no loss. */
	if (s->ntgids)
		o.tgid = false;
	if (s->nprocmaps)
		o.userobj = false;
	fmt_kopts_missing(&o, s->missing, sizeof(s->missing));
	return s->missing[0] ? s->missing : NULL;
}

void fmt_src_overran(struct fmt_src *s, bool overran)
{
	s->overran = overran;
	ko_update(s);
}

void fmt_header(struct fmt *f, struct fmt_src *s, uint64_t entries, uint64_t written)
{
	fmt_kheader(&f->ln, &s->ko, s->release, entries, written, s->ncpus);
	emit(f);
}

bool fmt_src_graph(struct fmt_src *s)
{
	return s->graph_seen;
}

void fmt_lookahead(struct fmt *f, fmt_peek_fn peek, fmt_skip_fn skip, void *ctx)
{
	f->peek = peek;
	f->skip = skip;
	f->peek_ctx = ctx;
}

/* %ps: the symbol's name, and its module's in brackets. */
static bool graph_func_name(void *ctx, uint64_t addr, char *buf, size_t n)
{
	const char *name, *mod;
	uint64_t start, size;

	if (!ksym(ctx, addr, &name, &start, &size, &mod))
		return false;
	if (mod)
		snprintf(buf, n, "%s [%s]", name, mod);
	else
		snprintf(buf, n, "%s", name);
	return true;
}

/* %pS: the symbol with its offset and size ("vfs_read+0x9b/0x1a0"), and its module's name. */
static bool graph_sym_off(void *ctx, uint64_t addr, char *buf, size_t n)
{
	const char *name, *mod;
	uint64_t start, size;

	if (!ksym(ctx, addr, &name, &start, &size, &mod))
		return false;
	snprintf(buf, n, "%s+0x%" PRIx64 "/0x%" PRIx64 "%s%s%s", name, addr - start, size,
		 mod ? " [" : "", mod ? mod : "", mod ? "]" : "");
	return true;
}

/*
 * funcgraph-args from the kernel's BTF (print_function_args()); 6.18
 * began writing unsigned ints in hex.
 */
static bool graph_args_text(void *ctx, uint64_t func, const uint64_t *args, int nargs, char *buf,
			    size_t n)
{
	struct fmt_src *s = ctx;
	const char *name, *mod;
	uint64_t start, size;

	if (!src_btf(s) || !ksym(s, func, &name, &start, &size, &mod) || start != func)
		return false;
	return btf_func_args(s->btf, name, args, nargs, s->env.kver >= (6 << 8 | 18), buf, n);
}

static const char *graph_comm(void *ctx, int pid)
{
	return fmt_src_comm(ctx, pid);
}

/* Where the kernel's irq entry text lies, from kallsyms (0, 0 when they do not say). */
static void graph_irq_range(struct fmt_src *s)
{
	if (s->irq_done)
		return;
	s->irq_done = true;
	for (size_t i = 0; i < s->nksyms; i++) {
		const char *name = s->ksym_text + s->ksyms[i].name;

		if (!strcmp(name, "__irqentry_text_start"))
			s->irq_lo = s->ksyms[i].addr;
		else if (!strcmp(name, "__irqentry_text_end"))
			s->irq_hi = s->ksyms[i].addr;
	}
	if (!s->irq_lo || s->irq_hi <= s->irq_lo)
		s->irq_lo = s->irq_hi = 0;
}

static struct fmt_graph *graph_of(struct fmt_src *s, const char *prefix)
{
	for (size_t i = 0; i < s->ngraphs; i++)
		if (s->graphs[i].prefix == prefix)
			return s->graphs[i].g;
	s->graphs = xrealloc(s->graphs, (s->ngraphs + 1) * sizeof(*s->graphs));
	s->graphs[s->ngraphs].prefix = prefix;
	{
		struct fmt_graph_opts o = s->gopts;

		/* 6.13 changed funcgraph-retval's "= 0x0" to "ret=0x0" (print_graph_retval()). */
		o.ret_eq = !s->env.kver || s->env.kver < (6 << 8 | 13);
		s->graphs[s->ngraphs].g = fmt_graph_new(s->ncpus, &o);
	}
	return s->graphs[s->ngraphs++].g;
}

static uint64_t field_num(struct fmt_src *s, const struct tep_format_field *fld,
			  const struct tfile_event *ev)
{
	if (!fld || (uint32_t)(fld->offset + fld->size) > ev->size || fld->size > 8)
		return 0;
	return rd_num(s, (const uint8_t *)ev->data + fld->offset, fld->size);
}

/*
 * The entries' args[] (trace_entries.h: __dynamic_array(unsigned long,
 * args), "field:unsigned long args[]; offset:24; size:0;"): the record's
 * bytes after its fixed part.  The kernel's printers read the arguments
 * only when there is room for all of them (print_graph_entry_nested():
 * args_size >= FTRACE_REGS_MAX_ARGS * sizeof(long)).  A later
 * fgraph_retaddr_entry has no retaddr field: the return address is
 * args[0], the arguments follow it when there is room for more than
 * that (the kernel's ARGS_OFFS()).
 */
static void graph_args(struct fmt_src *s, struct ev_info *ei, const struct tfile_event *ev,
		       struct fmt_graph_rec *r)
{
	uint32_t off = (uint32_t)ei->g_args->offset, word = ei->g_args->elementsize;
	const uint8_t *p = (const uint8_t *)ev->data + off;
	uint32_t n, first = 0;

	if (word != 4 && word != 8)
		word = s->tep ? (uint32_t)tep_get_long_size(s->tep) : 8;
	if (word != 4 && word != 8)
		word = 8;
	if (off > ev->size)
		return;
	n = (ev->size - off) / word;
	if (ei->g_is_retaddr && !ei->g_retaddr) {
		if (n < 1)
			return;
		r->retaddr = rd_num(s, p, word);
		r->has_retaddr = true;
		first = n > FMT_GRAPH_MAX_ARGS ? 1 : 0;
	}
	if (n - first < FMT_GRAPH_MAX_ARGS)
		return;
	for (int i = 0; i < FMT_GRAPH_MAX_ARGS; i++)
		r->args[i] = rd_num(s, p + (first + i) * word, word);
	r->nargs = FMT_GRAPH_MAX_ARGS;
}

/* Decode a funcgraph record; FG_OTHER for any other event. */
static void graph_rec(struct fmt_src *s, struct ev_info *ei, const struct tfile_event *ev,
		      struct fmt_graph_rec *r)
{
	*r = (struct fmt_graph_rec){ .kind = ei->graph, .cpu = ev->cpu, .pid = rec_pid(s, ev),
				     .ts = ev->ts, .missed = ev->missed != 0 };
	if (!ei->graph)
		return;
	r->func = field_num(s, ei->g_func, ev);
	r->depth = (int)field_num(s, ei->g_depth, ev);
	r->calltime = field_num(s, ei->g_call, ev);
	r->rettime = field_num(s, ei->g_ret, ev);
	r->has_retval = ei->g_retval != NULL;
	r->retval = field_num(s, ei->g_retval, ev);
	r->overrun = (unsigned)field_num(s, ei->g_overrun, ev);
	if (ei->g_retaddr) {
		/* 6.13's fgraph_retaddr_entry: a field of its own (later kernels: args[0]) */
		r->retaddr = field_num(s, ei->g_retaddr, ev);
		r->has_retaddr = true;
	}
	if (ei->g_args && r->kind == FG_ENTRY)
		graph_args(s, ei, ev, r);
}

/*
 * trace_marker writes and trace_printk()s: in its comments the kernel's
 * graph shows only their message.
 */
static bool msg_only(const struct ev_info *ei)
{
	const char *n = ei->event ? ei->event->name : "";

	return ei->event && !strcmp(ei->event->system, "ftrace") &&
	       (!strcmp(n, "print") || !strcmp(n, "bprint") || !strcmp(n, "bputs"));
}

/*
 * An event in the function_graph view: a funcgraph record as part of the
 * graph (looking one record ahead on its CPU for a leaf), any other event
 * as a comment with its text as the kernel shows it.
 */
static void graph_event(struct fmt *f, struct fmt_src *s, struct ev_info *ei, const char *prefix,
			const struct tfile_event *ev, struct tep_record *rec)
{
	struct fmt_graph_env env = { .func_name = graph_func_name, .sym_off = graph_sym_off,
				     .args_text = graph_args_text, .comm = graph_comm, .ctx = s };
	struct fmt_graph_rec r, n, *next = NULL;
	struct tfile_event *ahead;

	graph_irq_range(s);
	env.irq_lo = s->irq_lo;
	env.irq_hi = s->irq_hi;
	graph_rec(s, ei, ev, &r);
	if (!r.kind) {
		f->txt.len = 0;
		if (ei->event) {
			line_put(&f->txt, ei->event->name, strlen(ei->event->name));
			line_put(&f->txt, ": ", 2);
		}
		if (event_text(f, s, ei, rec, false, &f->txt) == KPROG_LINE) {
			/* The kernel's own line (a marker's): no name in front. */
			size_t name = strlen(ei->event->name) + 2;

			memmove(f->txt.p, f->txt.p + name, f->txt.len - name);
			f->txt.len -= name;
		}
		if (msg_only(ei)) {
			/* "tracing_mark_write: text", "func: text": the graph shows the text. */
			char *colon = memmem(f->txt.p, f->txt.len, ": ", 2);

			if (colon) {
				size_t cut = colon + 2 - f->txt.p;

				memmove(f->txt.p, f->txt.p + cut, f->txt.len - cut);
				f->txt.len -= cut;
			}
		}
		r.text = f->txt.p;
		r.text_len = f->txt.len;
	} else if (r.kind == FG_ENTRY && f->peek && f->peek(f->peek_ctx, &ahead) == 1) {
		int id = fmt_src_event_id(s, ahead);

		/* ev is gone now: r holds all of it that is needed. */
		graph_rec(s, ev_lookup(s, id < 0 ? 0 : id), ahead, &n);
		next = &n;
	}
	if (fmt_graph_put(graph_of(s, prefix), &env, prefix, &r, next, &f->ln) && f->skip)
		f->skip(f->peek_ctx);
}

/* Print the waiting latency-format line, with next the time of the record after it. */
static void lat_release(struct fmt *f, uint64_t next)
{
	f->pending = false;
	f->tmp.len = 0;
	fmt_klat_time(&f->tmp, f->pend_verbose, f->pend_ns, f->pend_ts, next);
	write_out(f, f->pend.p, f->pend_at);
	write_out(f, f->tmp.p, f->tmp.len);
	write_out(f, f->pend.p + f->pend_at, f->pend.len - f->pend_at);
}

/* The line in f->ln waits for the next record; the one waiting before goes out. */
static void lat_hold(struct fmt *f, struct fmt_src *s, size_t time_at, uint64_t ts)
{
	struct fmt_line t;

	if (f->pending)
		lat_release(f, ts);
	t = f->pend;
	f->pend = f->ln;
	f->ln = t;
	f->ln.len = 0;
	f->pend_at = time_at;
	f->pend_ts = ts;
	f->pend_verbose = s->ko.verbose;
	f->pend_ns = s->clock_ns;
	f->pending = true;
}

static bool is_ftrace(const struct ev_info *ei, const char *name)
{
	return ei->event && !strcmp(ei->event->system, "ftrace") && !strcmp(ei->event->name, name);
}

/*
 * A record's line as the kernel's print_trace_line() makes it under the
 * options that change it (fmt_src.ko_line): printk-msg-only, bin, hex,
 * raw, then annotate, the context columns (latency-format's or the usual
 * ones with the TGID) and fields.
 */
static void kernel_line(struct fmt *f, struct fmt_src *s, struct ev_info *ei, const char *prefix,
			const struct tfile_event *ev, int id, int pid, struct tep_record *rec)
{
	const struct fmt_kopts *k = &s->ko;
	const uint8_t *d = ev->data;
	unsigned flags = 0, pc = 0;
	size_t time_at = 0, name_at, text_at;
	char irq[6];

	puts_(f, prefix);
	if (k->printk && k->msg_only &&
	    (is_ftrace(ei, "print") || is_ftrace(ei, "bprint") || is_ftrace(ei, "bputs"))) {
		char *msg;

		f->txt.len = 0;
		event_text(f, s, ei, rec, false, &f->txt);
		/* "tracing_mark_write: text", "func: text": the message alone. */
		msg = memmem(f->txt.p, f->txt.len, ": ", 2);
		if (msg)
			put(f, msg + 2, f->txt.len - (size_t)(msg + 2 - f->txt.p));
		else
			put(f, f->txt.p, f->txt.len);
		putc_(f, '\n');
		f->idx++;
		return;
	}
	if (k->bin || k->hex || k->raw) {
		enum fmt_kmode m = k->bin ? FMT_KBIN : k->hex ? FMT_KHEX : FMT_KRAW;

		if (k->context)
			fmt_kctx(&f->ln, m, pid, ev->cpu, ev->ts, s->swap);
		f->txt.len = 0;
		if (ei->event && !strcmp(ei->event->system, "ftrace"))
			event_text(f, s, ei, rec, false, &f->txt);
		fmt_kbody(&f->ln, m, s->tep, ei->event, id, d, ev->size, f->txt.p ? f->txt.p : "",
			  f->txt.len);
		f->idx++;
		return;
	}
	if (k->annotate && s->overran && ev->cpu >= 0 && ev->cpu < 65536) {
		if (ev->cpu >= s->nstarted) {
			int n = ev->cpu + 1;

			s->started = xrealloc(s->started, n);
			memset(s->started + s->nstarted, 0, n - s->nstarted);
			s->nstarted = n;
		}
		if (!s->started[ev->cpu]) {
			s->started[ev->cpu] = 1;
			/* The kernel's iterator leaves out its first two records. */
			if (f->idx > 1)
				fmt_line_printf(&f->ln, "##### CPU %u buffer started ####\n", ev->cpu);
		}
	}
	if (s->flags_off >= 0 && ev->size > (uint32_t)s->flags_off)
		flags = d[s->flags_off];
	if (s->pc_off >= 0 && ev->size > (uint32_t)s->pc_off)
		pc = d[s->pc_off];
	fmt_irq_info(flags, pc, s->env.kver, irq);
	if (k->context && k->lat) {
		fmt_klat_ctx(&f->ln, k->verbose, fmt_src_comm(s, pid), pid, ev->cpu, flags, pc, f->idx,
			     irq);
		time_at = f->ln.len;
	} else if (k->context) {
		/* trace_print_context(): the kernel's widths, not trace-cmd's. */
		fmt_line_printf(&f->ln, "%16s-%-7d ", fmt_src_comm(s, pid), pid);
		if (k->tgid) {
			int tg = tgid_of(s, pid);

			if (tg > 0)
				fmt_line_printf(&f->ln, "(%7d) ", tg);
			else
				puts_(f, "(-------) ");
		}
		fmt_line_printf(&f->ln, "[%03d] ", ev->cpu);
		if (k->irq)
			put(f, irq, 5);
		put_time(f, s, ev->ts);
		if (f->o.ts_diff)
			put_delta(f, ev->ts);
		puts_(f, ": ");
	}
	if (k->fields) {
		env_setup(s);
		fmt_kfields(&f->ln, &s->env, ei->event, id, d, ev->size);
	} else {
		name_at = f->ln.len;
		if (ei->event)
			fmt_line_printf(&f->ln, "%s: ", ei->event->name);
		text_at = f->ln.len;
		if (event_text(f, s, ei, rec, f->o.raw, &f->ln) == KPROG_LINE) {
			memmove(f->ln.p + name_at, f->ln.p + text_at, f->ln.len - text_at);
			f->ln.len -= text_at - name_at;
		}
		putc_(f, '\n');
	}
	f->idx++;
	if (k->context && k->lat)
		lat_hold(f, s, time_at, ev->ts);
}

int fmt_event(struct fmt *f, struct fmt_src *s, const char *prefix, const struct tfile_event *ev)
{
	struct tep_record rec;
	struct ev_info *ei;
	int id, pid;
	size_t name_at, text_at;

	if ((s->has_filter || s->has_tasks) && !fmt_src_match(s, ev))
		return 1;
	if (ev->missed)
		fmt_lost(f, prefix, ev->cpu, ev->missed);
	id = fmt_src_event_id(s, ev);
	pid = rec_pid(s, ev);
	ei = ev_lookup(s, id < 0 ? 0 : id);
	fill_record(&rec, ev);
	if (ei->graph)
		s->graph_seen = true;
	/*
	 * Function events are no part of the graph (the kernel prints them
	 * in their own layout there too).
	 */
	if (f->o.graph && f->o.kind == FMT_TEXT && s->graph_seen &&
	    !(ei->event && !strcmp(ei->event->system, "ftrace") &&
	      !strcmp(ei->event->name, "function"))) {
		graph_event(f, s, ei, prefix, ev, &rec);
		emit(f);
		return 0;
	}
	switch (f->o.kind) {
	case FMT_JSON:
		json_event(f, s, ei, prefix, ev, pid);
		break;
	case FMT_CSV: {
		const char *comm = fmt_src_comm(s, pid);

		put_u(f, ev->ts / 1000000000ULL, 0, false);
		putc_(f, '.');
		put_u(f, ev->ts % 1000000000ULL, 9, true);
		putc_(f, ',');
		put_i(f, ev->cpu);
		putc_(f, ',');
		put_csv_str(f, comm, strlen(comm));
		putc_(f, ',');
		put_i(f, pid);
		putc_(f, ',');
		if (ei->event) {
			put_csv_str(f, ei->event->system, strlen(ei->event->system));
			putc_(f, ',');
			put_csv_str(f, ei->event->name, strlen(ei->event->name));
		} else {
			putc_(f, ',');
		}
		putc_(f, ',');
		f->txt.len = 0;
		event_text(f, s, ei, &rec, false, &f->txt);
		put_csv_str(f, f->txt.p, f->txt.len);
		putc_(f, '\n');
		break;
	}
	default:
		if (s->ko_line) {
			kernel_line(f, s, ei, prefix, ev, id, pid, &rec);
			break;
		}
		f->idx++;
		/* The buffer's prefix: one string a buffer, measured once. */
		if (prefix != f->pfx) {
			f->pfx = prefix;
			f->pfx_len = strlen(prefix);
		}
		put(f, prefix, f->pfx_len);
		put_comm_pid(f, s, pid);
		put_cpu(f, ev->cpu);
		if (s->irq_col)
			put_irq_info(f, s, ev);
		put_time(f, s, ev->ts);
		if (f->o.ts_diff)
			put_delta(f, ev->ts);
		puts_(f, ": ");
		name_at = f->ln.len;
		if (ei->event && ei->name_len <= 32) {
			/* 32 bytes of name_col (72 long) at once: a store of fixed size, no call. */
			grow(f, 32);
			memcpy(f->ln.p + f->ln.len, ei->name_col, 32);
			f->ln.len += ei->name_len;
		} else if (ei->event) {
			put(f, ei->name_col, ei->name_len);
		} else {
			fmt_line_printf(&f->ln, "%-*s ", NAME_COL, "[unknown]:");
		}
		text_at = f->ln.len;
		if (event_text(f, s, ei, &rec, f->o.raw, &f->ln) == KPROG_LINE) {
			/* The kernel's own line (a syscall's, a marker's): no name column. */
			memmove(f->ln.p + name_at, f->ln.p + text_at, f->ln.len - text_at);
			f->ln.len -= text_at - name_at;
		}
		putc_(f, '\n');
		break;
	}
	emit(f);
	return 0;
}
