/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The formatter: turns raw ring-buffer records into text (the kernel's own
 * `trace` layout, as trace-cmd report prints it), JSON lines or CSV, with
 * task names resolved; the k-way merge that puts several per-CPU streams in
 * timestamp order; and the report pipeline over trace.dat files.
 *
 * A struct fmt writes to one FILE* the command hands it; it is the only
 * layer allowed to write there.  A struct fmt_src is one tep handle (a file,
 * or a live tracefs for `tr stream`) with its own comm table, event cache
 * and filter, so records from several files can share one output.
 *
 *   f = fmt_new(stdout, &opts);
 *   s = fmt_src_new(f, tep);
 *   fmt_src_cmdlines(s, saved_cmdlines_text);
 *   fmt_event(f, s, "", &ev);        // ev from tfile_page_next or a cursor
 *   fmt_flush(f);
 *
 * For live data (tr stream): build the tep from tracefs, parse the
 * instance's events/header_page with tfile_layout_parse(), and for each
 * sub-buffer read from per_cpu/cpuN/trace_pipe_raw run tfile_page_load()
 * and tfile_page_next(), set ev.cpu, and hand each record to fmt_event()
 * (after fmt_src_learn(), so names the trace shows are used from then on);
 * several CPUs go through fmt_merge_*() to come out in time order.
 */
#ifndef TR_FMT_H
#define TR_FMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tfile.h"
#include "tr.h"

struct tep_handle;
struct tep_plugin_list;

enum fmt_kind { FMT_TEXT, FMT_JSON, FMT_CSV };

/*
 * The function_graph tracer's options that shape its text (the files
 * options/funcgraph-* of the recorded instance).  Sleep-time and graph-time
 * change what is recorded, not how it prints: they are not here.
 */
struct fmt_graph_opts {
	bool cpu, proc, abstime, overhead, duration, irqs, tail, retval, retval_hex, overrun;
	/*
	 * 6.13+: retaddr shows fgraph_retaddr_entry's caller; args is accepted
	 * (entries that carry arguments print them, as the kernel does
	 * whatever the option says when the text is read); ret_eq: the
	 * kernel's older retval text "= 0x0" (before 6.13) rather than
	 * "ret=0x0", chosen from the file's kernel release, not a word.
	 */
	bool retaddr, args, ret_eq;
};

/* The kernel's defaults: cpu, overhead, duration and irqs set, the rest clear. */
void fmt_graph_opts_default(struct fmt_graph_opts *o);
/*
 * Set options from words separated by commas or white space: "proc" or
 * "funcgraph-proc" sets, "noproc" or "nofuncgraph-proc" clears (the
 * syntax of trace_options).  Unknown words are skipped when !strict (a
 * newer kernel's options in a file); when strict, -EINVAL with the first
 * one copied to bad (n bytes).
 */
int fmt_graph_opts_apply(struct fmt_graph_opts *o, const char *text, bool strict, char *bad,
			 size_t n);

struct fmt_opts {
	enum fmt_kind kind;
	bool raw;	/* text: the fields as name=value (trace-cmd report -R) */
	bool ns;	/* text: timestamps to the nanosecond */
	bool ts_diff;	/* text: the time since the previous printed event, "(+0.000012)" */
	/*
	 * The event text libtraceevent prints (trace-cmd report -N's, for
	 * diffing against trace-cmd) instead of the kernel's own, and
	 * trace-cmd's time column.
	 */
	bool lib;
	/*
	 * text: function_graph records (ftrace:funcgraph_entry/exit) as the
	 * kernel's trace file prints them under that tracer -- the call graph,
	 * with the other events as comments in it -- rather than one line each.
	 */
	bool graph;
	/* The graph's options over those the file records ("proc,noabstime"), or NULL. */
	const char *graph_opts;
	/*
	 * text: the kernel's irq-info column after the CPU ("d..2."):
	 * irqs-off/BH-disabled, need-resched, hardirq/softirq, preempt-depth
	 * and migrate-disable, from each record's common_flags and
	 * common_preempt_count, as the trace file prints them.
	 */
	bool irq_info;
	/*
	 * text: the kernel's trace options that change its trace file's lines,
	 * over those the recording had ("raw,nocontext-info"; fmt_kopts_check
	 * says which): raw, hex and bin (the kernel's raw, hex and binary
	 * records), context-info (the task, CPU and time columns), irq-info,
	 * record-tgid (a TGID column), latency-format and verbose (the latency
	 * tracers' columns), fields (every field as name=value), annotate ("#####
	 * CPU N buffer started ####" after an overrun), printk-msg-only
	 * (markers' messages alone), trace_printk.  NULL: the recording's.
	 */
	const char *kopts;
	/*
	 * text: a user stack's addresses also by function ("OBJ[+0xOFF]
	 * FUNC+0xOFF"), from the objects' ELF symbols read here and now; sets
	 * sym-userobj.  Not the kernel's text, which has no user symbols.
	 */
	bool user_syms;
};

