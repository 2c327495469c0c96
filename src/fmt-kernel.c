// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's printer: see fmt-kernel.h.
 *
 * A print fmt is compiled once into segments -- literal text and
 * conversions -- each conversion holding the expression tree of its
 * argument.  Trees are evaluated per record with C's rules (integer
 * promotion, the usual arithmetic conversions, casts, pointer arithmetic),
 * and each conversion is formatted as the kernel's vsnprintf does (number()
 * and its flags, string(), pointer() and its extensions).  Constant
 * subtrees (the flag tables' masks, sched_switch's state arithmetic) are
 * folded when compiling, so the per-record work is reading fields and
 * writing digits, with no allocation.
 *
 * What cannot be known outside the running kernel makes a record fail
 * (KPROG_FAIL), so the caller prints it another way: an identifier no one
 * could resolve, a kernel string that printk_formats does not hold, a
 * helper or a %p extension not implemented here.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-kernel.h"

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
	struct ktype ct;		/* N_BIN: the operands' common type (arith()) */
};

/* ---- the compiled program ---- */

enum seg_kind { S_LIT, S_CONV };

struct conv {
	char conv;		/* d i u x X o c s p */
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
	SP_FTRACE_OTHER,	/* bprint, function_graph, ...: libtraceevent's */
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
	int ip_off, ip2_off;
	struct fmt_line scratch;	/* helpers' text, kept from record to record */
	/* memory of the tree: all nodes and tables, freed at once */
	void **mem;
	size_t nmem, capmem;
};

static void *pmem(struct kprog *p, size_t n)
{
	void *m = xcalloc(1, n ? n : 1);

	if (p->nmem == p->capmem) {
		p->capmem = p->capmem ? p->capmem * 2 : 64;
		p->mem = xrealloc(p->mem, p->capmem * sizeof(*p->mem));
	}
	p->mem[p->nmem++] = m;
	return m;
}

void kprog_free(struct kprog *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nmem; i++)
		free(p->mem[i]);
	free(p->mem);
	free(p->segs);
	free(p->lit);
	free(p->text);
	free(p->fields);
	free(p->scratch.p);
	free(p);
}

/* ---- the lexer ---- */

enum tk { T_END, T_NUM, T_STR, T_ID, T_P };

struct tok {
	enum tk k;
	const char *s;		/* T_ID, T_P: the text; T_STR: the decoded string */
	size_t n;
	uint64_t v;		/* T_NUM (and char constants) */
	bool u, l;		/* T_NUM: unsigned, long suffix */
};

struct lex {
	struct kprog *p;
	const struct kenv *env;
	struct tep_event *e;
	const char *s;
	struct tok t;
	bool err;
	/* statement-expression locals */
	int nloc;
	struct {
		const char *name;
		size_t n;
		struct ktype t;
		int slot;
	} loc[16];
};

static int unescape(const char *s, const char *end, char *out, const char **stop)
{
	int n = 0;

	while (s < end && *s != '"') {
		char c = *s++;

		if (c == '\\' && s < end) {
			c = *s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'v': c = '\v'; break;
			case 'e': c = 27; break;
			case 'x': {
				int v = 0;

				while (s < end && isxdigit((unsigned char)*s))
					v = v * 16 + (isdigit((unsigned char)*s) ? *s - '0'
								  : tolower((unsigned char)*s) - 'a' + 10),
					s++;
				c = v;
				break;
			}
			default:
				if (c >= '0' && c <= '7') {
					int v = c - '0';

					for (int k = 0; k < 2 && s < end && *s >= '0' && *s <= '7'; k++)
						v = v * 8 + (*s++ - '0');
					c = v;
				}
			}
		}
		if (out)
			out[n] = c;
		n++;
	}
	*stop = s;
	return n;
}

static void next(struct lex *x)
{
	const char *s = x->s;
	static const char *const puncts[] = { "->", "<<", ">>", "<=", ">=", "==", "!=", "&&",
					      "||", "++", "--", NULL };

	while (*s && isspace((unsigned char)*s))
		s++;
	x->t = (struct tok){ .s = s };
	if (!*s) {
		x->t.k = T_END;
	} else if (isdigit((unsigned char)*s)) {
		char *end;

		errno = 0;
		x->t.k = T_NUM;
		x->t.v = strtoull(s, &end, 0);
		s = end;
		while (*s == 'u' || *s == 'U' || *s == 'l' || *s == 'L') {
			if (*s == 'u' || *s == 'U')
				x->t.u = true;
			else
				x->t.l = true;
			s++;
		}
		if (isalnum((unsigned char)*s) || *s == '.')
			x->err = true;
	} else if (isalpha((unsigned char)*s) || *s == '_') {
		while (isalnum((unsigned char)*s) || *s == '_')
			s++;
		x->t.k = T_ID;
		x->t.n = s - x->t.s;
	} else if (*s == '"') {
		/* Adjacent literals are one: "#" "DE". */
		char *buf = NULL;
		size_t len = 0;

		while (*s == '"') {
			const char *stop;
			int n = unescape(s + 1, s + strlen(s), NULL, &stop);

			buf = xrealloc(buf, len + n + 1);
			unescape(s + 1, stop, buf + len, &stop);
			len += n;
			buf[len] = '\0';
			if (*stop != '"') {
				x->err = true;
				break;
			}
			s = stop + 1;
			while (*s && isspace((unsigned char)*s))
				s++;
		}
		x->t.k = T_STR;
		x->t.s = buf ? buf : xstrdup("");
		x->t.n = len;
		/* Kept with the program: nodes point at it. */
		{
			struct kprog *p = x->p;

			if (p->nmem == p->capmem) {
				p->capmem = p->capmem ? p->capmem * 2 : 64;
				p->mem = xrealloc(p->mem, p->capmem * sizeof(*p->mem));
			}
			p->mem[p->nmem++] = (void *)x->t.s;
		}
	} else if (*s == '\'') {
		const char *stop;
		char c[8];
		int n = unescape(s + 1, s + 1 + (s[1] == '\\' ? 2 : 1) + (s[1] == '\\' && s[2] == 'x' ? 2 : 0),
				 c, &stop);

		x->t.k = T_NUM;
		x->t.v = n ? (uint64_t)(int64_t)(signed char)c[0] : 0;
		s = stop;
		if (*s != '\'')
			x->err = true;
		else
			s++;
	} else {
		x->t.k = T_P;
		x->t.n = 1;
		for (int i = 0; puncts[i]; i++)
			if (!strncmp(s, puncts[i], 2)) {
				x->t.n = 2;
				break;
			}
		s += x->t.n;
	}
	x->s = s;
}

static bool is_p(const struct lex *x, const char *p)
{
	return x->t.k == T_P && x->t.n == strlen(p) && !strncmp(x->t.s, p, x->t.n);
}

static bool is_id(const struct lex *x, const char *id)
{
	return x->t.k == T_ID && x->t.n == strlen(id) && !strncmp(x->t.s, id, x->t.n);
}

static bool expect(struct lex *x, const char *p)
{
	if (!is_p(x, p)) {
		x->err = true;
		return false;
	}
	next(x);
	return true;
}

/* ---- types by name ---- */

static const struct {
	const char *name;
	uint8_t size;	/* 0: long */
	bool sign;
} ctypes[] = {
	{ "char", 1, true }, { "short", 2, true }, { "int", 4, true }, { "long", 0, true },
	{ "bool", 1, false }, { "_Bool", 1, false },
	{ "u8", 1, false }, { "u16", 2, false }, { "u32", 4, false }, { "u64", 8, false },
	{ "s8", 1, true }, { "s16", 2, true }, { "s32", 4, true }, { "s64", 8, true },
	{ "__u8", 1, false }, { "__u16", 2, false }, { "__u32", 4, false }, { "__u64", 8, false },
	{ "__s8", 1, true }, { "__s16", 2, true }, { "__s32", 4, true }, { "__s64", 8, true },
	{ "uint8_t", 1, false }, { "uint16_t", 2, false }, { "uint32_t", 4, false },
	{ "uint64_t", 8, false }, { "int8_t", 1, true }, { "int16_t", 2, true },
	{ "int32_t", 4, true }, { "int64_t", 8, true },
	{ "__le16", 2, false }, { "__le32", 4, false }, { "__le64", 8, false },
	{ "__be16", 2, false }, { "__be32", 4, false }, { "__be64", 8, false },
	{ "size_t", 0, false }, { "ssize_t", 0, true }, { "ptrdiff_t", 0, true },
	{ "uintptr_t", 0, false }, { "pid_t", 4, true }, { "uid_t", 4, false },
	{ "gid_t", 4, false }, { "loff_t", 8, true }, { "gfp_t", 4, false },
	{ "uint", 4, false }, { "ulong", 0, false }, { "dev_t", 4, false },
	{ "sector_t", 8, false }, { "blk_opf_t", 4, false }, { "fmode_t", 4, false },
	{ "umode_t", 2, false }, { "ino_t", 0, false }, { "time64_t", 8, true },
	{ "ktime_t", 8, true }, { "phys_addr_t", 8, false }, { "dma_addr_t", 8, false },
	{ "resource_size_t", 8, false }, { "__kernel_rwf_t", 4, true }, { "xfs_ino_t", 8, false },
	{ "netdev_features_t", 8, false }, { "vm_flags_t", 0, false }, { "pgoff_t", 0, false },
	{ "gfn_t", 8, false }, { "gpa_t", 8, false }, { "gva_t", 0, false },
	{ "clockid_t", 4, true }, { "irq_hw_number_t", 0, false }, { "slab_flags_t", 4, false },
	{ "__kernel_size_t", 0, false }, { "atomic_t", 4, true },
};

static int type_index(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(ctypes) / sizeof(ctypes[0]); i++)
		if (strlen(ctypes[i].name) == n && !strncmp(ctypes[i].name, s, n))
			return i;
	return -1;
}

static bool is_qualifier(const struct lex *x)
{
	return is_id(x, "const") || is_id(x, "volatile") || is_id(x, "__user") ||
	       is_id(x, "__iomem") || is_id(x, "__rcu") || is_id(x, "__percpu") ||
	       is_id(x, "__force") || is_id(x, "__attribute__");
}

/* Does a type name start here?  (Known words only: "(x)" stays an expression.) */
static bool type_starts(const struct lex *x)
{
	if (x->t.k != T_ID)
		return false;
	return is_qualifier(x) || is_id(x, "unsigned") || is_id(x, "signed") || is_id(x, "struct") ||
	       is_id(x, "union") || is_id(x, "enum") || is_id(x, "void") ||
	       type_index(x->t.s, x->t.n) >= 0 ||
	       (x->t.n > 2 && !strncmp(x->t.s + x->t.n - 2, "_t", 2));
}

static struct ktype long_type(const struct lex *x, bool sign)
{
	return (struct ktype){ .size = x->env->long_size, .sign = sign };
}

/* A type name, up to (not including) the ')' of a cast or sizeof. */
static struct ktype parse_type(struct lex *x, bool *ok)
{
	struct ktype t = { .size = 4, .sign = true };
	int longs = 0;
	bool un = false, any = false, chr = false, vd = false;
	char sname[64] = "";

