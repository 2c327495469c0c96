/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's printer, inside (src/fmt-k*.c only): the compiled program,
 * the expression trees of its arguments and what evaluates them.
 *
 *   fmt-kernel.c    the program: the format string, compiling, running,
 *                   and the events the kernel prints with functions of
 *                   its own (syscalls, markers, stack traces, probes)
 *   fmt-kexpr.c     the print fmt's arguments: the trees of the trace file
 *                   layer's parser (tfile-expr.h) built into typed trees
 *                   and evaluated with C's types
 *   fmt-kvsprintf.c the kernel's vsnprintf: number(), string(), the %p
 *                   extensions, one conversion at a time
 */
#ifndef TR_FMT_KERNEL_LOCAL_H
#define TR_FMT_KERNEL_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fmt-kernel.h"

struct tep_format_field;

/* ---- types and values ---- */

struct ktype {
	uint8_t size;		/* 1, 2, 4 or 8 (pointers: the long size) */
	uint8_t sign : 1;
	uint8_t ptr : 1;	/* a pointer (or an array, decayed) */
	uint8_t chr : 1;	/* ... to char: a string */
	uint16_t el;		/* pointers: the size of what they point to (0: unknown) */
};

/*
 * A value.  Numbers and kernel addresses are in v, sign-extended to 64
 * bits when the type is signed.  Arrays and strings of the record (or of
 * a helper's text) are at p, n bytes long; v is then 0.
 */
struct kval {
	uint64_t v;
	const uint8_t *p;
	uint32_t n;
	struct ktype t;
};

enum nop {
	N_CONST, N_STR, N_FIELD, N_DYN, N_LOCAL, N_UNKNOWN, N_CAST, N_NEG, N_BNOT, N_LNOT,
	N_BIN, N_COND, N_INDEX, N_ADDR, N_CALL, N_SEQ,
};

enum bop {
	B_ADD, B_SUB, B_MUL, B_DIV, B_MOD, B_SHL, B_SHR, B_AND, B_OR, B_XOR, B_LAND, B_LOR,
	B_EQ, B_NE, B_LT, B_GT, B_LE, B_GE,
};

enum helper {
	H_FLAGS, H_FLAGS_U64, H_SYMBOLIC, H_SYMBOLIC_U64, H_HEX, H_HEX_STR, H_ARRAY,
	H_DYN_LEN, H_BITMASK, H_CPUMASK, H_JIFFIES_MSECS, H_MC_ERR_TYPE,
};

struct knode;

struct kentry {
	struct knode *val;
	const char *name;
};

struct knode {
	uint8_t op, sub;
	struct ktype t;
	uint64_t v;			/* N_CONST; N_LOCAL: the slot */
	const char *s;			/* N_STR text, N_UNKNOWN name */
	uint32_t len;			/* N_STR length */
	int off, size, elsize;		/* N_FIELD, N_DYN */
	bool rel;			/* N_DYN: __rel_loc */
	struct knode *a, *b, *c;
	int nargs;
	struct knode **args;		/* N_CALL; N_SEQ: declarations then the value */
	int nent;
	struct kentry *ent;		/* N_CALL flags and symbols */
	const char *delim;
	struct ktype ct;		/* N_BIN: the operands' common type (karith()) */
};

/* ---- the compiled program ---- */

enum seg_kind { S_LIT, S_CONV };

/*
 * kconv_quick()'s cases, with no flags, width or precision: a field's
 * %d/%i/%u (KQ_DEC), the same of a number cast to another number type
 * (KQ_CAST_DEC: sched_stat_runtime's (unsigned long long)REC->runtime), a
 * char array's %s (KQ_STR) and a __data_loc string's (KQ_DYN_STR).
 */
enum { KQ_NONE, KQ_DEC, KQ_CAST_DEC, KQ_STR, KQ_DYN_STR };

struct conv {
	char conv;		/* d i u x X o c s p */
	uint8_t quick;		/* KQ_*: kconv_quick() prints it */
	uint16_t memo;		/* 1 + its index in prog->memos: see struct kmemo; 0: none */
	char qual;		/* 0 h H(hh) l L(ll) z t */
	uint8_t flags;
	int width, prec;	/* -1: none */
	char ext[8];		/* after %p: "S", "ISpc", ... */
	struct knode *warg, *parg, *arg;
};

struct seg {
	enum seg_kind kind;
	uint32_t off, len;	/* S_LIT: in prog->lit */
	struct conv c;
};

enum special {
	SP_NONE, SP_SYS_ENTER, SP_SYS_EXIT, SP_PRINT, SP_BPUTS, SP_RAW_DATA, SP_FUNCTION,
	SP_STACK, SP_USER_STACK, SP_KPROBE, SP_KRETPROBE,
	SP_HWLAT, SP_OSNOISE, SP_TIMERLAT,	/* the latency tracers' samples */
	SP_BRANCH, SP_MMIO_RW, SP_MMIO_MAP,	/* the branch tracer's, mmiotrace's */
	SP_FTRACE_OTHER,	/* bprint, function_graph, ...: libtraceevent's */
};

