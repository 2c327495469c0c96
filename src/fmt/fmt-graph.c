// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function_graph printer: see fmt-graph.h.  The layout is the kernel's
 * (trace_functions_graph.c's output under the funcgraph-* options), column
 * for column, so that a report can be compared with the kernel's trace file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt-graph.h"

/* The depth the kernel remembers entered functions to (FTRACE_RETFUNC_DEPTH). */
enum { RETFUNC_DEPTH = 50, INDENT = 2, PROC_WIDTH = 14 };

/*
 * The deepest level a line is indented to.  A depth is read from the file,
 * so it may be any 32-bit value, but no kernel's return stack holds more
 * than a few hundred calls (FTRACE_RETFUNC_DEPTH's 50 before 6.9, one 4 KB
 * page of frames since): every depth the printer works with is first
 * brought into [0, MAX_DEPTH] (depth_of()), so that no sum or product of
 * depths can overflow and no line holds more than 2 KB of indentation
 * whatever the file says (a depth of 2^30 was 2 GB of blanks in one line,
 * one of 2^31 - 1 a signed overflow).
 */
enum { MAX_DEPTH = 1024 };

struct fg_cpu {
	int last_pid;		/* -1 before the first record */
	int depth;		/* where comments go: -1 .. MAX_DEPTH */
	uint64_t enter[RETFUNC_DEPTH];	/* the open function at each depth, 0 none */
	int irq_depth;		/* without funcgraph-irqs: the handler's depth, -1 outside one */
};

/* r's depth as the printer uses it: a negative one (a u32 past INT_MAX) is 0. */
static int depth_of(const struct fmt_graph_rec *r)
{
	return r->depth < 0 ? 0 : r->depth > MAX_DEPTH ? MAX_DEPTH : r->depth;
}

struct fmt_graph {
	struct fmt_graph_opts o;
	int cpu_width;
	int ncpus;
	struct fg_cpu *cpus;
};

void fmt_graph_opts_default(struct fmt_graph_opts *o)
{
	*o = (struct fmt_graph_opts){ .cpu = true, .overhead = true, .duration = true, .irqs = true,
				      .ret_eq = true };
}

int fmt_graph_opts_apply(struct fmt_graph_opts *o, const char *text, bool strict, char *bad,
			 size_t n)
{
	static const struct {
		const char *name;
		size_t off;
	} names[] = {
#define O(f) { #f, offsetof(struct fmt_graph_opts, f) }
		O(cpu), O(proc), O(abstime), O(overhead), O(duration), O(irqs), O(tail),
		O(retval), { "retval-hex", offsetof(struct fmt_graph_opts, retval_hex) }, O(overrun),
		O(retaddr), O(args),
#undef O
	};
	const char *p = text ? text : "";

	for (;;) {
		size_t wl, len;
		const char *word, *w;
		bool on = true, known = false;

		p += strspn(p, ", \t\n");
		if (!*p)
			return 0;
		word = w = p;
		len = wl = strcspn(p, ", \t\n");
		p += len;
		if (wl > 2 && !strncmp(w, "no", 2)) {
			on = false;
			w += 2;
			wl -= 2;
		}
		if (wl > 10 && !strncmp(w, "funcgraph-", 10)) {
			w += 10;
			wl -= 10;
		}
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == wl && !strncmp(names[i].name, w, wl)) {
				*(bool *)((char *)o + names[i].off) = on;
				known = true;
			}
		if (!known && strict) {
			if (bad && n)
				snprintf(bad, n, "%.*s", (int)len, word);
			return -EINVAL;
		}
	}
}

struct fmt_graph *fmt_graph_new(int ncpus, const struct fmt_graph_opts *o)
{
	struct fmt_graph *g = xcalloc(1, sizeof(*g));
	char tmp[16];

	if (o)
		g->o = *o;
	else
		fmt_graph_opts_default(&g->o);

	/* The kernel pads the CPU to the width of its highest number. */
	g->cpu_width = snprintf(tmp, sizeof(tmp), "%d", ncpus > 1 ? ncpus - 1 : 0);
	return g;
}

void fmt_graph_free(struct fmt_graph *g)
{
	if (!g)
		return;
	free(g->cpus);
	free(g);
}