	*ok = true;
	while (x->t.k == T_ID) {
		if (is_qualifier(x)) {
			next(x);
			continue;
		}
		if (is_id(x, "unsigned")) {
			un = true;
		} else if (is_id(x, "signed") || is_id(x, "int")) {
			;
		} else if (is_id(x, "long")) {
			longs++;
		} else if (is_id(x, "short")) {
			t.size = 2;
		} else if (is_id(x, "char")) {
			t.size = 1, chr = true;
		} else if (is_id(x, "void")) {
			vd = true;
		} else if (!any && (is_id(x, "struct") || is_id(x, "union") || is_id(x, "enum"))) {
			bool en = is_id(x, "enum");

			next(x);
			if (x->t.k != T_ID) {
				*ok = false;
				return t;
			}
			if (en)
				t = (struct ktype){ .size = 4, .sign = false };
			else
				snprintf(sname, sizeof(sname), "%.*s", (int)x->t.n, x->t.s);
		} else if (!any) {
			int i = type_index(x->t.s, x->t.n);

			/* An unknown typedef is taken for an int (or a pointer, with a '*'). */
			if (i >= 0)
				t = (struct ktype){ .size = ctypes[i].size ? ctypes[i].size
									    : x->env->long_size,
						    .sign = ctypes[i].sign };
		} else {
			break;
		}
		any = true;
		next(x);
	}
	if (!any) {
		*ok = false;
		return t;
	}
	if (longs)
		t.size = longs > 1 ? 8 : x->env->long_size;
	if (un)
		t.sign = false;
	while (is_p(x, "*")) {
		unsigned el = t.ptr ? (unsigned)x->env->long_size : vd ? 1 : t.size;

		if (!t.ptr && sname[0]) {
			el = x->env->struct_size ? x->env->struct_size(x->env->ctx, sname) : 0;
			if (!el && !strcmp(sname, "page"))
				el = x->env->page_struct;
		}
		t = (struct ktype){ .size = x->env->long_size, .ptr = 1, .chr = !t.ptr && chr,
				    .el = el };
		next(x);
		while (is_qualifier(x))
			next(x);
	}
	return t;
}

/* ---- nodes ---- */

static struct knode *node(struct lex *x, enum nop op)
{
	struct knode *n = pmem(x->p, sizeof(*n));

	n->op = op;
	n->t = (struct ktype){ .size = 4, .sign = true };
	return n;
}

static struct knode *konst(struct lex *x, uint64_t v, struct ktype t)
{
	struct knode *n = node(x, N_CONST);

	n->v = v;
	n->t = t;
	return n;
}

/* A value converted to type t: truncated, and sign-extended if t is signed. */
static uint64_t conv_to(uint64_t v, struct ktype t)
{
	if (t.ptr || t.size >= 8)
		return v;
	if (t.size == 4)
		return t.sign ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
	if (t.size == 2)
		return t.sign ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
	if (t.size == 1 && t.chr == 0 && t.sign == 0)
		return (uint8_t)v;
	return t.sign ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
}

static struct ktype promote(struct ktype t)
{
	if (t.ptr)
		return t;
	if (t.size < 4)
		return (struct ktype){ .size = 4, .sign = true };
	return (struct ktype){ .size = t.size, .sign = t.sign };
}

static struct ktype arith(struct ktype a, struct ktype b)
{
	a = promote(a);
	b = promote(b);
	if (a.size != b.size)
		return a.size > b.size ? a : b;
	return (struct ktype){ .size = a.size, .sign = a.sign && b.sign };
}

static struct knode *parse_expr(struct lex *x);
static struct knode *parse_assign(struct lex *x);
static struct knode *parse_unary(struct lex *x);

static struct tep_format_field *find_field(struct lex *x, const char *name, size_t n)
{
	char buf[128];

	if (n >= sizeof(buf))
		return NULL;
	memcpy(buf, name, n);
	buf[n] = '\0';
	return tep_find_any_field(x->e, buf);
}

static bool field_is_char(const struct tep_format_field *f)
{
	const char *t = f->type;

	if (!strncmp(t, "__data_loc ", 11))
		t += 11;
	else if (!strncmp(t, "__rel_loc ", 10))
		t += 10;
	while (!strncmp(t, "const ", 6) || !strncmp(t, "volatile ", 9))
		t += *t == 'c' ? 6 : 9;
	return !strncmp(t, "char", 4) && (t[4] == '[' || t[4] == ' ' || t[4] == '\0');
}

static struct knode *field_node(struct lex *x, struct tep_format_field *f)
{
	struct knode *n = node(x, N_FIELD);

	n->off = f->offset;
	n->size = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		n->op = N_DYN;
		n->rel = f->flags & TEP_FIELD_IS_RELATIVE;
		n->elsize = f->elementsize > 0 ? f->elementsize : 1;
		n->t = (struct ktype){ .size = x->env->long_size, .ptr = 1,
				       .chr = field_is_char(f), .el = n->elsize };
		n->t.sign = !!(f->flags & TEP_FIELD_IS_SIGNED);
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		n->elsize = f->elementsize > 0 ? f->elementsize : 1;
		n->t = (struct ktype){ .size = x->env->long_size, .ptr = 1,
				       .chr = field_is_char(f), .el = n->elsize };
		n->t.sign = !!(f->flags & TEP_FIELD_IS_SIGNED);
	} else if (f->flags & TEP_FIELD_IS_POINTER || strchr(f->type, '*')) {
		n->t = (struct ktype){ .size = f->size, .ptr = 1, .chr = field_is_char(f),
				       .el = field_is_char(f) ? 1 : 0 };
	} else {
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
			x->err = true;
			return n;
		}
		n->t = (struct ktype){ .size = f->size, .sign = !!(f->flags & TEP_FIELD_IS_SIGNED) };
	}
	return n;
}

/* __get_str(f), __get_dynamic_array(f), ...: the field named in parentheses. */
static struct tep_format_field *paren_field(struct lex *x)
{
	struct tep_format_field *f;

	if (!expect(x, "(") || x->t.k != T_ID) {
		x->err = true;
		return NULL;
	}
	f = find_field(x, x->t.s, x->t.n);
	next(x);
	if (!f || !expect(x, ")")) {
		x->err = true;
		return NULL;
	}
	return f;
}

/* { VAL, "NAME" }, ... ) of __print_flags and __print_symbolic. */
static void parse_table(struct lex *x, struct knode *n)
{
	int cap = 0;

	while (is_p(x, ",")) {
		next(x);
		if (!is_p(x, "{"))
			break;
		next(x);
		if (is_p(x, "}")) {		/* "{ }": an empty table */
			next(x);
			continue;
		}
		if (n->nent == cap) {
			cap = cap ? cap * 2 : 16;
			{
				struct kentry *e = pmem(x->p, cap * sizeof(*e));

				if (n->nent)
					memcpy(e, n->ent, n->nent * sizeof(*e));
				n->ent = e;
			}
		}
		n->ent[n->nent].val = parse_assign(x);
		if (!expect(x, ","))
			return;
		if (x->t.k == T_STR) {
			n->ent[n->nent].name = x->t.s;
			next(x);
		} else {
			/* NULL or ((void *)0): the end of the table. */
			struct knode *end = parse_assign(x);

			if (end->op != N_CONST || end->v) {
				x->err = true;
				return;
			}
			n->ent[n->nent].name = NULL;
		}
		n->nent++;
		if (!expect(x, "}"))
			return;
	}
	expect(x, ")");
}

static struct knode *call(struct lex *x, enum helper h, int nargs)
{
	struct knode *n = node(x, N_CALL);

	n->sub = h;
	n->nargs = nargs;
	n->args = pmem(x->p, (nargs + 1) * sizeof(*n->args));
	return n;
}

static struct knode *parse_args_into(struct lex *x, struct knode *n)
{
	if (!expect(x, "("))
		return n;
	for (int i = 0; i < n->nargs; i++) {
		n->args[i] = parse_assign(x);
		if (i + 1 < n->nargs && !expect(x, ","))
			return n;
	}
	expect(x, ")");
	return n;
}

static struct knode *parse_call(struct lex *x, const char *name, size_t len)
{
	struct tep_format_field *f;
	struct knode *n;

#define IS(s) (len == strlen(s) && !strncmp(name, s, len))
	if (IS("__print_flags") || IS("__print_flags_u64")) {
		n = call(x, IS("__print_flags") ? H_FLAGS : H_FLAGS_U64, 1);
		if (!expect(x, "("))
			return n;
		n->args[0] = parse_assign(x);
		if (!expect(x, ","))
			return n;
		if (x->t.k == T_STR) {
			n->delim = x->t.s;
			next(x);
		} else {
			n->delim = NULL;
			parse_assign(x);
		}
		parse_table(x, n);
		return n;
	}
	if (IS("__print_symbolic") || IS("__print_symbolic_u64")) {
		n = call(x, IS("__print_symbolic") ? H_SYMBOLIC : H_SYMBOLIC_U64, 1);
		if (!expect(x, "("))
			return n;
		n->args[0] = parse_assign(x);
		parse_table(x, n);
		return n;
	}
	if (IS("__print_hex") || IS("__print_hex_str"))
		return parse_args_into(x, call(x, IS("__print_hex") ? H_HEX : H_HEX_STR, 2));
	if (IS("__print_array"))
		return parse_args_into(x, call(x, H_ARRAY, 3));
	if (IS("jiffies_to_msecs"))
		return parse_args_into(x, call(x, H_JIFFIES_MSECS, 1));
	if (IS("mc_event_error_type")) {
		n = parse_args_into(x, call(x, H_MC_ERR_TYPE, 1));
		n->t = (struct ktype){ .size = x->env->long_size, .ptr = 1, .chr = 1, .el = 1 };
		return n;
	}
	if (IS("__get_str") || IS("__get_rel_str") || IS("__get_dynamic_array") ||
	    IS("__get_rel_dynamic_array") || IS("__get_sockaddr") || IS("__get_rel_sockaddr")) {
		bool str = IS("__get_str") || IS("__get_rel_str");

		f = paren_field(x);
		if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC)) {
			x->err = true;
			return node(x, N_CONST);
		}
		n = field_node(x, f);
		if (str)
			n->t.chr = 1;
		return n;
	}
	if (IS("__get_dynamic_array_len") || IS("__get_rel_dynamic_array_len")) {
		f = paren_field(x);
		if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC)) {
			x->err = true;
			return node(x, N_CONST);
		}
		n = call(x, H_DYN_LEN, 1);
		n->args[0] = field_node(x, f);
		n->t = (struct ktype){ .size = 4, .sign = true };
		return n;
	}
	if (IS("__get_bitmask") || IS("__get_rel_bitmask") || IS("__get_cpumask") ||
	    IS("__get_rel_cpumask")) {
		bool cpu = IS("__get_cpumask") || IS("__get_rel_cpumask");

		f = paren_field(x);
		if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC)) {
			x->err = true;
			return node(x, N_CONST);
		}
		n = call(x, cpu ? H_CPUMASK : H_BITMASK, 1);
		n->args[0] = field_node(x, f);
		n->t = (struct ktype){ .size = x->env->long_size, .ptr = 1, .chr = 1, .el = 1 };
		return n;
	}
	if (IS("__builtin_expect")) {
		struct knode *v;

		if (!expect(x, "("))
			return node(x, N_CONST);
		v = parse_assign(x);
		if (expect(x, ","))
			parse_assign(x);
		expect(x, ")");
		return v;
	}
#undef IS
	x->err = true;
	return node(x, N_CONST);
}