/*
 * A conversion whose text is a function of one numeric field's bytes alone
 * (sched_switch's prev_state through its __print_flags, a
 * __print_symbolic of an irq vector, a %03d of a cpu): the texts of the
 * last values it printed, by value, so that a value seen before costs a
 * copy instead of the tree's evaluation.  The first text of each value is
 * the generic printer's own, so the output cannot differ.  A conversion
 * whose values rarely repeat turns its memo off (the misses cost an
 * evaluation and a store).
 */
#define KMEMO_SLOTS 16
#define KMEMO_TEXT 46
struct kmemo {
	int off, size;			/* the field */
	uint32_t lookups, misses;	/* of the current window of KMEMO_WINDOW lookups */
	bool disabled;		/* values do not repeat enough */
	const struct kenv *env;		/* the texts are this environment's */
	struct {
		uint64_t key;		/* the field's bytes */
		uint8_t len;		/* 0: empty slot; else the text's length + 1 */
		char text[KMEMO_TEXT];
	} slot[KMEMO_SLOTS];
};

/*
 * run_fast()'s steps: each the literal before a conversion and the
 * conversion, with its field's place copied out of the tree (half the
 * steps of the segments, and no pointer to chase for a field).
 */
enum { KF_END = 16, KF_MEMO };		/* kinds besides the KQ_* */
struct kfop {
	uint32_t lit_off, lit_len;	/* in prog->lit */
	uint8_t kind;			/* KQ_*, KF_MEMO, or KF_END: the literal alone */
	bool rd_sign;			/* the field read as signed */
	bool dec_sign;			/* %d or %i */
	char qual;
	int off, size;			/* the field (KQ_DEC: the number; KQ_CAST_DEC: under the cast) */
	const struct conv *cv;
};

struct kprog {
	enum special sp;
	int nseg;
	struct seg *segs;
	char *lit;
	char *text;		/* the print fmt line, parsed in place (names point here) */
	int nlocals;
	/* specials */
	const char *sysname;	/* "sys_openat" */
	int nfields;
	struct tep_format_field **fields;
	/*
	 * SP_SYS_ENTER: each field's type as the format file spells it (the
	 * syscall metadata's own string, which verbose prints), by field index.
	 */
	const char **types;
	/*
	 * SP_SYS_ENTER: fields 1..sys_nargs are the arguments; sys_uval[i]
	 * is the field of argument field i's user memory (0: none, 6.19+),
	 * sys_uarray[i] whether it is a buffer (else a string); sys_openat:
	 * openat's printer, with the flag values of open_flags (fmt-ksys.c).
	 */
	int sys_nargs;
	int *sys_uval;
	bool *sys_uarray;
	bool sys_openat;
	const uint64_t *open_flags;
	int ip_off, ip2_off;
	/* SP_PRINT, SP_BPUTS: the ip and the text fields, found once (not by name a record) */
	struct tep_format_field *f_ip, *f_text;
	struct fmt_line scratch;	/* helpers' text, kept from record to record */
	struct kmemo *memos;		/* as scratch: the program's, one printing thread at a time */
	int nmemos;
	/*
	 * Every conversion quick or with a memo: the line is written in place
	 * (run_fast()), after one check of the room it needs, at most
	 * fast_max bytes and the record's size for each of fast_nvar strings
	 * as long as the record.
	 */
	bool fast;
	uint32_t fast_max;
	int fast_nvar;
	int nfops;
	struct kfop *fops;
	/* memory of the tree: all nodes and tables, freed at once */
	void **mem;
	size_t nmem, capmem;
};

struct ectx {
	const struct kenv *env;
	const struct krec *r;
	uint64_t locals[64];
	struct fmt_line *scratch;	/* helpers' text */
};

/* ---- the compiler (fmt-kexpr.c): the parsed print fmt (tfile-expr.h) into knodes ---- */

struct kbuild {
	struct kprog *p;
	const struct kenv *env;
	struct tep_event *e;
	bool err;
	/* statement-expression locals in scope */
	int nloc;
	struct {
		const char *name;
		size_t n;
		struct ktype t;
		int slot;
	} loc[16];
};

struct tfile_expr;
struct tfile_expr_opts;
/* The parser's options for the kernel printer's reading (its type names), b the context. */
void kbuild_opts(struct kbuild *b, struct tfile_expr_opts *o);
/* One argument of the print fmt: a typed, folded tree (b->err on failure). */
struct knode *kbuild_arg(struct kbuild *b, const struct tfile_expr *e);
/* String literals as written (n bytes at s), decoded and joined; kept with the program. */
const char *kbuild_str(struct kbuild *b, const char *s, size_t n, size_t *len);