/* Are these words (commas or white space between) options kopts takes?  -EINVAL with the first that is not. */
int fmt_kopts_check(const char *text, char *bad, size_t n);

/*
 * The irq-info column of a record's common_flags and common_preempt_count
 * under kernel kver (major << 8 | minor; 0: unknown, taken as recent) into
 * out: five characters and a NUL.
 */
void fmt_irq_info(unsigned flags, unsigned preempt, unsigned kver, char out[6]);

struct fmt;
struct fmt_src;

struct fmt *fmt_new(FILE *out, const struct fmt_opts *o);
/* Flush the output: 0, or -errno of the failed write. */
int fmt_flush(struct fmt *f);
/*
 * Gather lines and write them in large pieces (on) or each as it is done
 * (off, the default, which writes what was gathered): a file or a pipe
 * that nobody watches line by line.  fmt_flush() writes them too.
 */
void fmt_buffer(struct fmt *f, bool on);
/* The first error in writing the output (a negative errno), or 0. */
int fmt_error(const struct fmt *f);
void fmt_free(struct fmt *f);

struct fmt_src *fmt_src_new(struct fmt *f, struct tep_handle *tep);
void fmt_src_free(struct fmt_src *s);
/* Task names from saved_cmdlines ("PID COMM" lines): these win over the rest. */
void fmt_src_cmdlines(struct fmt_src *s, const char *text);
/* saved_tgids ("PID TGID" lines): a thread without a name takes its process's. */
void fmt_src_tgids(struct fmt_src *s, const char *text);
/* The process of pid as saved_tgids had it, or 0. */
int fmt_src_tgid(struct fmt_src *s, int pid);
/*
 * The processes' memory maps (PROCMAPS options): under sym-userobj a user
 * stack's addresses are named by object and offset, as the kernel names
 * them from the live process.  The array stays the caller's and must
 * outlive s.
 */
struct tfile_procmap;
void fmt_src_procmaps(struct fmt_src *s, const struct tfile_procmap *maps, int n);
/*
 * After --user-syms: the objects whose ELF could not be read, "'PATH'
 * (why), ...", or NULL.  The caller frees it.
 */
char *fmt_user_syms_unread(const struct fmt *f);
/*
 * Learn names from events whose fields name a task for sure (sched_switch's
 * prev and next, the wakeups', sched_process_fork's parent and child,
 * task_newtask, task_rename, sched_process_exec's file name) for tasks
 * saved_cmdlines does not name: where the kernel's trace shows "<...>", tr
 * fills the name in.  A report calls this over the whole trace before
 * printing it.
 */
void fmt_src_learn(struct fmt_src *s, const struct tfile_event *ev);
/*
 * What the kernel's printer reads beside the records (all optional; without
 * them, events that need them print as libtraceevent prints them):
 *  - the event's format file text, from fn (malloc'ed, or NULL): its print
 *    fmt is parsed from it;
 *  - kallsyms text ("ADDR TYPE NAME [MOD]" lines; copied) for %pS, %ps,
 *    stack traces and the size in "name+0x10/0x40";
 *  - printk_formats text (copied), for strings printed by address;
 *  - BTF of the kernel that wrote the trace (borrowed, must outlive s), for
 *    enum constants that formats name.
 */
