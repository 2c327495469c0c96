// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lines that are not tr's usual one: the function_graph view's, and
 * those the kernel's trace options shape (raw, hex, bin, latency-format,
 * fields ...).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt-core-local.h"

void fmt_header(struct fmt *f, struct fmt_src *s, uint64_t entries, uint64_t written)
{
	fmt_kheader(&f->ln, &s->ko, s->release, entries, written, s->ncpus);
	fmt_emit(f);
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

	if (!fmt_ksym(ctx, addr, &name, &start, &size, &mod))
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

	if (!fmt_ksym(ctx, addr, &name, &start, &size, &mod))
		return false;
	snprintf(buf, n, "%s+0x%" PRIx64 "/0x%" PRIx64 "%s%s%s", name, addr - start, size,
		 mod ? " [" : "", mod ? mod : "", mod ? "]" : "");
	return true;
}

/*
 * func-args and funcgraph-args from the kernel's BTF (print_function_args()),
 * for the function at func: its start, or a few bytes in, past the
 * endbr64 that IBT puts first (the kernel looks the symbol up the same way,
 * by the address it has); 6.18 began writing unsigned ints in hex.
 */
bool fmt_func_args(void *ctx, uint64_t func, const uint64_t *args, int nargs, char *buf,
		   size_t n)
{
	struct fmt_src *s = ctx;
	const char *name, *mod;
	uint64_t start, size;

	if (!src_btf(s) || !fmt_ksym(s, func, &name, &start, &size, &mod))
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
void fmt_graph_event(struct fmt *f, struct fmt_src *s, struct ev_info *ei, const char *prefix,
		     const struct tfile_event *ev, struct tep_record *rec)
{
	struct fmt_graph_env env = { .func_name = graph_func_name, .sym_off = graph_sym_off,
				     .args_text = fmt_func_args, .comm = graph_comm, .ctx = s };
	struct fmt_graph_rec r, n, *next = NULL;
	struct tfile_event *ahead;

	graph_irq_range(s);
	env.irq_lo = s->irq_lo;
	env.irq_hi = s->irq_hi;
	graph_rec(s, ei, ev, &r);
	if (!r.kind) {
		f->txt.len = 0;
		if (ei->event) {
			fmt_line_put(&f->txt, ei->event->name, strlen(ei->event->name));
			fmt_line_put(&f->txt, ": ", 2);
		}
		if (fmt_event_text(f, s, ei, rec, false, &f->txt) == KPROG_LINE) {
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
		graph_rec(s, fmt_ev(s, id < 0 ? 0 : id), ahead, &n);
		next = &n;
	}
	if (fmt_graph_put(graph_of(s, prefix), &env, prefix, &r, next, &f->ln) && f->skip)
		f->skip(f->peek_ctx);
}

/* Print the waiting latency-format line, with next the time of the record after it. */
void fmt_lat_release(struct fmt *f, uint64_t next)
{
	f->pending = false;
	f->tmp.len = 0;
	fmt_klat_time(&f->tmp, f->pend_verbose, f->pend_ns, f->pend_ts, next);
	fmt_write(f, f->pend.p, f->pend_at);
	fmt_write(f, f->tmp.p, f->tmp.len);
	fmt_write(f, f->pend.p + f->pend_at, f->pend.len - f->pend_at);
}

/* The line in f->ln waits for the next record; the one waiting before goes out. */
static void lat_hold(struct fmt *f, struct fmt_src *s, size_t time_at, uint64_t ts)
{
	struct fmt_line t;

	if (f->pending)
		fmt_lat_release(f, ts);
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
void fmt_kernel_line(struct fmt *f, struct fmt_src *s, struct ev_info *ei, const char *prefix,
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
		fmt_event_text(f, s, ei, rec, false, &f->txt);
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
			fmt_event_text(f, s, ei, rec, false, &f->txt);
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
			int tg = fmt_src_tgid(s, pid);

			if (tg > 0)
				fmt_line_printf(&f->ln, "(%7d) ", tg);
			else
				puts_(f, "(-------) ");
		}
		fmt_line_printf(&f->ln, "[%03d] ", ev->cpu);
		if (k->irq)
			put(f, irq, 5);
		fmt_put_time(f, s, ev->ts);
		if (f->o.ts_diff)
			fmt_put_delta(f, ev->ts);
		puts_(f, ": ");
	}
	if (k->fields) {
		fmt_env_setup(s);
		fmt_kfields(&f->ln, &s->env, ei->event, id, d, ev->size);
	} else {
		name_at = f->ln.len;
		if (ei->event)
			fmt_line_printf(&f->ln, "%s: ", ei->event->name);
		text_at = f->ln.len;
		if (fmt_event_text(f, s, ei, rec, f->o.raw, &f->ln) == KPROG_LINE) {
			memmove(f->ln.p + name_at, f->ln.p + text_at, f->ln.len - text_at);
			f->ln.len -= text_at - name_at;
		}
		putc_(f, '\n');
	}
	f->idx++;
	if (k->context && k->lat)
		lat_hold(f, s, time_at, ev->ts);
}