static struct fg_cpu *cpu_state(struct fmt_graph *g, int cpu)
{
	if (cpu < 0)
		cpu = 0;
	if (cpu >= g->ncpus) {
		int n = cpu + 1;

		g->cpus = xrealloc(g->cpus, n * sizeof(*g->cpus));
		for (int i = g->ncpus; i < n; i++)
			g->cpus[i] = (struct fg_cpu){ .last_pid = -1, .irq_depth = -1 };
		g->ncpus = n;
	}
	return &g->cpus[cpu];
}

static void put(struct fmt_line *l, const char *s, size_t n)
{
	if (!n)
		return;
	fmt_line_grow(l, n);
	memcpy(l->p + l->len, s, n);
	l->len += n;
}

static void puts_(struct fmt_line *l, const char *s)
{
	put(l, s, strlen(s));
}

static void pad(struct fmt_line *l, int n)
{
	if (n <= 0)
		return;
	fmt_line_grow(l, n);
	memset(l->p + l->len, ' ', n);
	l->len += n;
}

char fmt_graph_mark(uint64_t ns)
{
	static const struct {
		uint64_t over;
		char c;
	} marks[] = {
		{ 1000000000ULL, '$' }, { 100000000ULL, '@' }, { 10000000ULL, '*' },
		{ 1000000ULL, '#' },	{ 100000ULL, '!' },    { 10000ULL, '+' },
	};

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (ns > marks[i].over)
			return marks[i].c;
	return ' ';
}

/* " 1) ": the CPU, padded to the width of the machine's highest CPU number. */
static void put_cpu(struct fmt_graph *g, struct fmt_line *l, int cpu)
{
	fmt_line_printf(l, " %*d) ", g->cpu_width, cpu);
}

/* "comm-pid" centred in 14 columns, the name cut to 7 characters as the kernel does. */
static void put_proc(const struct fmt_graph_env *env, struct fmt_line *l, int pid)
{
	const char *comm = env->comm ? env->comm(env->ctx, pid) : NULL;
	char buf[32];
	int len, spaces;

	len = snprintf(buf, sizeof(buf), "%.7s-%d", comm ? comm : "<...>", pid);
	spaces = len < PROC_WIDTH ? PROC_WIDTH - len : 0;
	pad(l, spaces / 2);
	puts_(l, buf);
	pad(l, spaces - spaces / 2);
}

/*
 * The columns in front of every line but the separator's: the prefix, then
 * as the options say the time ("  512.345678 |  "), the CPU and the task
 * (" cat-77  | ").
 */
static void put_prologue(struct fmt_graph *g, const struct fmt_graph_env *env, const char *prefix,
			 const struct fmt_graph_rec *r, struct fmt_line *l)
{
	puts_(l, prefix);
	if (g->o.abstime)
		fmt_line_printf(l, "%5" PRIu64 ".%06u |  ", (uint64_t)(r->ts / 1000000000),
			(unsigned)(r->ts % 1000000000ULL / 1000));
	if (g->o.cpu)
		put_cpu(g, l, r->cpu);
	if (g->o.proc) {
		put_proc(env, l, r->pid);
		puts_(l, " | ");
	}
}

/*
 * The duration column: "  8.615 us    |  " with its mark in front (a blank
 * without funcgraph-overhead).  The microseconds, then as many decimals as
 * keep the number within 7 digits (none from 7 digits on), then " us " and
 * blanks to 8 characters.  Nothing without funcgraph-duration.
 */
static void put_duration(struct fmt_graph *g, struct fmt_line *l, uint64_t ns)
{
	char us[24];
	int len, dec;

	if (!g->o.duration)
		return;
	fmt_line_printf(l, "%c ", g->o.overhead ? fmt_graph_mark(ns) : ' ');
	len = snprintf(us, sizeof(us), "%" PRIu64, ns / 1000);
	puts_(l, us);
	if (len < 7) {
		char rem[8];

		dec = 7 - len < 3 ? 7 - len : 3;
		snprintf(rem, sizeof(rem), "%03u", (unsigned)(ns % 1000));
		fmt_line_printf(l, ".%.*s", dec, rem);
		len += dec + 1;
	}
	puts_(l, " us ");
	pad(l, 8 - len);
	puts_(l, "|  ");
}

/* The blank duration column of a line without a time. */
static void put_no_duration(struct fmt_graph *g, struct fmt_line *l)
{
	if (g->o.duration)
		puts_(l, "              |  ");
}