static bool is_const(const struct knode *n)
{
	return n->op == N_CONST;
}

/* Fold what is constant: the value of n's tree if every leaf is a number. */
static bool eval_const(const struct knode *n, uint64_t *v);

static struct knode *fold(struct lex *x, struct knode *n)
{
	uint64_t v;

	if (n->op != N_CONST && n->op != N_STR && (!n->t.ptr || n->op == N_CAST) &&
	    eval_const(n, &v))
		return konst(x, v, n->t);
	return n;
}

/* A statement expression: ({ TYPE NAME = EXPR; ... EXPR; }) */
static struct knode *parse_stmt_expr(struct lex *x)
{
	struct knode *seq = node(x, N_SEQ);
	struct knode *list[32];
	int n = 0, base = x->nloc;

	while (!x->err && !is_p(x, "}")) {
		if (type_starts(x) && !is_id(x, "static")) {
			bool ok;
			struct ktype t = parse_type(x, &ok);

			if (!ok || x->t.k != T_ID || x->nloc >= 16 || n >= 30) {
				x->err = true;
				break;
			}
			x->loc[x->nloc].name = x->t.s;
			x->loc[x->nloc].n = x->t.n;
			x->loc[x->nloc].t = t;
			x->loc[x->nloc].slot = x->p->nlocals++;
			next(x);
			if (!expect(x, "="))
				break;
			{
				struct knode *set = node(x, N_LOCAL);

				set->v = x->loc[x->nloc].slot;
				set->a = parse_assign(x);
				set->t = t;
				list[n++] = set;
			}
			x->nloc++;
			expect(x, ";");
		} else {
			if (n >= 30) {
				x->err = true;
				break;
			}
			list[n++] = parse_expr(x);
			expect(x, ";");
		}
	}
	expect(x, "}");
	x->nloc = base;
	if (!n) {
		x->err = true;
		return seq;
	}
	seq->nargs = n;
	seq->args = pmem(x->p, n * sizeof(*seq->args));
	memcpy(seq->args, list, n * sizeof(*list));
	seq->t = list[n - 1]->t;
	return seq;
}

static struct knode *parse_primary(struct lex *x)
{
	struct knode *n;

	if (x->err)
		return node(x, N_CONST);
	switch (x->t.k) {
	case T_NUM: {
		/* C's rules: the first of int, (unsigned int,) long, unsigned long that holds it. */
		bool dec = x->t.s[0] != '0';
		uint64_t lmax = x->env->long_size == 8 ? 0x7fffffffffffffffULL : 0x7fffffffULL;
		struct ktype t;

		if (!x->t.l && !x->t.u && x->t.v <= 0x7fffffff)
			t = (struct ktype){ .size = 4, .sign = true };
		else if (!x->t.l && (x->t.u || !dec) && x->t.v <= 0xffffffffULL)
			t = (struct ktype){ .size = 4, .sign = false };
		else if (!x->t.u && x->t.v <= lmax)
			t = long_type(x, true);
		else if (x->t.v <= lmax * 2 + 1)
			t = long_type(x, false);
		else
			t = (struct ktype){ .size = 8, .sign = !x->t.u && x->t.v <= 0x7fffffffffffffffULL };
		n = konst(x, x->t.v, t);
		next(x);
		return n;
	}
	case T_STR:
		n = node(x, N_STR);
		n->s = x->t.s;
		n->len = x->t.n;
		n->t = (struct ktype){ .size = x->env->long_size, .ptr = 1, .chr = 1, .el = 1 };
		next(x);
		return n;
	case T_ID: {
		const char *name = x->t.s;
		size_t len = x->t.n;

		next(x);
		if (len == 3 && !strncmp(name, "REC", 3)) {
			struct tep_format_field *f;

			if (!is_p(x, "->") && !is_p(x, ".")) {
				x->err = true;
				return node(x, N_CONST);
			}
			next(x);
			if (x->t.k != T_ID) {
				x->err = true;
				return node(x, N_CONST);
			}
			f = find_field(x, x->t.s, x->t.n);
			next(x);
			if (!f) {
				x->err = true;
				return node(x, N_CONST);
			}
			return field_node(x, f);
		}
		if (is_p(x, "("))
			return parse_call(x, name, len);
		for (int i = x->nloc - 1; i >= 0; i--)
			if (x->loc[i].n == len && !strncmp(x->loc[i].name, name, len)) {
				n = node(x, N_LOCAL);
				n->v = x->loc[i].slot;
				n->t = x->loc[i].t;
				n->sub = 1;	/* a read */
				return n;
			}
		if ((len == 4 && !strncmp(name, "NULL", 4)) || (len == 5 && !strncmp(name, "false", 5)))
			return konst(x, 0, (struct ktype){ .size = 4, .sign = true });
		if (len == 4 && !strncmp(name, "true", 4))
			return konst(x, 1, (struct ktype){ .size = 4, .sign = true });
		{
			char buf[128];
			uint64_t v;

			if (len >= sizeof(buf)) {
				x->err = true;
				return node(x, N_CONST);
			}
			memcpy(buf, name, len);
			buf[len] = '\0';
			if (x->env->constant && x->env->constant(x->env->ctx, buf, &v))
				return konst(x, v, (struct ktype){ .size = 4, .sign = v <= 0x7fffffff });
			/* Known only to the kernel: fails the record if it is needed. */
			n = node(x, N_UNKNOWN);
			n->s = pmem(x->p, len + 1);
			memcpy((char *)n->s, name, len);
			if (!strcmp(buf, "jiffies") || !strcmp(buf, "vmemmap_base"))
				n->t = long_type(x, false);
			return n;
		}
	}
	case T_P:
		if (is_p(x, "(")) {
			next(x);
			if (is_p(x, "{")) {
				next(x);
				n = parse_stmt_expr(x);
				expect(x, ")");
				return n;
			}
			n = parse_expr(x);
			expect(x, ")");
			return n;
		}
		/* fallthrough */
	default:
		x->err = true;
		return node(x, N_CONST);
	}
}

static struct knode *parse_postfix(struct lex *x)
{
	struct knode *n = parse_primary(x);

	while (!x->err && is_p(x, "[")) {
		struct knode *ix = node(x, N_INDEX);

		next(x);
		ix->a = n;
		ix->b = parse_expr(x);
		expect(x, "]");
		if (!n->t.ptr) {
			x->err = true;
			return ix;
		}
		ix->t = (struct ktype){ .size = n->t.el ? n->t.el : 1, .sign = n->t.sign || n->t.chr };
		if (ix->t.size != 1 && ix->t.size != 2 && ix->t.size != 4 && ix->t.size != 8)
			x->err = true;
		n = ix;
	}
	return n;
}

static struct knode *parse_unary(struct lex *x)
{
	struct knode *n;

	if (x->err)
		return node(x, N_CONST);
	if (is_p(x, "-") || is_p(x, "~") || is_p(x, "!") || is_p(x, "+")) {
		char c = x->t.s[0];

		next(x);
		if (c == '+')
			return parse_unary(x);
		n = node(x, c == '-' ? N_NEG : c == '~' ? N_BNOT : N_LNOT);
		n->a = parse_unary(x);
		n->t = c == '!' ? (struct ktype){ .size = 4, .sign = true } : promote(n->a->t);
		return fold(x, n);
	}
	if (is_p(x, "&")) {
		next(x);
		n = node(x, N_ADDR);
		n->a = parse_unary(x);
		if (n->a->op != N_FIELD) {
			x->err = true;
			return n;
		}
		n->t = (struct ktype){ .size = x->env->long_size, .ptr = 1, .el = n->a->t.size };
		return n;
	}
	if (is_p(x, "*")) {
		/* Dereference: only of the record's own data (an array's first element). */
		next(x);
		n = node(x, N_INDEX);
		n->a = parse_unary(x);
		n->b = konst(x, 0, (struct ktype){ .size = 4, .sign = true });
		if (!n->a->t.ptr)
			x->err = true;
		n->t = (struct ktype){ .size = n->a->t.el ? n->a->t.el : 1, .sign = n->a->t.sign };
		return n;
	}
	if (is_id(x, "sizeof")) {
		bool ok;
		struct ktype t;

		next(x);
		if (!expect(x, "("))
			return node(x, N_CONST);
		if (type_starts(x)) {
			bool ptr;

			t = parse_type(x, &ok);
			ptr = t.ptr;
			expect(x, ")");
			if (!ok)
				x->err = true;
			return konst(x, ptr ? (uint64_t)x->env->long_size : t.size, long_type(x, false));
		}
		n = parse_expr(x);
		expect(x, ")");
		if (n->op == N_FIELD && !n->t.ptr)
			return konst(x, n->size, long_type(x, false));
		if (n->op == N_FIELD)
			return konst(x, n->size, long_type(x, false));
		return konst(x, n->t.size, long_type(x, false));
	}
	if (is_p(x, "(")) {
		/* A cast, or a parenthesized expression. */
		const char *save = x->s;
		struct tok st = x->t;

		next(x);
		if (type_starts(x)) {
			bool ok;
			struct ktype t = parse_type(x, &ok);

			if (ok && is_p(x, ")")) {
				next(x);
				n = node(x, N_CAST);
				n->a = parse_unary(x);
				n->t = t;
				if (n->a->op == N_STR || (n->a->t.ptr && !t.ptr && n->a->op != N_CONST &&
							  n->a->op != N_FIELD && n->a->op != N_UNKNOWN &&
							  n->a->op != N_CAST && n->a->op != N_COND &&
							  n->a->op != N_BIN))
					return n;
				return fold(x, n);
			}
		}
		x->s = save;
		x->t = st;
	}
	return parse_postfix(x);
}

static const struct {
	const char *p;
	int prec;
	enum bop op;
} binops[] = {
	{ "*", 10, B_MUL }, { "/", 10, B_DIV }, { "%", 10, B_MOD },
	{ "+", 9, B_ADD }, { "-", 9, B_SUB },
	{ "<<", 8, B_SHL }, { ">>", 8, B_SHR },
	{ "<", 7, B_LT }, { ">", 7, B_GT }, { "<=", 7, B_LE }, { ">=", 7, B_GE },
	{ "==", 6, B_EQ }, { "!=", 6, B_NE },
	{ "&", 5, B_AND }, { "^", 4, B_XOR }, { "|", 3, B_OR },
	{ "&&", 2, B_LAND }, { "||", 1, B_LOR },
};

static int binop(const struct lex *x)
{
	if (x->t.k != T_P)
		return -1;
	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (is_p(x, binops[i].p))
			return i;
	return -1;
}

static struct knode *parse_bin(struct lex *x, int minprec)
{
	struct knode *l = parse_unary(x);
	int i;

	while (!x->err && (i = binop(x)) >= 0 && binops[i].prec >= minprec) {
		struct knode *n = node(x, N_BIN);

		next(x);
		n->sub = binops[i].op;
		n->a = l;
		n->b = parse_bin(x, binops[i].prec + 1);
		n->ct = arith(n->a->t, n->b->t);
		switch (n->sub) {
		case B_LAND: case B_LOR: case B_EQ: case B_NE: case B_LT: case B_GT: case B_LE:
		case B_GE:
			n->t = (struct ktype){ .size = 4, .sign = true };
			break;
		case B_SHL: case B_SHR:
			n->t = promote(n->a->t);
			break;
		case B_ADD: case B_SUB:
			if (n->a->t.ptr && n->b->t.ptr)
				n->t = long_type(x, true);
			else if (n->a->t.ptr || n->b->t.ptr)
				n->t = n->a->t.ptr ? n->a->t : n->b->t;
			else
				n->t = arith(n->a->t, n->b->t);
			break;
		default:
			n->t = arith(n->a->t, n->b->t);
		}
		l = fold(x, n);
	}
	return l;
}

