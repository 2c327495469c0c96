/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's printer (private to src/fmt*.c): an event's text exactly as
 * the kernel's `trace` file shows it.
 *
 * The kernel prints an event by running its TP_printk() -- C code -- and its
 * own vsnprintf; the format file shows that code as text.  This parses the
 * "print fmt:" line itself (libtraceevent's parse loses the casts, the
 * statement expressions and the functions it does not know, and refuses
 * whole events for them), evaluates the arguments with C's types, and
 * formats them with the kernel's rules: %p as the kernel prints it with
 * hash-ptr off (a hashed pointer cannot be computed outside the kernel), the
 * %p extensions (%pS with /size, %pI4/6, %pISpc, %pU, %pM, %*pb...),
 * "%#x" of 0 as 0x0, __print_flags/__print_symbolic with the kernel's
 * numeric fallbacks, __print_hex/_array, bitmasks and cpumasks.  Events the
 * kernel prints with a function of its own (syscalls, trace_marker and raw
 * markers, stack traces, k/uprobes) are recognised and printed likewise.
 *
 *   p = kprog_compile(env, event, print_fmt_text);  // NULL: not ours
 *   r = kprog_run(p, env, &rec, out);               // -1: use another printer
 *   kprog_free(p);
 */
#ifndef TR_FMT_KERNEL_H
#define TR_FMT_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "fmt-local.h"

struct tep_handle;
struct tep_event;

/* What the printer needs to know beyond the record: the fmt_src answers. */
struct kenv {
	struct tep_handle *tep;
	int long_size;		/* 4 or 8 */
	bool swap;		/* the data's byte order is not ours */
	unsigned hz;		/* for jiffies_to_msecs() and jiffies */
	uint64_t vmemmap;	/* vmemmap_base, 0 when unknown */
	unsigned page_struct;	/* sizeof(struct page) */
	unsigned kver;		/* the kernel's version, major << 8 | minor (0: unknown) */
	/*
	 * The trace options that change how the kernel prints an address
	 * (seq_print_ip_sym()): sym-offset, sym-addr, and print-parent for the
	 * function tracer's caller.  The defaults are all false.
	 */
	bool sym_offset, sym_addr, no_parent;
	/* verbose: the blk tracer's actions by their long names ("queue" for "Q"). */
	bool verbose;
	/* The recording's tracer was mmiotrace: markers print as its "MARK" lines. */
	bool mmiotrace;
	/*
	 * sym-userobj: a user stack's addresses by the object mapped there,
	 * from procmap (the process's stored memory map, or NULL).
	 */
	bool userobj;
	const struct tfile_procmap *(*procmap)(void *ctx, int tgid);
	/*
	 * tr's --user-syms, past the kernel's text: the function at ip in the
	 * object at path whose lowest mapping starts at low, and *off into it;
	 * NULL when none.  NULL when not asked.
	 */
	const char *(*user_sym)(void *ctx, const char *path, uint64_t low, uint64_t ip,
				uint64_t *off);
	/*
	 * A kernel symbol: its name, start, size (to the next symbol) and module
	 * (NULL for the kernel's own); false when none covers addr.
	 */
	bool (*sym)(void *ctx, uint64_t addr, const char **name, uint64_t *start,
		    uint64_t *size, const char **mod);
	/* A constant the format names (an enum value): false if unknown. */
	bool (*constant)(void *ctx, const char *name, uint64_t *v);
	/* A kernel string by its address (printk_formats), or NULL. */
	const char *(*string)(void *ctx, uint64_t addr);
	/* sizeof(struct NAME), or 0 if unknown. */
	unsigned (*struct_size)(void *ctx, const char *name);
	/*
	 * func-args: "name=value, ..." of func's arguments (args[nargs], the
	 * registers the kernel saved) into buf; false where nothing names them
	 * (no BTF, no such function).  May be NULL.
	 */
	bool (*func_args)(void *ctx, uint64_t func, const uint64_t *args, int nargs, char *buf,
			  size_t n);
	/* The task's name as saved_cmdlines had it ("<...>" when it had none); may be NULL. */
	const char *(*comm)(void *ctx, int pid);
	void *ctx;
};

/* One record for the printer. */
struct krec {
	const uint8_t *data;
	uint32_t size;
	uint64_t ts;		/* in ns, when the clock counts ns (else 0) */
	uint64_t raw_ts;	/* as the buffer holds it, whatever the clock */
};

struct kprog;

/*
 * Compile the event's print fmt (text: the format file, or only its
 * "print fmt:" line), or its kernel output function's equivalent.  NULL
 * when there is nothing to print it with.
 */
struct kprog *kprog_compile(const struct kenv *env, struct tep_event *e, const char *text);

/*
 * What kprog_run leaves in out is the kernel's output for the record but
 * for the newline that ends its line: a format that ends with "\n" itself
 * leaves one (the kernel then shows an empty line).
 */
enum {
	KPROG_FAIL = -1,	/* this record needs another printer */
	KPROG_TEXT = 0,		/* out has the text after the "name: " column */
	KPROG_LINE = 1,		/* out has all that follows the timestamp */
};
int kprog_run(const struct kprog *p, const struct kenv *env, const struct krec *r,
	      struct fmt_line *out);
void kprog_free(struct kprog *p);
/* Does it print kernel symbols (or need kallsyms to know the memory layout)? */
bool kprog_needs_symbols(const struct kprog *p);
/*
 * Is e printed without its print fmt (by an output function of the
 * kernel's own, as system calls are)?  Then kprog_compile() serves where
 * the print fmt is refused, and reads nothing of it.
 */
bool kprog_own_printer(const struct tep_event *e);

/*
 * A record of the blk tracer (an entry type with no format: fmt-kenv.c tells it
 * by its id), as blktrace.c prints it: KPROG_LINE, or KPROG_FAIL for a
 * record too short for what it says it holds.
 */
int kblk_run(const struct kenv *env, const struct krec *r, struct fmt_line *out);

/* For tests: the kernel's vsnprintf on one integer ("%#x", 0 -> "0x0"). */
int kfmt_number(char *buf, size_t len, const char *spec, uint64_t v);

#endif