/* A change of task on a CPU: the kernel's separator block (always with the CPU). */
static void check_pid(struct fmt_graph *g, const struct fmt_graph_env *env, const char *prefix,
		      struct fg_cpu *c, int cpu, int pid, struct fmt_line *l)
{
	int prev = c->last_pid;

	if (prev == pid)
		return;
	c->last_pid = pid;
	if (prev == -1)
		return;
	puts_(l, prefix);
	puts_(l, " ------------------------------------------\n");
	puts_(l, prefix);
	put_cpu(g, l, cpu);
	put_proc(env, l, prev);
	puts_(l, " => ");
	put_proc(env, l, pid);
	puts_(l, "\n");
	puts_(l, prefix);
	puts_(l, " ------------------------------------------\n\n");
}

static bool in_irq_text(const struct fmt_graph_env *env, uint64_t func)
{
	return env->irq_hi && func >= env->irq_lo && func < env->irq_hi;
}

/* "==========>" before an interrupt handler, "<==========" after it. */
static void put_irq_mark(struct fmt_graph *g, const struct fmt_graph_env *env, const char *prefix,
			 const struct fmt_graph_rec *r, bool enter, struct fmt_line *l)
{
	if (!in_irq_text(env, r->func))
		return;
	put_prologue(g, env, prefix, r, l);
	if (g->o.duration)
		puts_(l, "  ");
	puts_(l, enter ? "==========>" : "<==========");
	if (g->o.duration)
		puts_(l, " |");
	puts_(l, "\n");
}

/*
 * Without funcgraph-irqs the kernel leaves out an interrupt handler and all
 * it calls: true when r is such a record.
 */
static bool skip_irq(struct fmt_graph *g, const struct fmt_graph_env *env, struct fg_cpu *c,
		     const struct fmt_graph_rec *r, int depth)
{
	if (g->o.irqs)
		return false;
	if (r->kind == FG_ENTRY) {
		if (c->irq_depth >= 0)
			return true;
		if (!in_irq_text(env, r->func))
			return false;
		c->irq_depth = depth;
		return true;
	}
	if (c->irq_depth == -1)
		return false;
	if (c->irq_depth >= depth)
		c->irq_depth = -1;
	return true;
}

static void put_func(const struct fmt_graph_env *env, struct fmt_line *l, uint64_t func)
{
	char name[512];

	if (env->func_name && env->func_name(env->ctx, func, name, sizeof(name)))
		puts_(l, name);
	else
		fmt_line_printf(l, "0x%" PRIx64, func);
}

/*
 * funcgraph-retval's value (without the brace or name): " = 0x0" before
 * 6.13, " ret=0x0" since (print_graph_retval()); in hex, but an error
 * code (-4095..-1, also as a sign-extended int) in decimal unless
 * funcgraph-retval-hex is set.
 */
static void put_retval(struct fmt_graph *g, struct fmt_line *l, uint64_t v)
{
	uint64_t err = 0;
	const char *eq = g->o.ret_eq ? " = " : " ret=";

	if (v && !g->o.retval_hex) {
		err = (v & (1ULL << 31)) && !(v >> 32) ? (uint64_t)(int64_t)(int32_t)v : v;
		if (err < (uint64_t)-4095)
			err = 0;
	}
	if (err)
		fmt_line_printf(l, "%s%" PRId64, eq, (int64_t)err);
	else
		fmt_line_printf(l, "%s0x%" PRIx64, eq, v);
}

/*
 * The call's parentheses: "()" or, for an entry that carries them
 * (funcgraph-args), the arguments as print_function_args() writes them
 * from BTF ("(file=0xffff8881, count=0x80)"); without the prototype, tr
 * writes the values plain in hex (where the kernel would write "()").
 */
static void put_args(const struct fmt_graph_env *env, struct fmt_line *l,
		     const struct fmt_graph_rec *r)
{
	char buf[512];

	if (!r->nargs) {
		puts_(l, "()");
		return;
	}
	if (env->args_text && env->args_text(env->ctx, r->func, r->args, r->nargs, buf,
					     sizeof(buf))) {
		fmt_line_printf(l, "(%s)", buf);
		return;
	}
	puts_(l, "(");
	for (int i = 0; i < r->nargs; i++)
		fmt_line_printf(l, "%s0x%" PRIx64, i ? ", " : "", r->args[i]);
	puts_(l, ")");
}