/* ---- evaluation (fmt-kexpr.c) ---- */

/*
 * *out = (struct kval){ ... } zeroes the whole of it first (with rep stos
 * in GCC's code: a tenth of keval's time); these set each member once.
 */
static inline void kval_num(struct kval *out, uint64_t v, struct ktype t)
{
	out->v = v;
	out->p = NULL;
	out->n = 0;
	out->t = t;
}

static inline void kval_mem(struct kval *out, const uint8_t *p, uint32_t n, struct ktype t)
{
	out->v = 0;
	out->p = p;
	out->n = n;
	out->t = t;
}

/* A size-byte integer of the record in its byte order (inline: several a record). */
static inline uint64_t krd(const struct ectx *c, const uint8_t *p, int size, bool sign)
{
	switch (size) {
	case 1:
		return sign ? (uint64_t)(int64_t)(int8_t)*p : *p;
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		if (c->env->swap)
			x = __builtin_bswap16(x);
		return sign ? (uint64_t)(int64_t)(int16_t)x : x;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		if (c->env->swap)
			x = __builtin_bswap32(x);
		return sign ? (uint64_t)(int64_t)(int32_t)x : x;
	}
	default: {
		uint64_t x;

		memcpy(&x, p, 8);
		return c->env->swap ? __builtin_bswap64(x) : x;
	}
	}
}

/* keval() of an N_FIELD, the most common argument, without keval's frame. */
static inline bool keval_field(const struct ectx *c, const struct knode *n, struct kval *out)
{
	if ((uint64_t)n->off + n->size > c->r->size)
		return false;
	if (n->t.ptr && n->elsize) {
		/* A char[] of size 0 (ftrace's) runs to the end of the record. */
		uint32_t len = n->size ? (uint32_t)n->size : c->r->size - n->off;

		kval_mem(out, c->r->data + n->off, len, n->t);
		return true;
	}
	kval_num(out, krd(c, c->r->data + n->off, n->size, n->t.sign && !n->t.ptr), n->t);
	return true;
}
uint64_t kconv_to(uint64_t v, struct ktype t);
bool keval(struct ectx *c, const struct knode *n, struct kval *out);
bool keval_num(struct ectx *c, const struct knode *n, uint64_t *v);
bool kdyn_span(struct ectx *c, const struct knode *n, const uint8_t **p, uint32_t *len);
/* Does the value point into the scratch line (a helper's text)? */
bool kin_scratch(const struct ectx *c, const struct kval *k);

/* ---- the kernel's vsnprintf (fmt-kvsprintf.c) ---- */

enum { F_LEFT = 1, F_PLUS = 2, F_SPACE = 4, F_SPECIAL = 8, F_ZEROPAD = 16, F_SMALL = 32,
       F_SIGN = 64 };

/* Helpers write their text into the scratch line; the value points there. */
static inline void kput(struct fmt_line *o, const char *s, size_t n)
{
	fmt_line_put(o, s, n);
}
/* An integer conversion's value as its length qualifier cuts it. */
static inline uint64_t kqual(uint64_t v, char qual, bool sign, int long_size)
{
	switch (qual) {
	case 'L':
		return v;
	case 'l': case 'z': case 't':
		if (long_size == 4)
			return sign ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
		return v;
	case 'H':
		return sign ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
	case 'h':
		return sign ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
	default:
		return sign ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
	}
}

void knumber(struct fmt_line *o, uint64_t num, int base, int flags, int width, int prec);
void kstring_fmt(struct fmt_line *o, const char *s, size_t max, int flags, int width, int prec);
void ksymbol(struct fmt_line *o, const struct kenv *env, uint64_t v, const char *ext, int flags,
	     int width, int prec);
void kput_bitmap(struct fmt_line *o, const uint8_t *p, uint32_t bytes, const struct ectx *c);
/* One conversion of the format, its argument evaluated: false if it cannot be printed. */
bool kconv_run(struct ectx *c, const struct conv *cv, struct fmt_line *o);
/*
 * kconv_run() of a conversion whose quick is set (a field's %d, %u, %s:
 * most of the scheduler's), without its frame: the same text.
 */
bool kconv_quick(struct ectx *c, const struct conv *cv, struct fmt_line *o);

/* ---- the program (fmt-kernel.c) ---- */

/* Memory that lives as long as the program (its tree's nodes). */
void *kprog_mem(struct kprog *p, size_t n);

/* ---- system call events (fmt-ksys.c) ---- */

/* p's fields are the event's; text its format file (NULL: no types, no buffers). */
void ksys_compile(struct kprog *p, struct tep_event *e, const char *text);
int ksys_enter(const struct kprog *p, struct ectx *c, struct fmt_line *o);
/* Does a tree need kallsyms (vmemmap_base's guess does)? */
bool knode_needs_symbols(const struct knode *n);

#endif