static struct knode *parse_cond(struct lex *x)
{
	struct knode *c = parse_bin(x, 1);

	if (!x->err && is_p(x, "?")) {
		struct knode *n = node(x, N_COND);

		next(x);
		n->a = c;
		n->b = parse_expr(x);
		expect(x, ":");
		n->c = parse_cond(x);
		if (n->b->t.ptr || n->b->op == N_STR)
			n->t = n->b->t;
		else if (n->c->t.ptr || n->c->op == N_STR)
			n->t = n->c->t;
		else
			n->t = arith(n->b->t, n->c->t);
		if (is_const(c)) {
			uint64_t v = c->v;

			return v ? n->b : n->c;
		}
		return n;
	}
	return c;
}

static struct knode *parse_assign(struct lex *x)
{
	return parse_cond(x);
}

static struct knode *parse_expr(struct lex *x)
{
	struct knode *n = parse_assign(x);

	/* The comma operator is not in print fmts (it separates arguments). */
	return n;
}

/* ---- evaluation ---- */

struct ectx {
	const struct kenv *env;
	const struct krec *r;
	uint64_t locals[64];
	struct fmt_line *scratch;	/* helpers' text */
	bool fail;
};

static uint64_t rd(const struct ectx *c, const uint8_t *p, int size, bool sign)
{
	uint64_t v;

	switch (size) {
	case 1:
		v = *p;
		return sign ? (uint64_t)(int64_t)(int8_t)v : v;
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

static bool eval(struct ectx *c, const struct knode *n, struct kval *out);

static bool eval_num(struct ectx *c, const struct knode *n, uint64_t *v)
{
	struct kval k;

	if (!eval(c, n, &k))
		return false;
	if (k.p && !k.t.ptr)
		return false;
	*v = k.p ? (uint64_t)(uintptr_t)k.p : k.v;
	return !k.p;
}

static bool dyn_span(struct ectx *c, const struct knode *n, const uint8_t **p, uint32_t *len)
{
	uint32_t v, off;

	if ((uint64_t)n->off + 4 > c->r->size)
		return false;
	v = (uint32_t)rd(c, c->r->data + n->off, 4, false);
	off = (v & 0xffff) + (n->rel ? (uint32_t)n->off + 4 : 0);
	*len = v >> 16;
	if ((uint64_t)off + *len > c->r->size)
		return false;
	*p = c->r->data + off;
	return true;
}

/* Helpers write their text into the scratch line; the value points there. */
static void sput(struct fmt_line *o, const char *s, size_t n)
{
	fmt_line_grow(o, n);
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void sprintf_(struct fmt_line *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sprintf_(struct fmt_line *o, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		sput(o, tmp, n < (int)sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void put_bitmap(struct fmt_line *o, const uint8_t *p, uint32_t bytes,
		       const struct ectx *c);

static bool helper(struct ectx *c, const struct knode *n, struct kval *out)
{
	struct fmt_line *o = c->scratch;
	size_t start = o->len;
	struct kval a;
	uint64_t v, m;

	switch (n->sub) {
	case H_FLAGS:
	case H_FLAGS_U64: {
		bool first = true;

		if (!eval_num(c, n->args[0], &v))
			return false;
		if (n->sub == H_FLAGS && c->env->long_size == 4)
			v = (uint32_t)v;
		for (int i = 0; i < n->nent && n->ent[i].name && v; i++) {
			if (!eval_num(c, n->ent[i].val, &m))
				return false;
			if (n->sub == H_FLAGS && c->env->long_size == 4)
				m = (uint32_t)m;
			if ((v & m) != m)
				continue;
			v &= ~m;
			if (!first && n->delim)
				sput(o, n->delim, strlen(n->delim));
			first = false;
			sput(o, n->ent[i].name, strlen(n->ent[i].name));
		}
		if (v) {
			if (!first && n->delim)
				sput(o, n->delim, strlen(n->delim));
			sprintf_(o, "0x%llx", (unsigned long long)v);
		}
		break;
	}
	case H_SYMBOLIC:
	case H_SYMBOLIC_U64:
		if (!eval_num(c, n->args[0], &v))
			return false;
		if (n->sub == H_SYMBOLIC && c->env->long_size == 4)
			v = (uint32_t)v;
		for (int i = 0; i < n->nent && n->ent[i].name; i++) {
			if (!eval_num(c, n->ent[i].val, &m))
				return false;
			if (n->sub == H_SYMBOLIC && c->env->long_size == 4)
				m = (uint32_t)m;
			if (v != m)
				continue;
			sput(o, n->ent[i].name, strlen(n->ent[i].name));
			break;
		}
		/* Nothing written (no match, or an empty name): the number. */
		if (o->len == start)
			sprintf_(o, "0x%llx", (unsigned long long)v);
		break;
	case H_HEX:
	case H_HEX_STR: {
		uint64_t len;

		if (!eval(c, n->args[0], &a) || !eval_num(c, n->args[1], &len))
			return false;
		if (!a.p || len > a.n)
			return false;
		for (uint64_t i = 0; i < len; i++) {
			if (n->sub == H_HEX && i)
				sput(o, " ", 1);
			sprintf_(o, "%02x", a.p[i]);
		}
		break;
	}
	case H_ARRAY: {
		uint64_t count, el;
		const char *prefix = "";

		if (!eval(c, n->args[0], &a) || !eval_num(c, n->args[1], &count) ||
		    !eval_num(c, n->args[2], &el))
			return false;
		if (!a.p && count)
			return false;
		sput(o, "{", 1);
		for (uint64_t i = 0; i < count; i++) {
			if ((el != 1 && el != 2 && el != 4 && el != 8) || (i + 1) * el > a.n) {
				if (el == 1 || el == 2 || el == 4 || el == 8)
					return false;
				sprintf_(o, "%sBAD SIZE:%llu 0x%x", prefix, (unsigned long long)el,
					 a.n > i * el ? a.p[i * el] : 0);
				break;
			}
			v = rd(c, a.p + i * el, el, false);
			sprintf_(o, "%s0x%llx", prefix, (unsigned long long)v);
			prefix = ",";
		}
		sput(o, "}", 1);
		break;
	}
	case H_DYN_LEN: {
		const uint8_t *p;
		uint32_t len;

		if (!dyn_span(c, n->args[0], &p, &len))
			return false;
		*out = (struct kval){ .v = len, .t = n->t };
		return true;
	}
	case H_BITMASK:
	case H_CPUMASK: {
		const uint8_t *p;
		uint32_t len;

		if (!dyn_span(c, n->args[0], &p, &len))
			return false;
		/* A cpumask prints as any bitmask does, in hex. */
		put_bitmap(o, p, len, c);
		break;
	}
	case H_MC_ERR_TYPE: {
		/* include/linux/edac.h's, by enum hw_event_mc_err_type. */
		static const char *const names[] = { "Corrected", "Uncorrected", "Deferred", "Fatal" };
		const char *name;

		if (!eval_num(c, n->args[0], &v))
			return false;
		name = (uint32_t)v < 4 ? names[(uint32_t)v] : "Info";
		sput(o, name, strlen(name));
		break;
	}
	case H_JIFFIES_MSECS:
		if (!eval_num(c, n->args[0], &v) || !c->env->hz)
			return false;
		v = (uint32_t)v;
		if (1000 % c->env->hz == 0)
			v *= 1000 / c->env->hz;
		else
			v = (v * 1000 + c->env->hz - 1) / c->env->hz;
		*out = (struct kval){ .v = (uint32_t)v, .t = { .size = 4 } };
		return true;
	default:
		return false;
	}
	/* A string in the scratch line: its address is fixed up by the caller. */
	*out = (struct kval){ .v = start, .n = o->len - start,
			      .t = { .size = 8, .ptr = 1, .chr = 1, .el = 1 } };
	out->p = (const uint8_t *)o;	/* marks "in scratch" (see at_scratch) */
	return true;
}

static bool in_scratch(const struct ectx *c, const struct kval *k)
{
	return k->p == (const uint8_t *)c->scratch;
}

static bool eval(struct ectx *c, const struct knode *n, struct kval *out)
{
	struct kval a, b;
	uint64_t l, r;

	switch (n->op) {
	case N_CONST:
		*out = (struct kval){ .v = n->v, .t = n->t };
		return true;
	case N_STR:
		*out = (struct kval){ .p = (const uint8_t *)n->s, .n = n->len + 1, .t = n->t };
		return true;
	case N_FIELD:
		if ((uint64_t)n->off + n->size > c->r->size) {
			/* A char[] of size 0 (ftrace's) runs to the end of the record. */
			return false;
		}
		if (n->t.ptr && n->elsize) {
			uint32_t len = n->size ? (uint32_t)n->size : c->r->size - n->off;

			*out = (struct kval){ .p = c->r->data + n->off, .n = len, .t = n->t };
			return true;
		}
		*out = (struct kval){ .v = rd(c, c->r->data + n->off, n->size, n->t.sign && !n->t.ptr),
				      .t = n->t };
		return true;
	case N_DYN: {
		const uint8_t *p;
		uint32_t len;

		if (!dyn_span(c, n, &p, &len))
			return false;
		*out = (struct kval){ .p = p, .n = len, .t = n->t };
		return true;
	}
	case N_LOCAL:
		if (n->sub) {
			*out = (struct kval){ .v = c->locals[n->v & 63], .t = n->t };
			return true;
		}
		if (!eval_num(c, n->a, &l))
			return false;
		c->locals[n->v & 63] = conv_to(l, n->t);
		*out = (struct kval){ .v = c->locals[n->v & 63], .t = n->t };
		return true;
	case N_SEQ:
		for (int i = 0; i < n->nargs; i++)
			if (!eval(c, n->args[i], out))
				return false;
		return true;
	case N_UNKNOWN:
		if (!strcmp(n->s, "vmemmap_base") && c->env->vmemmap) {
			*out = (struct kval){ .v = c->env->vmemmap, .t = n->t };
			return true;
		}
		if (!strcmp(n->s, "jiffies") && c->env->hz && c->r->ts) {
			/*
			 * The kernel reads jiffies when the trace file is read;
			 * the nearest thing a record tells is jiffies when it was
			 * written: INITIAL_JIFFIES plus its time since boot.
			 */
			uint64_t init = c->env->long_size == 8
						? (uint64_t)(uint32_t)(-300 * (int)c->env->hz)
						: (uint32_t)(-300 * (int)c->env->hz);

			*out = (struct kval){ .v = init + c->r->ts / (1000000000 / c->env->hz),
					      .t = n->t };
			return true;
		}
		return false;
	case N_CAST:
		if (!eval(c, n->a, &a))
			return false;
		if (a.p) {
			/* A cast of a string or array changes what it points to, not where. */
			*out = a;
			if (n->t.ptr) {
				out->t.el = n->t.el ? n->t.el : a.t.el;
				out->t.chr = n->t.chr;
			} else {
				return false;
			}
			return true;
		}
		*out = (struct kval){ .v = conv_to(a.v, n->t), .t = n->t };
		return true;
	case N_NEG:
	case N_BNOT:
		if (!eval_num(c, n->a, &l))
			return false;
		*out = (struct kval){ .v = conv_to(n->op == N_NEG ? -l : ~l, n->t), .t = n->t };
		return true;
	case N_LNOT:
		if (!eval(c, n->a, &a))
			return false;
		*out = (struct kval){ .v = a.p ? 0 : !a.v, .t = n->t };
		return true;
	case N_COND:
		if (!eval(c, n->a, &a))
			return false;
		if (!eval(c, (a.p || a.v) ? n->b : n->c, out))
			return false;
		if (!out->p && !out->t.ptr && !n->t.ptr)
			out->v = conv_to(out->v, n->t), out->t = n->t;
		return true;
	case N_INDEX:
		if (!eval(c, n->a, &a) || !eval_num(c, n->b, &r))
			return false;
		if (!a.p || in_scratch(c, &a))
			return false;
		if ((r + 1) * n->t.size > a.n)
			return false;
		*out = (struct kval){ .v = rd(c, a.p + r * n->t.size, n->t.size, n->t.sign),
				      .t = n->t };
		return true;
	case N_ADDR:
		if ((uint64_t)n->a->off + n->a->size > c->r->size)
			return false;
		*out = (struct kval){ .p = c->r->data + n->a->off, .n = n->a->size, .t = n->t };
		return true;
	case N_CALL:
		return helper(c, n, out);
	case N_BIN:
		if (n->sub == B_LAND || n->sub == B_LOR) {
			if (!eval(c, n->a, &a))
				return false;
			l = a.p || a.v;
			if ((n->sub == B_LAND && !l) || (n->sub == B_LOR && l)) {
				*out = (struct kval){ .v = l, .t = n->t };
				return true;
			}
			if (!eval(c, n->b, &b))
				return false;
			*out = (struct kval){ .v = b.p || b.v, .t = n->t };
			return true;
		}
		if (!eval(c, n->a, &a) || !eval(c, n->b, &b))
			return false;
		if (a.p || b.p) {
			/* Pointer arithmetic on the record's data: offsets into it. */
			if ((n->sub == B_ADD || n->sub == B_SUB) && a.p && !b.p && !in_scratch(c, &a)) {
				int64_t d = (int64_t)b.v * (a.t.el ? a.t.el : 1);

				if (n->sub == B_SUB)
					d = -d;
				if (d < 0 || (uint64_t)d > a.n)
					return false;
				*out = (struct kval){ .p = a.p + d, .n = a.n - d, .t = a.t };
				return true;
			}
			return false;
		}
		l = a.v, r = b.v;
		if (n->sub == B_ADD || n->sub == B_SUB) {
			if (a.t.ptr && !b.t.ptr)
				r *= a.t.el ? a.t.el : 1;
			else if (b.t.ptr && !a.t.ptr)
				l *= b.t.el ? b.t.el : 1;
			if (a.t.ptr && b.t.ptr && n->sub == B_SUB) {
				uint64_t d = l - r;

				*out = (struct kval){ .v = a.t.el ? (uint64_t)((int64_t)d / a.t.el) : d,
						      .t = n->t };
				return true;
			}
		}
		{
			/* The types the tree promised (values of other types fail above). */
			struct ktype ct = n->ct.size ? n->ct : arith(a.t, b.t);
			bool sg = ct.sign && !a.t.ptr && !b.t.ptr;
			uint64_t v = 0;

			if (!a.t.ptr)
				l = conv_to(l, n->sub == B_SHL || n->sub == B_SHR ? promote(a.t) : ct);
			if (!b.t.ptr && n->sub != B_SHL && n->sub != B_SHR)
				r = conv_to(r, ct);
			if (ct.size == 4 && !sg)
				l = (uint32_t)l, r = n->sub == B_SHL || n->sub == B_SHR ? r : (uint32_t)r;
			switch (n->sub) {
			case B_ADD: v = l + r; break;
			case B_SUB: v = l - r; break;
			case B_MUL: v = l * r; break;
			case B_DIV:
			case B_MOD:
				if (!r)
					return false;
				if (sg) {
					if ((int64_t)r == -1 && (int64_t)l == INT64_MIN)
						return false;
					v = n->sub == B_DIV ? (uint64_t)((int64_t)l / (int64_t)r)
							    : (uint64_t)((int64_t)l % (int64_t)r);
				} else {
					v = n->sub == B_DIV ? l / r : l % r;
				}
				break;
			case B_SHL:
				if (r >= (uint64_t)promote(a.t).size * 8)
					return false;
				v = l << r;
				break;
			case B_SHR:
				if (r >= (uint64_t)promote(a.t).size * 8)
					return false;
				v = promote(a.t).sign ? (uint64_t)((int64_t)l >> r) : l >> r;
				break;
			case B_AND: v = l & r; break;
			case B_OR: v = l | r; break;
			case B_XOR: v = l ^ r; break;
			case B_EQ: v = l == r; break;
			case B_NE: v = l != r; break;
			case B_LT: v = sg ? (int64_t)l < (int64_t)r : l < r; break;
			case B_GT: v = sg ? (int64_t)l > (int64_t)r : l > r; break;
			case B_LE: v = sg ? (int64_t)l <= (int64_t)r : l <= r; break;
			case B_GE: v = sg ? (int64_t)l >= (int64_t)r : l >= r; break;
			}
			*out = (struct kval){ .v = n->t.ptr ? v : conv_to(v, n->t), .t = n->t };
		}
		return true;
	}
	return false;
}

static bool eval_const(const struct knode *n, uint64_t *v)
{
	static const struct kenv env0 = { .long_size = 8 };
	struct krec r0 = { 0 };
	struct ectx c = { .env = &env0, .r = &r0 };
	struct kval k;

	switch (n->op) {
	case N_CONST:
		*v = n->v;
		return true;
	case N_CAST: case N_NEG: case N_BNOT: case N_LNOT:
		if (n->a->op != N_CONST)
			return false;
		break;
	case N_BIN:
		if (n->a->op != N_CONST || n->b->op != N_CONST || n->a->t.ptr || n->b->t.ptr)
			return false;
		break;
	default:
		return false;
	}
	if (!eval(&c, n, &k) || k.p)
		return false;
	*v = k.v;
	return true;
}

/* ---- the kernel's vsnprintf ---- */

enum { F_LEFT = 1, F_PLUS = 2, F_SPACE = 4, F_SPECIAL = 8, F_ZEROPAD = 16, F_SMALL = 32,
       F_SIGN = 64 };

static void out_c(struct fmt_line *o, char c, int n)
{
	if (n <= 0)
		return;
	fmt_line_grow(o, n);
	memset(o->p + o->len, c, n);
	o->len += n;
}

/* lib/vsprintf.c's number(), the same steps in the same order. */
static void number(struct fmt_line *o, uint64_t num, int base, int flags, int width, int prec)
{
	char tmp[66];
	char sign = 0;
	char locase = (flags & F_SMALL) ? 0x20 : 0;
	bool need_pfx = (flags & F_SPECIAL) && base != 10;
	bool is_zero = num == 0;
	int i = 0;

	if (flags & F_LEFT)
		flags &= ~F_ZEROPAD;
	if (flags & F_SIGN) {
		if ((int64_t)num < 0) {
			sign = '-';
			num = -num;
			width--;
		} else if (flags & F_PLUS) {
			sign = '+';
			width--;
		} else if (flags & F_SPACE) {
			sign = ' ';
			width--;
		}
	}
	if (need_pfx) {
		if (base == 16)
			width -= 2;
		else if (!is_zero)
			width--;
	}
	if (num < (uint64_t)base) {
		tmp[i++] = "0123456789ABCDEF"[num] | locase;
	} else if (base != 10) {
		int shift = base == 16 ? 4 : 3;

		do {
			tmp[i++] = "0123456789ABCDEF"[num & (base - 1)] | locase;
			num >>= shift;
		} while (num);
	} else {
		do {
			tmp[i++] = '0' + num % 10;
			num /= 10;
		} while (num);
	}
	if (i > prec)
		prec = i;
	width -= prec;
	fmt_line_grow(o, (width > 0 ? width : 0) + prec + 4);
	if (!(flags & (F_ZEROPAD | F_LEFT)))
		while (--width >= 0)
			o->p[o->len++] = ' ';
	if (sign)
		o->p[o->len++] = sign;
	if (need_pfx) {
		if (base == 16 || !is_zero)
			o->p[o->len++] = '0';
		if (base == 16)
			o->p[o->len++] = 'X' | locase;
	}
	if (!(flags & F_LEFT)) {
		char c = (flags & F_ZEROPAD) ? '0' : ' ';

		while (--width >= 0)
			o->p[o->len++] = c;
	}
	while (i <= --prec)
		o->p[o->len++] = '0';
	while (--i >= 0)
		o->p[o->len++] = tmp[i];
	while (--width >= 0)
		o->p[o->len++] = ' ';
}

/* string(): at most prec bytes, padded to width. */
static void string(struct fmt_line *o, const char *s, size_t max, int flags, int width, int prec)
{
	size_t n = 0;

	if (prec >= 0 && (size_t)prec < max)
		max = prec;
	while (n < max && s[n])
		n++;
	if (!(flags & F_LEFT))
		out_c(o, ' ', width - (int)n);
	sput(o, s, n);
	if (flags & F_LEFT)
		out_c(o, ' ', width - (int)n);
}

/* A number as the kernel prints "0x%lx" / pointer_string: 16 (8) zero-padded digits. */
static void pointer_string(struct fmt_line *o, uint64_t v, const struct kenv *env, int flags,
			   int width, int prec)
{
	if (width == -1) {
		width = 2 * env->long_size;
		flags |= F_ZEROPAD;
	}
	number(o, v, 16, flags | F_SMALL, width, prec);
}

/* %pS, %ps, %pB: "name+0xoff/0xsize [module]", or 0x%lx when no symbol covers it. */
static void symbol(struct fmt_line *o, const struct kenv *env, uint64_t v, const char *ext,
		   int flags, int width, int prec)
{
	char buf[512];
	const char *name, *mod;
	uint64_t start, size, addr = v;
	int n;
	bool off = ext[0] != 's', back = ext[0] == 'B';

	if (back)
		addr--;
	if (!env->sym || !env->sym(env->ctx, addr, &name, &start, &size, &mod)) {
		n = snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	} else {
		n = snprintf(buf, sizeof(buf), "%s", name);
		if (off && n < (int)sizeof(buf)) {
			struct fmt_line t = { 0 };
			uint64_t ofs = addr - start + (back ? 1 : 0);

			n += snprintf(buf + n, sizeof(buf) - n, "+");
			number(&t, ofs, 16, F_SPECIAL | F_SMALL, -1, -1);
			sput(&t, "/", 1);
			number(&t, size, 16, F_SPECIAL | F_SMALL, -1, -1);
			if (n < (int)sizeof(buf))
				n += snprintf(buf + n, sizeof(buf) - n, "%.*s", (int)t.len, t.p);
			free(t.p);
		}
		if (mod && n < (int)sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n, " [%s]", mod);
	}
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	string(o, buf, n, flags, width, prec);
}

static void ip4(char *buf, const uint8_t *a, char fmt)
{
	if (fmt == 'i')
		sprintf(buf, "%03u.%03u.%03u.%03u", a[0], a[1], a[2], a[3]);
	else
		sprintf(buf, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

/* ip6_compressed_string(): the longest run of zero words as "::", v4-mapped kept as v4. */
static void ip6c(char *p, const uint8_t *a)
{
	int zerolength[8] = { 0 }, longest = 1, colonpos = -1, i, j, range;
	bool needcolon = false, useIPv4;
	uint16_t word[8];

	for (i = 0; i < 8; i++)
		word[i] = a[2 * i] << 8 | a[2 * i + 1];
	/* ipv6_addr_v4mapped / is ISATAP */
	/* ipv6_addr_v4mapped() or ipv6_addr_is_isatap() */
	useIPv4 = (!word[0] && !word[1] && !word[2] && !word[3] && !word[4] && word[5] == 0xffff) ||
		  ((word[4] | 0x0200) == 0x0200 && word[5] == 0x5efe);
	range = useIPv4 ? 6 : 8;
	for (i = 0; i < range; i++)
		for (j = i; j < range; j++) {
			if (word[j] != 0)
				break;
			zerolength[i]++;
		}
	for (i = 0; i < range; i++)
		if (zerolength[i] > longest) {
			longest = zerolength[i];
			colonpos = i;
		}
	if (longest == 1)
		colonpos = -1;
	for (i = 0; i < range; i++) {
		if (i == colonpos) {
			if (needcolon || i == 0)
				*p++ = ':';
			*p++ = ':';
			needcolon = false;
			i += longest - 1;
			continue;
		}
		if (needcolon) {
			*p++ = ':';
			needcolon = false;
		}
		p += sprintf(p, "%x", word[i]);
		needcolon = true;
	}
	if (useIPv4) {
		if (needcolon)
			*p++ = ':';
		ip4(p, a + 12, 'I');
		p += strlen(p);
	}
	*p = '\0';
}

static void ip6(char *p, const uint8_t *a, char fmt)
{
	for (int i = 0; i < 8; i++) {
		p += sprintf(p, "%02x%02x", a[2 * i], a[2 * i + 1]);
		if (fmt == 'I' && i != 7)
			*p++ = ':';
	}
	*p = '\0';
}

/* %pI4 %pi4 %pI6 %pI6c %pi6 %pIS[pfsc]: false if the argument is not the record's. */
static bool ip_addr(struct fmt_line *o, const struct kval *k, const char *ext, int flags,
		    int width, int prec, const struct ectx *c)
{
	char buf[128];
	char fmt = ext[0];
	const uint8_t *a = k->p;

	if (!a)
		return false;
	if (ext[1] == '4') {
		if (k->n < 4)
			return false;
		ip4(buf, a, fmt);
	} else if (ext[1] == '6') {
		if (k->n < 16)
			return false;
		if (fmt == 'I' && ext[2] == 'c')
			ip6c(buf, a);
		else
			ip6(buf, a, fmt);
	} else if (ext[1] == 'S') {
		/* struct sockaddr: family, then the port and the address. */
		bool port = false, scope = false, flow = false, comp = false;
		uint16_t fam, pt;
		char *p = buf;

		for (int i = 2; ext[i]; i++) {
			port |= ext[i] == 'p';
			scope |= ext[i] == 's';
			flow |= ext[i] == 'f';
			comp |= ext[i] == 'c';
		}
		if (k->n < 2)
			return false;
		fam = (uint16_t)rd(c, a, 2, false);
		if (fam == 2) {
			if (k->n < 8)
				return false;
			pt = a[2] << 8 | a[3];
			ip4(p, a + 4, fmt);
			p += strlen(p);
			if (port)
				sprintf(p, ":%u", pt);
		} else if (fam == 10) {
			if (k->n < 28)
				return false;
			pt = a[2] << 8 | a[3];
			if (port)
				*p++ = '[';
			if (fmt == 'I' && comp)
				ip6c(p, a + 8);
			else
				ip6(p, a + 8, fmt);
			p += strlen(p);
			if (port)
				p += sprintf(p, "]:%u", pt);
			if (flow) {
				uint32_t fl = (uint32_t)a[4] << 24 | a[5] << 16 | a[6] << 8 | a[7];

				p += sprintf(p, "/%u", fl & 0x000fffff);
			}
			if (scope)
				p += sprintf(p, "%%%u", (unsigned)rd(c, a + 24, 4, false));
			*p = '\0';
		} else {
			snprintf(buf, sizeof(buf), "(invalid address)");
		}
	} else {
		return false;
	}
	string(o, buf, strlen(buf), flags, width, prec);
	return true;
}

static void put_bitmap(struct fmt_line *o, const uint8_t *p, uint32_t bytes,
		       const struct ectx *c)
{
	/* bitmap_string(): 32-bit chunks from the top, in hex, comma separated. */
	int nbits = bytes * 8, chunksz = nbits & 31 ? nbits & 31 : 32;
	bool first = true;
	int ls = c->env->long_size;

	for (int i = (nbits - 1) & ~31; i >= 0; i -= 32) {
		uint64_t word = 0;
		uint32_t val;
		int idx = i / (ls * 8), sh = i % (ls * 8);

		if ((uint32_t)(idx + 1) * ls <= bytes)
			word = rd(c, p + idx * ls, ls, false);
		val = (uint32_t)(word >> sh);
		if (!first)
			sput(o, ",", 1);
		sprintf_(o, "%0*x", (chunksz + 3) / 4, val & (chunksz == 32 ? 0xffffffffu :
								  ((1u << chunksz) - 1)));
		chunksz = 32;
		first = false;
	}
}

/* %*pb / %*pbl: a bitmap of width bits. */
static bool bitmap(struct fmt_line *o, const struct kval *k, int nbits, bool list,
		   const struct ectx *c)
{
	int ls = c->env->long_size;

	if (!k->p || nbits < 0 || (uint64_t)(nbits + 7) / 8 > k->n)
		return false;
	if (!list) {
		int chunksz = nbits & 31 ? nbits & 31 : 32;
		bool first = true;

		for (int i = (nbits - 1) & ~31; i >= 0; i -= 32) {
			int idx = i / (ls * 8), sh = i % (ls * 8);
			uint64_t word = (uint32_t)(idx + 1) * ls <= k->n ? rd(c, k->p + idx * ls, ls, false) : 0;
			uint32_t val = (uint32_t)(word >> sh);

			if (chunksz < 32)
				val &= (1u << chunksz) - 1;
			if (!first)
				sput(o, ",", 1);
			sprintf_(o, "%0*x", (chunksz + 3) / 4, val);
			chunksz = 32;
			first = false;
		}
		return true;
	}
	/* bitmap_list_string(): ranges "0-3,5". */
	{
		bool first = true;
		int b = 0;

		while (b < nbits) {
			int e;
#define BIT(n) (rd(c, k->p + ((n) / (ls * 8)) * ls, ls, false) >> ((n) % (ls * 8)) & 1)
			if (!BIT(b)) {
				b++;
				continue;
			}
			e = b;
			while (e + 1 < nbits && BIT(e + 1))
				e++;
#undef BIT
			if (!first)
				sput(o, ",", 1);
			first = false;
			if (e > b)
				sprintf_(o, "%d-%d", b, e);
			else
				sprintf_(o, "%d", b);
			b = e + 1;
		}
	}
	return true;
}

static bool run_conv(struct ectx *c, const struct conv *cv, struct fmt_line *o)
{
	const struct kenv *env = c->env;
	int width = cv->width, prec = cv->prec, flags = cv->flags;
	struct kval k;
	uint64_t v;

	if (cv->warg) {
		if (!eval_num(c, cv->warg, &v))
			return false;
		width = (int)v;
		if (width < 0) {
			width = -width;
			flags |= F_LEFT;
		}
	}
	if (cv->parg) {
		if (!eval_num(c, cv->parg, &v))
			return false;
		prec = (int)v < 0 ? -1 : (int)v;
	}
	c->scratch->len = 0;
	if (!eval(c, cv->arg, &k))
		return false;
	if (in_scratch(c, &k)) {
		k.p = k.n ? (const uint8_t *)c->scratch->p + k.v : (const uint8_t *)"";
		k.v = 0;
	}
	switch (cv->conv) {
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': {
		int base = cv->conv == 'o' ? 8 : (cv->conv == 'x' || cv->conv == 'X') ? 16 : 10;
		bool sign = cv->conv == 'd' || cv->conv == 'i';

		if (k.p)
			return false;	/* the address of the record's data is the kernel's */
		v = k.v;
		if (cv->conv == 'c') {
			char ch = (char)(uint8_t)v;

			if (!(flags & F_LEFT))
				out_c(o, ' ', width - 1);
			sput(o, &ch, 1);
			if (flags & F_LEFT)
				out_c(o, ' ', width - 1);
			return true;
		}
		switch (cv->qual) {
		case 'L':
			break;
		case 'l': case 'z': case 't':
			if (env->long_size == 4)
				v = sign ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
			break;
		case 'H':
			v = sign ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
			break;
		case 'h':
			v = sign ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
			break;
		default:
			v = sign ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
		}
		if (flags == 0 && width < 0 && prec < 0 && base == 10) {
			/* The common case, quickly. */
			char tmp[24];
			int n = 0;
			bool neg = sign && (int64_t)v < 0;

			if (neg)
				v = -v;
			do {
				tmp[sizeof(tmp) - 1 - n++] = '0' + v % 10;
				v /= 10;
			} while (v);
			if (neg)
				tmp[sizeof(tmp) - 1 - n++] = '-';
			sput(o, tmp + sizeof(tmp) - n, n);
			return true;
		}
		if (sign)
			flags |= F_SIGN;
		if (cv->conv == 'x')
			flags |= F_SMALL;
		number(o, v, base, flags, width, prec);
		return true;
	}
	case 's':
		if (!k.p) {
			const char *s;

			if (!k.v) {
				string(o, "(null)", 6, flags, width, prec);
				return true;
			}
			if (k.v < 4096 || k.v >= (uint64_t)-4095) {
				string(o, "(efault)", 8, flags, width, prec);
				return true;
			}
			/* A kernel string: printk_formats may have it. */
			s = env->string ? env->string(env->ctx, k.v) : NULL;
			if (!s)
				return false;
			string(o, s, strlen(s), flags, width, prec);
			return true;
		}
		string(o, (const char *)k.p, k.n, flags, width, prec);
		return true;
	case 'p':
		switch (cv->ext[0]) {
		case 'S': case 's': case 'B': case 'F': case 'f':
			if (k.p)
				return false;
			symbol(o, env, k.v, cv->ext[0] == 'f' ? "s" : cv->ext[0] == 'F' ? "S" : cv->ext,
			       flags, width, prec);
			return true;
		case 'I': case 'i':
			return ip_addr(o, &k, cv->ext, flags, width, prec, c);
		case 'U': {
			/* uuid_string(): b (default), B, l, L. */
			static const uint8_t be[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
			static const uint8_t le[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
			const uint8_t *ix = (cv->ext[1] == 'l' || cv->ext[1] == 'L') ? le : be;
			bool up = cv->ext[1] == 'B' || cv->ext[1] == 'L';
			char buf[40], *p = buf;

			if (!k.p || k.n < 16)
				return false;
			for (int i = 0; i < 16; i++) {
				p += sprintf(p, up ? "%02X" : "%02x", k.p[ix[i]]);
				if (i == 3 || i == 5 || i == 7 || i == 9)
					*p++ = '-';
			}
			*p = '\0';
			string(o, buf, strlen(buf), flags, width, prec);
			return true;
		}
		case 'M': case 'm': {
			char buf[32], *p = buf;
			bool rev = cv->ext[1] == 'R';
			char sep = cv->ext[0] == 'm' ? 0 : cv->ext[1] == 'F' ? '-' : ':';

			if (!k.p || k.n < 6)
				return false;
			for (int i = 0; i < 6; i++) {
				p += sprintf(p, "%02x", k.p[rev ? 5 - i : i]);
				if (sep && i != 5)
					*p++ = sep;
			}
			*p = '\0';
			string(o, buf, strlen(buf), flags, width, prec);
			return true;
		}
		case 'h': {
			/* hex_string(): width bytes (default 1), separated. */
			char sep = cv->ext[1] == 'C' ? ':' : cv->ext[1] == 'D' ? '-' :
				   cv->ext[1] == 'N' ? 0 : ' ';
			int len = width < 0 ? 1 : width;

			if (!k.p)
				return false;
			if (len > 64)
				len = 64;
			if ((uint32_t)len > k.n)
				return false;
			for (int i = 0; i < len; i++) {
				sprintf_(o, "%02x", k.p[i]);
				if (sep && i != len - 1)
					sput(o, &sep, 1);
			}
			return true;
		}
		case 'b':
			return bitmap(o, &k, width, cv->ext[1] == 'l', c);
		case 'x':
			if (k.p)
				return false;
			pointer_string(o, k.v, env, flags, width, prec);
			return true;
		case 'K':
		case '\0':
			if (k.p)
				return false;
			/*
			 * Plain %p: with hash-ptr set the kernel prints a keyed
			 * hash of the address, which cannot be computed here;
			 * what it prints with hash-ptr clear is the address.
			 */
			pointer_string(o, k.v, env, flags, width, prec);
			return true;
		case 'e':
			return false;
		default:
			if (isalnum((unsigned char)cv->ext[0]))
				return false;
			if (k.p)
				return false;
			pointer_string(o, k.v, env, flags, width, prec);
			return true;
		}
	default:
		return false;
	}
}

/* ---- compiling a print fmt ---- */

/* The format string: literal text and conversions, as the kernel's format_decode() reads it. */
static bool parse_format(struct kprog *p, const char *f, size_t flen, struct conv **convs,
			 int *nconv)
{
	size_t cap = flen * 2 + 2, lit = 0;
	int segcap = flen + 2;

	p->lit = xmalloc(cap);
	p->segs = xcalloc(segcap, sizeof(*p->segs));
	*convs = NULL;
	*nconv = 0;
	for (size_t i = 0; i < flen;) {
		struct conv cv = { .width = -1, .prec = -1 };
		size_t j = i + 1;

		if (f[i] != '%' || (i + 1 < flen && f[i + 1] == '%')) {
			size_t start = lit;

			if (f[i] == '%')
				i++;
			p->lit[lit++] = f[i++];
			while (i < flen && f[i] != '%')
				p->lit[lit++] = f[i++];
			if (p->nseg && p->segs[p->nseg - 1].kind == S_LIT &&
			    p->segs[p->nseg - 1].off + p->segs[p->nseg - 1].len == start) {
				p->segs[p->nseg - 1].len += lit - start;
			} else {
				p->segs[p->nseg++] = (struct seg){ .kind = S_LIT, .off = start,
								   .len = lit - start };
			}
			continue;
		}
		for (;; j++) {
			if (j >= flen)
				return false;
			if (f[j] == '-')
				cv.flags |= F_LEFT;
			else if (f[j] == '+')
				cv.flags |= F_PLUS;
			else if (f[j] == ' ')
				cv.flags |= F_SPACE;
			else if (f[j] == '#')
				cv.flags |= F_SPECIAL;
			else if (f[j] == '0')
				cv.flags |= F_ZEROPAD;
			else
				break;
		}
		if (f[j] == '*') {
			cv.width = -2;
			j++;
		} else if (isdigit((unsigned char)f[j])) {
			cv.width = 0;
			while (j < flen && isdigit((unsigned char)f[j]))
				cv.width = cv.width * 10 + (f[j++] - '0');
		}
		if (j < flen && f[j] == '.') {
			j++;
			if (j < flen && f[j] == '*') {
				cv.prec = -2;
				j++;
			} else {
				cv.prec = 0;
				while (j < flen && isdigit((unsigned char)f[j]))
					cv.prec = cv.prec * 10 + (f[j++] - '0');
			}
		}
		if (j < flen && (f[j] == 'h' || f[j] == 'l' || f[j] == 'L' || f[j] == 'z' ||
				 f[j] == 'Z' || f[j] == 't')) {
			cv.qual = f[j] == 'Z' ? 'z' : f[j];
			j++;
			if (j < flen && f[j] == cv.qual && (cv.qual == 'l' || cv.qual == 'h')) {
				cv.qual = cv.qual == 'l' ? 'L' : 'H';
				j++;
			}
		}
		if (j >= flen)
			return false;
		cv.conv = f[j++];
		if (!strchr("diuxXocsp", cv.conv))
			return false;
		if (cv.conv == 'p') {
			int k = 0;

			while (j < flen && isalnum((unsigned char)f[j]) && k < 7)
				cv.ext[k++] = f[j++];
			while (j < flen && isalnum((unsigned char)f[j]))
				j++;
		}
		*convs = xrealloc(*convs, (*nconv + 1) * sizeof(**convs));
		(*convs)[(*nconv)++] = cv;
		p->segs[p->nseg++] = (struct seg){ .kind = S_CONV, .c = cv };
		i = j;
	}
	return true;
}

/* The "print fmt:" line of a format file, or the text itself. */
static const char *print_fmt_line(const char *text)
{
	const char *s = strstr(text, "print fmt:");

	if (s)
		return s + 10;
	return text;
}

static struct kprog *compile_special(const struct kenv *env, struct tep_event *e);

struct kprog *kprog_compile(const struct kenv *env, struct tep_event *e, const char *text)
{
	struct kprog *p;
	struct lex x = { 0 };
	struct conv *convs = NULL;
	int nconv = 0, ci = 0;
	const char *s;

	p = compile_special(env, e);
	if (p && p->sp == SP_FTRACE_OTHER) {
		kprog_free(p);
		return NULL;
	}
	if (p && p->sp != SP_KPROBE && p->sp != SP_KRETPROBE)
		return p;
	if (!text) {
		kprog_free(p);
		return NULL;
	}
	if (!p)
		p = xcalloc(1, sizeof(*p));
	s = print_fmt_line(text);
	/*
	 * The line ends at a newline outside the string literals: some kernels
	 * (6.1) write a "\n" in a format's string as a newline.
	 */
	{
		const char *e = s;
		bool quoted = false;
		size_t n;

		for (; *e && (quoted || *e != '\n'); e++) {
			if (*e == '\\' && quoted && e[1])
				e++;
			else if (*e == '"')
				quoted = !quoted;
		}
		n = e - s;
		p->text = xmalloc(n + 1);
		memcpy(p->text, s, n);
		p->text[n] = '\0';
	}
	x.p = p;
	x.env = env;
	x.e = e;
	x.s = p->text;
	next(&x);
	/* The format: one string literal, or several side by side. */
	if (x.t.k != T_STR || x.err)
		goto fail;
	if (!parse_format(p, x.t.s, x.t.n, &convs, &nconv))
		goto fail;
	next(&x);
	for (int i = 0; i < p->nseg && !x.err; i++) {
		struct seg *sg = &p->segs[i];

		if (sg->kind != S_CONV)
			continue;
		if (!expect(&x, ","))
			break;
		if (sg->c.width == -2) {
			sg->c.warg = parse_assign(&x);
			sg->c.width = -1;
			if (!expect(&x, ","))
				break;
		}
		if (sg->c.prec == -2) {
			sg->c.parg = parse_assign(&x);
			sg->c.prec = -1;
			if (!expect(&x, ","))
				break;
		}
		sg->c.arg = parse_assign(&x);
		ci++;
	}
	if (x.err || x.t.k != T_END || ci != nconv)
		goto fail;
	free(convs);
	return p;
fail:
	free(convs);
	kprog_free(p);
	return NULL;
}

/* ---- events the kernel prints with functions of their own ---- */

static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return tep_find_field(e, name);
}

static struct kprog *compile_special(const struct kenv *env, struct tep_event *e)
{
	struct kprog *p;
	enum special sp = SP_NONE;
	struct tep_format_field *f;
	int nf = 0;

	(void)env;
	if (!strcmp(e->system, "syscalls") && field(e, "__syscall_nr")) {
		if (!strncmp(e->name, "sys_enter_", 10))
			sp = SP_SYS_ENTER;
		else if (!strncmp(e->name, "sys_exit_", 9) && field(e, "ret"))
			sp = SP_SYS_EXIT;
	} else if (!strcmp(e->system, "ftrace")) {
		/* The others' formats are not what the kernel prints: not ours. */
		if (!strcmp(e->name, "print") && field(e, "ip") && field(e, "buf"))
			sp = SP_PRINT;
		else if (!strcmp(e->name, "bputs") && field(e, "ip") && field(e, "str"))
			sp = SP_BPUTS;
		else if (!strcmp(e->name, "raw_data") && field(e, "id") && field(e, "buf"))
			sp = SP_RAW_DATA;
		else if (!strcmp(e->name, "function") && field(e, "ip") && field(e, "parent_ip"))
			sp = SP_FUNCTION;
		else if (!strcmp(e->name, "kernel_stack") && field(e, "caller"))
			sp = SP_STACK;
		else if (!strcmp(e->name, "user_stack") && field(e, "caller"))
			sp = SP_USER_STACK;
		else
			sp = SP_FTRACE_OTHER;
	} else if ((f = field(e, "__probe_ip")) && f == e->format.fields) {
		sp = SP_KPROBE;		/* uprobe or kprobe: told apart by the address */
	} else if ((f = field(e, "__probe_func")) && f == e->format.fields &&
		   field(e, "__probe_ret_ip")) {
		sp = SP_KRETPROBE;
	}
	if (sp == SP_NONE)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->sp = sp;
	if (sp == SP_FTRACE_OTHER)
		return p;
	for (f = e->format.fields; f; f = f->next)
		nf++;
	p->fields = xcalloc(nf + 1, sizeof(*p->fields));
	for (f = e->format.fields; f; f = f->next)
		p->fields[p->nfields++] = f;
	switch (sp) {
	case SP_SYS_ENTER:
	case SP_SYS_EXIT: {
		const char *n = e->name + (sp == SP_SYS_ENTER ? 10 : 9);
		char *s = pmem(p, strlen(n) + 5);

		sprintf(s, "sys_%s", n);
		p->sysname = s;
		for (int i = 1; i < p->nfields; i++)
			if (p->fields[i]->size != 8 && p->fields[i]->size != 4) {
				kprog_free(p);
				return NULL;
			}
		break;
	}
	case SP_KPROBE:
	case SP_KRETPROBE:
		p->ip_off = p->fields[0]->offset;
		if (sp == SP_KRETPROBE)
			p->ip2_off = field(e, "__probe_ret_ip")->offset;
		break;
	default:
		break;
	}
	return p;
}

static struct tep_format_field *pf(const struct kprog *p, const char *name)
{
	for (int i = 0; i < p->nfields; i++)
		if (!strcmp(p->fields[i]->name, name))
			return p->fields[i];
	return NULL;
}

/* seq_print_ip_sym() without sym-offset: the symbol's name, or 0 for none. */
static bool ip_sym(struct fmt_line *o, const struct kenv *env, uint64_t ip, bool offset)
{
	const char *name, *mod;
	uint64_t start, size;

	if (!ip) {
		sput(o, "0", 1);
		return true;
	}
	if (!env->sym || !env->sym(env->ctx, ip, &name, &start, &size, &mod))
		return false;
	if (offset) {
		symbol(o, env, ip, "S", 0, -1, -1);
		return true;
	}
	sput(o, name, strlen(name));
	return true;
}

static int run_special(const struct kprog *p, struct ectx *c, struct fmt_line *o)
{
	const struct krec *r = c->r;
	const struct kenv *env = c->env;
	struct tep_format_field *f;
	bool kern;

	switch (p->sp) {
	case SP_SYS_ENTER:
		sput(o, p->sysname, strlen(p->sysname));
		sput(o, "(", 1);
		for (int i = 1; i < p->nfields; i++) {
			uint64_t v;

			f = p->fields[i];
			if ((uint64_t)f->offset + f->size > r->size)
				return KPROG_FAIL;
			v = rd(c, r->data + f->offset, f->size, false);
			sput(o, f->name, strlen(f->name));
			sput(o, ": ", 2);
			/* Until 6.18 every value was "%lx"; since, small ones are decimal. */
			if (env->kver && env->kver < (6 << 8 | 18)) {
				number(o, v, 16, F_SMALL, -1, -1);
			} else if (v < 10) {
				number(o, v, 10, 0, -1, -1);
			} else {
				sput(o, "0x", 2);
				number(o, v, 16, F_SMALL, -1, -1);
			}
			if (i + 1 < p->nfields)
				sput(o, ", ", 2);
		}
		sput(o, ")", 1);
		return KPROG_LINE;
	case SP_SYS_EXIT:
		f = pf(p, "ret");
		if ((uint64_t)f->offset + f->size > r->size)
			return KPROG_FAIL;
		sput(o, p->sysname, strlen(p->sysname));
		sput(o, " -> 0x", 6);
		number(o, rd(c, r->data + f->offset, f->size, true), 16, F_SMALL, -1, -1);
		return KPROG_LINE;
	case SP_PRINT:
	case SP_BPUTS: {
		struct tep_format_field *ip = pf(p, "ip"), *buf = pf(p, p->sp == SP_PRINT ? "buf" : "str");
		uint64_t v;

		if ((uint64_t)ip->offset + ip->size > r->size || buf->offset > (int)r->size)
			return KPROG_FAIL;
		if (!ip_sym(o, env, rd(c, r->data + ip->offset, ip->size, false), false))
			return KPROG_FAIL;
		sput(o, ": ", 2);
		if (p->sp == SP_PRINT) {
			const char *s = (const char *)r->data + buf->offset;
			size_t n = strnlen(s, r->size - buf->offset);

			/* The write's newline ends the kernel's line (it adds none). */
			if (n && s[n - 1] == '\n')
				n--;
			sput(o, s, n);
			return KPROG_LINE;
		}
		/* bputs: the string is the kernel's, by address. */
		if ((uint64_t)buf->offset + buf->size > r->size)
			return KPROG_FAIL;
		v = rd(c, r->data + buf->offset, buf->size, false);
		{
			const char *s = env->string ? env->string(env->ctx, v) : NULL;

			if (!s)
				return KPROG_FAIL;
			sput(o, s, strlen(s) - (*s && s[strlen(s) - 1] == '\n'));
		}
		return KPROG_LINE;
	}
	case SP_RAW_DATA: {
		struct tep_format_field *id = pf(p, "id"), *buf = pf(p, "buf");

		if ((uint64_t)id->offset + 4 > r->size || buf->offset > (int)r->size)
			return KPROG_FAIL;
		sprintf_(o, "# %x buf:", (unsigned)rd(c, r->data + id->offset, 4, false));
		for (uint32_t i = buf->offset; i < r->size; i++)
			sprintf_(o, " %02x", r->data[i]);
		return KPROG_LINE;
	}
	case SP_FUNCTION: {
		struct tep_format_field *ip = pf(p, "ip"), *pip = pf(p, "parent_ip");
		uint64_t parent;

		if ((uint64_t)ip->offset + ip->size > r->size ||
		    (uint64_t)pip->offset + pip->size > r->size)
			return KPROG_FAIL;
		if (!ip_sym(o, env, rd(c, r->data + ip->offset, ip->size, false), false))
			return KPROG_FAIL;
		parent = rd(c, r->data + pip->offset, pip->size, false);
		if (parent) {
			sput(o, " <-", 3);
			if (!ip_sym(o, env, parent, false))
				return KPROG_FAIL;
		}
		return KPROG_LINE;
	}
	case SP_STACK:
	case SP_USER_STACK: {
		struct tep_format_field *cf = pf(p, "caller");
		int ls = env->long_size;

		if (cf->offset > (int)r->size)
			return KPROG_FAIL;
		sput(o, p->sp == SP_STACK ? "<stack trace>\n" : "<user stack trace>\n",
		     p->sp == SP_STACK ? 14 : 19);
		for (uint32_t off = cf->offset; off + ls <= r->size; off += ls) {
			uint64_t v = rd(c, r->data + off, ls, false);

			if ((p->sp == SP_STACK && v == (ls == 8 ? UINT64_MAX : UINT32_MAX)) ||
			    (p->sp == SP_USER_STACK && !v))
				break;
			sput(o, " => ", 4);
			if (p->sp == SP_USER_STACK) {
				sprintf_(o, " <%0*llx>", 2 * ls, (unsigned long long)v);
			} else if (v == 0x7fffffff) {
				sput(o, "[FTRACE TRAMPOLINE]", 19);
			} else if (!ip_sym(o, env, v, false)) {
				return KPROG_FAIL;
			}
			sput(o, "\n", 1);
		}
		/* Each entry's line ends with a newline; the last one ends the record's. */
		if (o->len && o->p[o->len - 1] == '\n')
			o->len--;
		return KPROG_LINE;
	}
	case SP_KPROBE:
	case SP_KRETPROBE: {
		int ls = env->long_size;
		uint64_t ip, ret = 0;
		int skip = p->sp == SP_KPROBE ? 1 : 2;

		if ((uint64_t)p->ip_off + ls > r->size ||
		    (p->sp == SP_KRETPROBE && (uint64_t)p->ip2_off + ls > r->size))
			return KPROG_FAIL;
		ip = rd(c, r->data + p->ip_off, ls, false);
		if (p->sp == SP_KRETPROBE)
			ret = rd(c, r->data + p->ip2_off, ls, false);
		/* A kernel address: a kprobe, printed by symbol; a uprobe's is a number. */
		kern = ls == 8 ? ip >> 63 : ip >> 31;
		sput(o, "(", 1);
		if (p->sp == SP_KRETPROBE) {
			if (kern) {
				symbol(o, env, ret, "S", 0, -1, -1);
				sput(o, " <- ", 4);
				if (!ip_sym(o, env, ip, false))
					return KPROG_FAIL;
			} else {
				sprintf_(o, "0x%llx <- 0x%llx", (unsigned long long)ret,
					 (unsigned long long)ip);
			}
		} else if (kern) {
			symbol(o, env, ip, "S", 0, -1, -1);
		} else {
			sprintf_(o, "0x%llx", (unsigned long long)ip);
		}
		/*
		 * The arguments: the print fmt's rest, which the kernel builds
		 * from the same per-type formats its own printer uses (after
		 * "(%lx" or "(%lx <- %lx").
		 */
		for (int i = 0; i < p->nseg; i++) {
			const struct seg *sg = &p->segs[i];

			if (sg->kind == S_CONV && skip > 0) {
				skip--;
				continue;
			}
			if (skip)
				continue;
			if (sg->kind == S_LIT)
				sput(o, p->lit + sg->off, sg->len);
			else if (!run_conv(c, &sg->c, o))
				return KPROG_FAIL;
		}
		return skip ? KPROG_FAIL : KPROG_TEXT;
	}
	default:
		return KPROG_FAIL;
	}
}

int kprog_run(const struct kprog *p, const struct kenv *env, const struct krec *r,
	      struct fmt_line *out)
{
	/* The scratch line is the program's: one thread prints with it at a time. */
	struct fmt_line *scratch = &((struct kprog *)p)->scratch;
	struct ectx c = { .env = env, .r = r, .scratch = scratch };
	size_t start = out->len;
	int ret = KPROG_TEXT;

	if (p->sp != SP_NONE) {
		ret = run_special(p, &c, out);
		goto done;
	}
	for (int i = 0; i < p->nseg; i++) {
		const struct seg *sg = &p->segs[i];

		if (sg->kind == S_LIT) {
			sput(out, p->lit + sg->off, sg->len);
			continue;
		}
		if (!run_conv(&c, &sg->c, out)) {
			ret = KPROG_FAIL;
			break;
		}
	}
done:
	scratch->len = 0;
	if (ret == KPROG_FAIL)
		out->len = start;
	return ret;
}

static bool node_needs_symbols(const struct knode *n)
{
	if (!n)
		return false;
	if (n->op == N_UNKNOWN && !strcmp(n->s, "vmemmap_base"))
		return true;
	if (node_needs_symbols(n->a) || node_needs_symbols(n->b) || node_needs_symbols(n->c))
		return true;
	for (int i = 0; i < n->nargs; i++)
		if (node_needs_symbols(n->args[i]))
			return true;
	return false;
}

bool kprog_needs_symbols(const struct kprog *p)
{
	switch (p->sp) {
	case SP_NONE:
		break;
	case SP_SYS_ENTER: case SP_SYS_EXIT: case SP_RAW_DATA: case SP_USER_STACK:
		return false;
	default:
		return true;
	}
	for (int i = 0; i < p->nseg; i++) {
		const struct conv *c = &p->segs[i].c;

		if (p->segs[i].kind != S_CONV)
			continue;
		if (c->conv == 'p' && c->ext[0] && strchr("SsBFf", c->ext[0]))
			return true;
		if (node_needs_symbols(c->arg))
			return true;
	}
	return false;
}

int kfmt_number(char *buf, size_t len, const char *spec, uint64_t v)
{
	struct kprog p = { 0 };
	struct conv *convs = NULL;
	int nconv = 0;
	struct fmt_line o = { 0 };
	static const struct kenv env = { .long_size = 8 };
	struct krec r = { 0 };
	struct ectx c = { .env = &env, .r = &r, .scratch = &o };
	struct knode k = { .op = N_CONST, .v = v, .t = { .size = 8 } };
	int n = -1;

	if (parse_format(&p, spec, strlen(spec), &convs, &nconv) && nconv == 1 &&
	    p.segs[0].kind == S_CONV) {
		struct fmt_line out = { 0 };

		p.segs[0].c.arg = &k;
		if (run_conv(&c, &p.segs[0].c, &out)) {
			n = snprintf(buf, len, "%.*s", (int)out.len, out.p ? out.p : "");
		}
		free(out.p);
	}
	free(o.p);
	free(convs);
	free(p.segs);
	free(p.lit);
	return n;
}
