// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function_graph printer: see fmt-graph.h.  The layout is the kernel's
 * (trace_functions_graph.c's output with the default options), column for
 * column, so that a report can be compared with the kernel's trace file.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt-graph.h"

/* The depth the kernel remembers entered functions to (FTRACE_RETFUNC_DEPTH). */
enum { RETFUNC_DEPTH = 50, INDENT = 2, PROC_WIDTH = 14 };

struct fg_cpu {
	int last_pid;		/* -1 before the first record */
	int depth;		/* where comments go */
	uint64_t enter[RETFUNC_DEPTH];	/* the open function at each depth, 0 none */
};

struct fmt_graph {
	int cpu_width;
	int ncpus;
	struct fg_cpu *cpus;
};

struct fmt_graph *fmt_graph_new(int ncpus)
{
	struct fmt_graph *g = xcalloc(1, sizeof(*g));
	char tmp[16];

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
			g->cpus[i] = (struct fg_cpu){ .last_pid = -1 };
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

static void printf_(struct fmt_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(struct fmt_line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	fmt_line_grow(l, n + 1);
	va_start(ap, fmt);
	vsnprintf(l->p + l->len, n + 1, fmt, ap);
	va_end(ap);
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
	printf_(l, " %*d) ", g->cpu_width, cpu);
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
 * The duration column: "  8.615 us    |  " with its mark in front.  The
 * microseconds, then as many decimals as keep the number within 7 digits
 * (none from 7 digits on), then " us " and blanks to 8 characters.
 */
static void put_duration(struct fmt_line *l, uint64_t ns)
{
	char us[24];
	int len, dec;

	printf_(l, "%c ", fmt_graph_mark(ns));
	len = snprintf(us, sizeof(us), "%" PRIu64, ns / 1000);
	puts_(l, us);
	if (len < 7) {
		char rem[8];

		dec = 7 - len < 3 ? 7 - len : 3;
		snprintf(rem, sizeof(rem), "%03u", (unsigned)(ns % 1000));
		printf_(l, ".%.*s", dec, rem);
		len += dec + 1;
	}
	puts_(l, " us ");
	pad(l, 8 - len);
	puts_(l, "|  ");
}

/* The blank duration column of a line without a time. */
static void put_no_duration(struct fmt_line *l)
{
	puts_(l, "              |  ");
}

/* A change of task on a CPU: the kernel's separator block. */
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
			 int cpu, uint64_t func, bool enter, struct fmt_line *l)
{
	if (!in_irq_text(env, func))
		return;
	puts_(l, prefix);
	put_cpu(g, l, cpu);
	puts_(l, "  ");
	puts_(l, enter ? "==========>" : "<==========");
	puts_(l, " |\n");
}

static void put_func(const struct fmt_graph_env *env, struct fmt_line *l, uint64_t func)
{
	char name[512];

	if (env->func_name && env->func_name(env->ctx, func, name, sizeof(name)))
		puts_(l, name);
	else
		printf_(l, "0x%" PRIx64, func);
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
	bool leaf = false;

	if (!prefix)
		prefix = "";
	check_pid(g, env, prefix, c, r->cpu, r->pid, out);
	switch (r->kind) {
	case FG_ENTRY:
		/* The kernel peeks at the CPU's next record: the same task leaving the same function. */
		leaf = next && next->kind == FG_EXIT && !next->missed && next->pid == r->pid &&
		       next->func == r->func;
		put_irq_mark(g, env, prefix, r->cpu, r->func, true, out);
		puts_(out, prefix);
		put_cpu(g, out, r->cpu);
		if (leaf) {
			/* Comments after a leaf go at its own depth. */
			c->depth = r->depth - 1;
			remember(c, r->depth, 0);
			put_duration(out, next->rettime - next->calltime);
			pad(out, r->depth * INDENT);
			put_func(env, out, r->func);
			puts_(out, "();\n");
			put_irq_mark(g, env, prefix, r->cpu, r->func, false, out);
		} else {
			c->depth = r->depth;
			remember(c, r->depth, r->func);
			put_no_duration(out);
			pad(out, r->depth * INDENT);
			put_func(env, out, r->func);
			puts_(out, "() {\n");
		}
		break;
	case FG_EXIT: {
		bool match = true;

		/* Comments after a return go at the level of its brace. */
		c->depth = r->depth - 1;
		if (r->depth >= 0 && r->depth < RETFUNC_DEPTH) {
			match = c->enter[r->depth] == r->func;
			c->enter[r->depth] = 0;
		}
		puts_(out, prefix);
		put_cpu(g, out, r->cpu);
		put_duration(out, r->rettime - r->calltime);
		pad(out, r->depth * INDENT);
		if (match) {
			puts_(out, "}\n");
		} else {
			/* The entry was lost (or before the buffer's start): say whose brace this is. */
			puts_(out, "} /* ");
			put_func(env, out, r->func);
			puts_(out, " */\n");
		}
		put_irq_mark(g, env, prefix, r->cpu, r->func, false, out);
		break;
	}
	default:
		puts_(out, prefix);
		put_cpu(g, out, r->cpu);
		put_no_duration(out);
		if (c->depth > 0)
			pad(out, (c->depth + 1) * INDENT);
		puts_(out, "/* ");
		put(out, r->text ? r->text : "", r->text ? r->text_len : 0);
		puts_(out, " */\n");
		break;
	}
	return leaf;
}