typedef char *(*fmt_format_fn)(void *ctx, const char *system, const char *name);
void fmt_src_formats(struct fmt_src *s, fmt_format_fn fn, void *ctx);
void fmt_src_kallsyms(struct fmt_src *s, const char *text);
/* The same in pieces of whole lines (a file read a block at a time), then the end. */
void fmt_src_kallsyms_lines(struct fmt_src *s, const char *text, size_t len);
void fmt_src_kallsyms_end(struct fmt_src *s);
/* Or: the tep handle has the symbols already (tracefs_local_events loads them). */
void fmt_src_tep_symbols(struct fmt_src *s);
/*
 * Or: load(arg) gives the tep handle its symbols, called the first time
 * libtraceevent prints an event (the kernel's printer has its own table
 * from fmt_src_kallsyms; parsing them twice was a twentieth of a report).
 */
void fmt_src_tep_symbols_loader(struct fmt_src *s, void (*load)(void *arg), void *arg);
/*
 * Or, live, where reading every format and kallsyms up front would cost
 * more than the rest of the start: load them as the records need them.
 * event(ctx, tep, id) puts the format of event id into tep, once for each
 * id not in tep when its first record comes (0, or -errno when there is
 * none: its records print as unknown); syms(ctx, s, tep) gives s the
 * kallsyms (fmt_src_kallsyms(), fmt_src_tep_symbols(), or the loader),
 * once, before the first record of an event that prints a symbol (0 or
 * -errno).  Either may be NULL.
 */
typedef int (*fmt_load_event_fn)(void *ctx, struct tep_handle *tep, int id);
typedef int (*fmt_load_syms_fn)(void *ctx, struct fmt_src *s, struct tep_handle *tep);
void fmt_src_lazy(struct fmt_src *s, fmt_load_event_fn event, fmt_load_syms_fn syms, void *ctx);
/*
 * The kernel that wrote the trace: its release ("6.12.3-amd64": some of
 * its own output functions changed between versions), and vmemmap_base
 * without KASLR for its paging mode (0xffd4000000000000 with 5 levels; the
 * default is 4 levels').
 */
void fmt_src_kernel(struct fmt_src *s, const char *release);
void fmt_src_vmemmap(struct fmt_src *s, uint64_t base);
/* That base for the running kernel (5 levels when the CPU's flags say la57). */
uint64_t fmt_running_vmemmap(void);
void fmt_src_printk(struct fmt_src *s, const char *text);
struct btf;
void fmt_src_btf(struct fmt_src *s, const struct btf *btf);
/* Or fn(ctx) gives it (borrowed, or NULL) at its first use: most traces never ask. */
typedef const struct btf *(*fmt_load_btf_fn)(void *ctx);
void fmt_src_btf_lazy(struct fmt_src *s, fmt_load_btf_fn fn, void *ctx);
/*
 * The trace clock the timestamps count in: trace_clock's text ("[local]
 * global ...") or a clock's name.  The kernel prints nanosecond clocks as
 * seconds and microseconds, and counter, uptime (jiffies) and x86-tsc as
 * raw counts; ns says the file's timestamps were converted to ns
 * (trace-cmd's TSC2NSEC).  Cheap to call per record: the same pointer is
 * not looked at again.
 */
void fmt_src_clock(struct fmt_src *s, const char *clock, bool ns);
/* Does clock (as above) count nanoseconds? */
bool fmt_clock_in_ns(const char *clock);

/*
 * The traced machine's CPU count (the function_graph view's CPU column is
 * as wide as its highest number).
 */
void fmt_src_cpus(struct fmt_src *s, int ncpus);
/*
 * The file (machine) the source's events come from, for JSON's "file" key
 * when several files are merged; NULL for none (the default).
 */
void fmt_src_file(struct fmt_src *s, const char *name);
/*
 * The trace options the recording had that shape the text, as a file
 * stores them (tfile_info()->graph_opts: "funcgraph-cpu\nnofuncgraph-proc\n
 * sym-offset\n..."): funcgraph-*, and sym-offset, sym-addr and print-parent
 * (how the kernel prints code addresses: markers' callers, the function
 * tracer, stack traces, kprobes), and eprobes' dynamic_events lines ("e:grp/ep
 * sched.sched_switch ..."), whose text starts with the event they are on.
 * NULL: the kernel's defaults.
 */
