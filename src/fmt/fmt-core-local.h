/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * struct fmt and struct fmt_src, and what the files that share them call of
 * each other: fmt.c (the line buffer, tr's usual line and fmt_event()),
 * fmt-src.c (sources: comm tables and the event cache), fmt-kenv.c (what
 * the kernel's printer reads beside the records), fmt-json-csv.c and
 * fmt-kline.c (the function_graph view and the kernel's other lines).
 */
#ifndef TR_FMT_CORE_LOCAL_H
#define TR_FMT_CORE_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <event-parse.h>

#include "btf.h"
#include "fmt-graph.h"
#include "fmt-kernel.h"
#include "fmt-local.h"
#include "hash.h"
#include "tfile.h"

enum { COMM_LEN = 24, NAME_COL = 21 };

struct comm_ent {
	uint64_t tag;		/* hash.h's: the pid (as a uint32_t) + 1 */
	uint8_t state;		/* 1 learned from the trace, 2 saved_cmdlines */
	char comm[COMM_LEN];
};

struct tgid_ent {
	uint64_t tag;		/* hash.h's: the pid + 1 */
	int tgid;
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

struct fmt_src {
	struct fmt *f;
	struct tep_handle *tep;
	struct htab comms;	/* struct comm_ent by pid */
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
	struct htab tgids;	/* struct tgid_ent by pid, from saved_tgids */
	const struct tfile_procmap *procmaps;	/* fmt_src_procmaps(): the caller's */
	int nprocmaps;
	struct ev_info **ids;	/* by event id, 0..65535 */
	/* A record's copy with zeros after it, for libtraceevent (see fmt_safe_record). */
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
	struct htab kstrs;	/* printk_formats: struct kstr by address */
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
	bool ko_line;		/* one of them leaves tr's usual line: fmt_kernel_line() prints */
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
static inline const struct btf *src_btf(struct fmt_src *s)
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
	uint64_t tag;		/* hash.h's: the address + 1 */
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
	uint64_t sec;		/* fmt_put_time(): the last seconds printed, */
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

static inline void grow(struct fmt *f, size_t more)
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

static inline int rec_pid(struct fmt_src *s, const struct tfile_event *ev)
{
	if (ev->size < (uint32_t)(s->pid_off + s->pid_size))
		return -1;
	return (int)rd_num(s, (const uint8_t *)ev->data + s->pid_off, s->pid_size);
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

/* fmt.c: the line (f->ln) out, whole or gathered (fmt_buffer); bytes out in order. */
void fmt_emit(struct fmt *f);
void fmt_write(struct fmt *f, const char *p, size_t n);
/* The time column, and --ts-diff's " (+0.000123)" after it. */
void fmt_put_time(struct fmt *f, struct fmt_src *s, uint64_t ts);
void fmt_put_delta(struct fmt *f, uint64_t ts);
/*
 * The event's text onto out, by the kernel's printer, the fast printer or
 * libtraceevent (raw: its fields); KPROG_LINE when the text is the whole
 * line after the time (the kernel prints no "name: " for it).
 */
int fmt_event_text(struct fmt *f, struct fmt_src *s, struct ev_info *ei, struct tep_record *rec,
		   bool raw, struct fmt_line *out);

/* fmt-src.c: event id's entry in the cache (id & 0xffff), made at its first record. */
struct ev_info *fmt_ev_new(struct fmt_src *s, int id);
static inline struct ev_info *fmt_ev(struct fmt_src *s, int id)
{
	struct ev_info *ei = s->ids[id & 0xffff];

	return ei ? ei : fmt_ev_new(s, id);
}
/* A copy of the record with zeros after it, which libtraceevent cannot read past. */
void *fmt_safe_record(struct fmt_src *s, const void *data, uint32_t size);
/* Do the record's __print_hex/__print_array lengths stay inside it? */
bool fmt_lens_fit(struct fmt_src *s, const struct ev_info *ei, const struct tep_record *rec);

/* "name=value, ..." of func's arguments from the BTF (fmt-kline.c); false without one. */
bool fmt_func_args(void *ctx, uint64_t func, const uint64_t *args, int nargs, char *buf,
		   size_t n);
/* fmt-kenv.c: the kernel's kallsyms_lookup() over the source's symbols (ctx is the source). */
bool fmt_ksym(void *ctx, uint64_t addr, const char **name, uint64_t *start, uint64_t *size,
	      const char **mod);
/* s->env filled in, once; the event's kernel printer compiled, once (ei->kp, or NULL). */
void fmt_env_setup(struct fmt_src *s);
void fmt_kernel_compile(struct fmt_src *s, struct ev_info *ei);
/* The blk tracer's entry type, which has no format (-1 when unknown). */
int fmt_blk_type(struct fmt_src *s);
/* The memory map stored for process tgid, or NULL (ctx is the source). */
const struct tfile_procmap *fmt_kprocmap(void *ctx, int tgid);

/* fmt-json-csv.c */
void fmt_put_json_str(struct fmt *f, const char *p, size_t n);
/* Does the field hold characters (a string, char[]), not numbers? */
bool fmt_char_field(const struct tep_format_field *fld);
void fmt_json_event(struct fmt *f, struct fmt_src *s, struct ev_info *ei, const char *prefix,
		    const struct tfile_event *ev, int pid);
void fmt_csv_event(struct fmt *f, struct fmt_src *s, struct ev_info *ei,
		   const struct tfile_event *ev, int pid, struct tep_record *rec);

/*
 * fmt-kline.c: an event in the function_graph view; a line the kernel's
 * trace options shape (s->ko_line); the latency-format line held for the
 * next record's time, let out with next as that time.
 */
void fmt_graph_event(struct fmt *f, struct fmt_src *s, struct ev_info *ei, const char *prefix,
		     const struct tfile_event *ev, struct tep_record *rec);
void fmt_kernel_line(struct fmt *f, struct fmt_src *s, struct ev_info *ei, const char *prefix,
		     const struct tfile_event *ev, int id, int pid, struct tep_record *rec);
void fmt_lat_release(struct fmt *f, uint64_t next);

#endif
