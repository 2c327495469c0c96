/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The function_graph printer (private to src/fmt*.c): funcgraph_entry and
 * funcgraph_exit records shown as the kernel's trace file shows them with
 * the function_graph tracer, under the funcgraph-* options the recording
 * had (struct fmt_graph_opts, in fmt.h).  With the defaults (funcgraph-cpu,
 * -duration, -overhead and -irqs set; -proc, -abstime, -tail, -retval
 * clear):
 *
 *    1)               |  ksys_read() {
 *    1) ! 194.251 us  |    vfs_read();
 *    1) # 1205.698 us |  }
 *
 * A call whose exit is the next record of its CPU (same task, same
 * function) is a leaf, one line "func();"; any other entry opens "func() {"
 * and its exit closes "}" (followed by the function's name in a C comment
 * when the entry was not seen).  A change of task on a CPU prints the kernel's
 * separator block; other events print as comments at the current depth; an
 * interrupt handler's entry and exit are marked "==========>" and
 * "<==========" when the range of the kernel's irq entry text is known
 * (without funcgraph-irqs the handler and what it calls are left out).
 * The other options add or remove columns in front of the graph (abstime
 * "  512.345678 |  ", proc " cat-77  | "), the mark or the whole duration
 * column, and write the function's name (tail), return value (retval) or
 * overrun count after a closing brace.
 *
 * State is per CPU, so one struct fmt_graph serves one buffer.  The caller
 * does the look-ahead (it owns the per-CPU streams):
 *
 *   g = fmt_graph_new(ncpus, &opts);
 *   for each record r in time order:
 *       next = (r.kind == FG_ENTRY) ? the next record of r's CPU : NULL;
 *       if (fmt_graph_put(g, &env, prefix, &r, next, out))
 *           skip next (it was the leaf's exit);
 *   fmt_graph_free(g);
 */
#ifndef TR_FMT_GRAPH_H
#define TR_FMT_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "fmt-local.h"

enum fmt_graph_kind { FG_OTHER, FG_ENTRY, FG_EXIT };

/* The kernel's FTRACE_REGS_MAX_ARGS (include/linux/ftrace_regs.h: 6 unless the arch says). */
enum { FMT_GRAPH_MAX_ARGS = 6 };

/* One record, decoded (the fields the kernel's printer reads). */
struct fmt_graph_rec {
	enum fmt_graph_kind kind;
	int cpu, pid;
	uint64_t func;		/* entry and exit */
	int depth;		/* entry and exit */
	uint64_t calltime, rettime;	/* exit: in the trace clock's ns */
	uint64_t ts;		/* the record's time (funcgraph-abstime) */
	uint64_t retval;	/* exit: the return value, when has_retval */
	bool has_retval;	/* the kernel's funcgraph_exit carries one (6.5+) */
	unsigned overrun;	/* exit: funcgraph-overrun's count */
	/* FG_OTHER: the comment's text ("sched_switch: prev_comm=..."), no newline */
	const char *text;
	size_t text_len;
	bool missed;		/* lost events come before it (a look-ahead is then no leaf) */
	/*
	 * entry, 6.15+ with funcgraph-args: the function's first arguments
	 * (the kernel's FTRACE_REGS_MAX_ARGS of them), nargs 0 without
	 */
	uint64_t args[FMT_GRAPH_MAX_ARGS];
	int nargs;
	/* entry, 6.13+ fgraph_retaddr_entry (funcgraph-retaddr): where the call returns to */
	uint64_t retaddr;
	bool has_retaddr;
};

/* Names the printer asks for. */
struct fmt_graph_env {
	/*
	 * The symbol at addr as the kernel's %ps prints it ("vfs_read", or
	 * "name [module]"), written into buf (n bytes); false if none.
	 */
	bool (*func_name)(void *ctx, uint64_t addr, char *buf, size_t n);
	/*
	 * The symbol at addr with its offset and size as the kernel's %pS
	 * prints it ("vfs_read+0x9b/0x1a0"); false if none.  NULL: none known.
	 */
	bool (*sym_off)(void *ctx, uint64_t addr, char *buf, size_t n);
	/*
	 * The arguments as the kernel's print_function_args() writes them
	 * from BTF, without the parentheses ("file=0xffff8881, count=0x80"),
	 * into buf; false when the function's prototype is unknown (then the
	 * values are printed plain, in hex).  NULL: no BTF.
	 */
	bool (*args_text)(void *ctx, uint64_t func, const uint64_t *args, int nargs, char *buf,
			  size_t n);
	/* The task name the kernel's saved_cmdlines gives pid. */
	const char *(*comm)(void *ctx, int pid);
	void *ctx;
	/* The kernel's irq entry text [irq_lo, irq_hi); both 0 when unknown. */
	uint64_t irq_lo, irq_hi;
};

struct fmt_graph;

/*
 * ncpus: the traced machine's CPU count (the CPU column's width follows
 * it); o: the layout (NULL: the kernel's defaults).
 */
struct fmt_graph *fmt_graph_new(int ncpus, const struct fmt_graph_opts *o);
void fmt_graph_free(struct fmt_graph *g);

/*
 * Append r's lines to out, each led by prefix (an instance's "name: ", or
 * ""; the separator's empty line has none).  next is the record that
 * follows r on its CPU (only looked at for an entry; NULL at the end or
 * when unknown).  True when next is r's exit and was printed with it: the
 * caller must not hand it in again.
 */
bool fmt_graph_put(struct fmt_graph *g, const struct fmt_graph_env *env, const char *prefix,
		   const struct fmt_graph_rec *r, const struct fmt_graph_rec *next,
		   struct fmt_line *out);

/* The kernel's mark for a duration in ns: '$' over 1 s ... '+' over 10 us, else ' '. */
char fmt_graph_mark(uint64_t ns);

#endif