void fmt_src_graph_opts(struct fmt_src *s, const char *text);
/*
 * Does this source hold function_graph records (met by fmt_src_learn or
 * fmt_event)?  From the first one on, with fmt_opts.graph, every event of
 * the source prints in the graph's layout.
 */
bool fmt_src_graph(struct fmt_src *s);
/*
 * The trace options the source's recording had whose effect tr cannot
 * make from a file, named with why ("sym-userobj (...)"), or NULL.
 */
const char *fmt_src_missing(struct fmt_src *s);
/* The recorded buffer overran (annotate then marks where each CPU's records start). */
void fmt_src_overran(struct fmt_src *s, bool overran);
/*
 * The kernel's trace file header for the source's options: "# tracer:",
 * the entries line (entries in the buffer, of written) and #P:, the column
 * legend; the latency header under latency-format.
 */
void fmt_header(struct fmt *f, struct fmt_src *s, uint64_t entries, uint64_t written);

/*
 * The function_graph view prints a call whose exit is the next record of
 * its CPU as one line, as the kernel does; the caller owns the per-CPU
 * streams, so it gives the look-ahead: peek returns the record after the
 * one being printed, in that record's stream (1, 0 at its end, -errno; the
 * record being printed may then be invalid), and skip drops the peeked
 * record when the printer used it.  Without them every call prints as
 * "func() {" ... "}".
 */
typedef int (*fmt_peek_fn)(void *ctx, struct tfile_event **next);
typedef void (*fmt_skip_fn)(void *ctx);
void fmt_lookahead(struct fmt *f, fmt_peek_fn peek, fmt_skip_fn skip, void *ctx);

/* A record's common_pid, read where the file's format puts it; -1 if too short. */
int fmt_src_pid(struct fmt_src *s, const struct tfile_event *ev);
/*
 * A user stack record's (ftrace:user_stack) tgid, -1 for other records;
 * and whether fmt_src_procmaps() gave a map of that process.
 */
int fmt_src_user_stack_tgid(struct fmt_src *s, const struct tfile_event *ev);
bool fmt_src_has_procmap(const struct fmt_src *s, int tgid);
/* The name fmt would print for pid: "<idle>" for 0, "<...>" if unknown. */
const char *fmt_src_comm(struct fmt_src *s, int pid);
/*
 * Add a libtraceevent filter ("sched_switch: prev_pid == 0", "sched.*",
 * "sched_wakeup"): only matching events print (or, with invert, only the
 * others).  0, or -EINVAL with the parser's message left by tr_fail().
 */
int fmt_src_filter(struct fmt_src *s, const char *expr);
void fmt_src_filter_invert(struct fmt_src *s, bool invert);
/*
 * Only events of these tasks: any of the pids, or a name (as the report
 * prints it) matching any of the comms globs.  Applies with the filters
 * (both must pass) and is not inverted by fmt_src_filter_invert.
 */
void fmt_src_tasks(struct fmt_src *s, const int *pids, size_t npids, const struct strv *comms);
/* Would fmt_event print this record (filters only)? */
bool fmt_src_match(struct fmt_src *s, const struct tfile_event *ev);

/*
 * Does any event this source has met (by fmt_src_learn or fmt_event) print
 * kernel symbols: a %ps-like conversion in its print fmt, or a plugin's
 * handler?  Then its file's kallsyms are needed.
 */
bool fmt_src_needs_symbols(struct fmt_src *s);

/* The event's id, system and name; NULL name when the file has no format for it. */
int fmt_src_event_id(struct fmt_src *s, const struct tfile_event *ev);
const char *fmt_src_event_name(struct fmt_src *s, int id, const char **system);

/*
 * Format one record.  prefix goes before the line ("trtest: " for an
 * instance's buffer; "" for the top level); it must stay as it is while f
 * lives (its length is kept, by address).  The lost-events marker is
 * printed first when ev->missed says so.  Filters apply: 0 if printed,
 * 1 if filtered out.
 */
int fmt_event(struct fmt *f, struct fmt_src *s, const char *prefix, const struct tfile_event *ev);
/* "CPU:N [LOST n EVENTS]" (n < 0: count unknown). */
void fmt_lost(struct fmt *f, const char *prefix, int cpu, int64_t n);

/* ---- merge: k sorted streams into one, by timestamp ---- */