/* funcgraph-retaddr's " <-caller+0x1c/0x30" (print_graph_retaddr(): %pS, always the offset). */
static void put_retaddr(const struct fmt_graph_env *env, struct fmt_line *l, uint64_t addr)
{
	char buf[512];

	puts_(l, " <-");
	if (!addr)
		puts_(l, "0");
	else if (env->sym_off && env->sym_off(env->ctx, addr, buf, sizeof(buf)))
		puts_(l, buf);
	else
		fmt_line_printf(l, "0x%" PRIx64, addr);
}

static void remember(struct fg_cpu *c, int depth, uint64_t func)
{
	if (depth >= 0 && depth < RETFUNC_DEPTH)
		c->enter[depth] = func;
}

bool fmt_graph_put(struct fmt_graph *g, const struct fmt_graph_env *env, const char *prefix,
		   const struct fmt_graph_rec *r, const struct fmt_graph_rec *next,
		   struct fmt_line *out)
{
	struct fg_cpu *c = cpu_state(g, r->cpu);
	int depth = depth_of(r);
	bool leaf = false;

	if (!prefix)
		prefix = "";
	if (r->kind != FG_OTHER && skip_irq(g, env, c, r, depth))
		return false;
	check_pid(g, env, prefix, c, r->cpu, r->pid, out);
	switch (r->kind) {
	case FG_ENTRY:
		/* The kernel peeks at the CPU's next record: the same task leaving the same function. */
		leaf = next && next->kind == FG_EXIT && !next->missed && next->pid == r->pid &&
		       next->func == r->func;
		put_irq_mark(g, env, prefix, r, true, out);
		put_prologue(g, env, prefix, r, out);
		if (leaf) {
			/* Comments after a leaf go at its own depth. */
			c->depth = depth - 1;
			remember(c, depth, 0);
			put_duration(g, out, next->rettime - next->calltime);
			pad(out, depth * INDENT);
			put_func(env, out, r->func);
			put_args(env, out, r);
			puts_(out, ";");
			/* print_graph_entry_leaf() and print_graph_retval() */
			{
				bool rv = g->o.retval && next->has_retval;
				bool ra = g->o.retaddr && r->has_retaddr;

				if (rv || ra)
					puts_(out, " /*");
				if (ra)
					put_retaddr(env, out, r->retaddr);
				if (rv)
					put_retval(g, out, next->retval);
				if (rv || ra)
					puts_(out, " */");
			}
			puts_(out, "\n");
			put_irq_mark(g, env, prefix, r, false, out);
		} else {
			c->depth = depth;
			remember(c, depth, r->func);
			put_no_duration(g, out);
			pad(out, depth * INDENT);
			put_func(env, out, r->func);
			put_args(env, out, r);
			/* print_graph_entry_nested(): the caller in a comment after the brace */
			puts_(out, " {");
			if (g->o.retaddr && r->has_retaddr) {
				puts_(out, " /*");
				put_retaddr(env, out, r->retaddr);
				puts_(out, " */");
			}
			puts_(out, "\n");
		}
		break;
	case FG_EXIT: {
		bool match = true;

		/* Comments after a return go at the level of its brace. */
		c->depth = depth - 1;
		if (depth >= 0 && depth < RETFUNC_DEPTH) {
			match = c->enter[depth] == r->func;
			c->enter[depth] = 0;
		}
		put_prologue(g, env, prefix, r, out);
		put_duration(g, out, r->rettime - r->calltime);
		pad(out, depth * INDENT);
		if (g->o.retval && r->has_retval) {
			puts_(out, "} /* ");
			put_func(env, out, r->func);
			put_retval(g, out, r->retval);
			puts_(out, " */\n");
		} else if (match && !g->o.tail) {
			puts_(out, "}\n");
		} else {
			/* The entry was lost (or before the buffer's start): say whose brace this is. */
			puts_(out, "} /* ");
			put_func(env, out, r->func);
			puts_(out, " */\n");
		}
		if (g->o.overrun) {
			puts_(out, prefix);
			fmt_line_printf(out, " (Overruns: %u)\n", r->overrun);
		}
		put_irq_mark(g, env, prefix, r, false, out);
		break;
	}
	default:
		put_prologue(g, env, prefix, r, out);
		put_no_duration(g, out);
		if (c->depth > 0)
			pad(out, (c->depth + 1) * INDENT);
		puts_(out, "/* ");
		put(out, r->text ? r->text : "", r->text ? r->text_len : 0);
		puts_(out, " */\n");
		break;
	}
	return leaf;
}