/* Next record of a stream: 1 (ev filled), 0 at its end, or -errno. */
typedef int (*fmt_next_fn)(void *ctx, struct tfile_event *ev);

struct fmt_merge;

struct fmt_merge *fmt_merge_new(void);
/*
 * Add a stream and read its first record; equal timestamps come out in the
 * order streams were added.  0 or the stream's -errno.
 */
int fmt_merge_add(struct fmt_merge *m, fmt_next_fn next, void *ctx, void *tag);
/* The earliest record of all streams: 1 with *ev and *tag, 0 when all ended, -errno. */
int fmt_merge_next(struct fmt_merge *m, struct tfile_event **ev, void **tag);
/*
 * The record that follows, in its stream, the one fmt_merge_next handed out
 * last (which is then no longer valid): 1 with *ev, 0 if that stream ended,
 * -errno.  fmt_merge_next hands it out in its turn, unless fmt_merge_skip
 * drops it first.  For printers that look one record ahead on a CPU (the
 * function_graph printer's leaf calls).
 */
int fmt_merge_peek(struct fmt_merge *m, struct tfile_event **ev);
void fmt_merge_skip(struct fmt_merge *m);
void fmt_merge_free(struct fmt_merge *m);

/* ---- slab allocations per call site (tr report --mem) ---- */

struct fmt_mem;
/* For the kmem events of one file (tep): allocations and frees by call site. */
struct fmt_mem *fmt_mem_new(struct tep_handle *tep);
/* Does the file have the format of an allocation event at all? */
bool fmt_mem_has_events(const struct fmt_mem *m);
/* One record, in time order across CPUs (frees match earlier allocations). */
void fmt_mem_event(struct fmt_mem *m, const struct tfile_event *ev);
/*
 * One line per call site (function), most bytes allocated first: allocs,
 * bytes requested and allocated, waste, frees, and still allocated at the
 * end (count, bytes); then the totals and the frees of older memory.
 */
void fmt_mem_print(struct fmt_mem *m, FILE *out);
void fmt_mem_free(struct fmt_mem *m);

/* ---- the report pipeline (tr report) ---- */

struct fmt_report {
	struct strv inputs;		/* trace.dat files */
	const uint64_t *cpus;		/* CPUs to show (bitmap), or NULL for all */
	int max_cpus;
	struct strv filters;
	bool invert;
	bool plugins;
	bool list_events;		/* --events */
	bool stat;			/* --stat */
	bool mem;			/* --mem: fmt_mem's table, one input */
	bool profile;			/* --profile: the task profile (fmt-tprof.h), one input */
	bool by_comm;			/* --by-comm: its tasks merged by name */
	bool first, last;		/* --first-event, --last-event */
	bool header;			/* --header: the kernel's trace file header, not "cpus=N" */
	/* --buffer: only these buffers ("top" is the top level); empty = all */
	struct strv buffers;
	/* --pid, --comm: only these tasks */
	int *pids;
	size_t npids;
	struct strv comms;
	/* --ts-offset: ns added to each input's timestamps (ts_offsets[i] for inputs.v[i]) */
	int64_t *ts_offsets;
	struct fmt_opts fo;
};

/* Run the report to out: 0, or -errno with the message left by tr_fail(). */
int fmt_report_run(const struct fmt_report *r, FILE *out);

/* ---- do event formats parse? (tr check-events) ---- */

struct fmt_try_parse_opts {
	int long_size;		/* of the traced machine; 0 = ours */
	bool big_endian;
	bool plugins;		/* with libtraceevent's plugins loaded */
};

struct fmt_try_parse_result {
	size_t total;		/* formats checked */
	struct strv bad;	/* "sys:event: why" for each that does not parse fully */
	struct tep_plugin_list *plugins;
};

/*
 * Parse each format ("system\nformat text", as tfile_formats() keeps them)
 * into a fresh libtraceevent handle and collect those that fail: the
 * format itself, or only its print fmt.  0, or -errno with tr_fail().
 */
int fmt_try_parse_formats(const struct strv *formats, const struct fmt_try_parse_opts *o,
			  struct fmt_try_parse_result *res);
void fmt_try_parse_result_free(struct fmt_try_parse_result *res);

#endif
