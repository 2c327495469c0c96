// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's printer's arguments: the C expressions of a print fmt
 * (fields, casts, arithmetic, "? :", statement expressions, the helpers
 * __print_flags, __print_symbolic, __print_hex, __print_array, __get_str,
 * __get_bitmask, ...), as the trace file layer's parser reads them
 * (tfile-expr.h, with this file's reading of type names), built into typed
 * trees and evaluated per record with C's types: integer promotion, the
 * usual arithmetic conversions, casts and pointer arithmetic.  Constant
 * subtrees are folded when building.  Names
 * only the kernel knows (enum constants no BTF resolves, jiffies,
 * vmemmap_base) are looked up in the kenv, or fail the record.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-kernel-local.h"
#include "tfile-expr.h"
#include "tfile-format.h"

/* ---- strings ---- */

/* A literal's escapes decoded into out (NULL: only counted); *stop: where it ended. */
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

/* One string literal's text (between its quotes), decoded, after what buf holds. */
static void append_literal(char **buf, size_t *len, const char *s, size_t n)
{
	const char *stop;
	int k = unescape(s + 1, s + n - 1, NULL, &stop);

	*buf = xrealloc(*buf, *len + k + 1);
	unescape(s + 1, s + n - 1, *buf + *len, &stop);
	*len += k;
	(*buf)[*len] = '\0';
}

const char *kbuild_str(struct kbuild *b, const char *s, size_t n, size_t *len)
{
	struct tfile_lex l = { .p = s, .end = s + n };
	struct kprog *p = b->p;
	char *buf = NULL;

	*len = 0;
	for (tfile_lex_next(&l); l.t == TFILE_TOK_STR; tfile_lex_next(&l))
		append_literal(&buf, len, l.s, l.n);
	if (!buf)
		buf = xcalloc(1, 1);
	/* Kept with the program: nodes point at it. */
	if (p->nmem == p->capmem) {
		p->capmem = p->capmem ? p->capmem * 2 : 64;
		p->mem = xrealloc(p->mem, p->capmem * sizeof(*p->mem));
	}
	p->mem[p->nmem++] = buf;
	return buf;
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

static bool is_id(const struct tfile_lex *l, const char *id)
{
	return l->t == TFILE_TOK_IDENT && l->n == strlen(id) && !strncmp(l->s, id, l->n);
}

static bool is_qualifier(const struct tfile_lex *l)
{
	return is_id(l, "const") || is_id(l, "volatile") || is_id(l, "__user") ||
	       is_id(l, "__iomem") || is_id(l, "__rcu") || is_id(l, "__percpu") ||
	       is_id(l, "__force") || is_id(l, "__attribute__");
}

/* Does a type name start here?  (Known words only: "(x)" stays an expression.) */
static bool type_starts(const struct tfile_lex *l)
{
	if (l->t != TFILE_TOK_IDENT)
		return false;
	return is_qualifier(l) || is_id(l, "unsigned") || is_id(l, "signed") || is_id(l, "struct") ||
	       is_id(l, "union") || is_id(l, "enum") || is_id(l, "void") ||
	       type_index(l->s, l->n) >= 0 || (l->n > 2 && !strncmp(l->s + l->n - 2, "_t", 2));
}

static struct ktype long_type(const struct kbuild *b, bool sign)
{
	return (struct ktype){ .size = b->env->long_size, .sign = sign };
}

/* A type name at l's token, up to (not including) the ')' of a cast or sizeof or a declaration's name. */
static struct ktype parse_type(const struct kenv *env, struct tfile_lex *l, bool *ok)
{
	struct ktype t = { .size = 4, .sign = true };
	int longs = 0;
	bool un = false, any = false, chr = false, vd = false;
	char sname[64] = "";

	*ok = true;
	while (l->t == TFILE_TOK_IDENT) {
		if (is_qualifier(l)) {
			tfile_lex_next(l);
			continue;
		}
		if (is_id(l, "unsigned")) {
			un = true;
		} else if (is_id(l, "signed") || is_id(l, "int")) {
			;
		} else if (is_id(l, "long")) {
			longs++;
		} else if (is_id(l, "short")) {
			t.size = 2;
		} else if (is_id(l, "char")) {
			t.size = 1, chr = true;
		} else if (is_id(l, "void")) {
			vd = true;
		} else if (!any && (is_id(l, "struct") || is_id(l, "union") || is_id(l, "enum"))) {
			bool en = is_id(l, "enum");

			tfile_lex_next(l);
			if (l->t != TFILE_TOK_IDENT) {
				*ok = false;
				return t;
			}
			if (en)
				t = (struct ktype){ .size = 4, .sign = false };
			else
				snprintf(sname, sizeof(sname), "%.*s", (int)l->n, l->s);
		} else if (!any) {
			int i = type_index(l->s, l->n);

			/* An unknown typedef is taken for an int (or a pointer, with a '*'). */
			if (i >= 0)
				t = (struct ktype){ .size = ctypes[i].size ? ctypes[i].size
									    : env->long_size,
						    .sign = ctypes[i].sign };
		} else {
			break;
		}
		any = true;
		tfile_lex_next(l);
	}
	if (!any) {
		*ok = false;
		return t;
	}
	if (longs)
		t.size = longs > 1 ? 8 : env->long_size;
	if (un)
		t.sign = false;
	while (tfile_lex_is(l, "*")) {
		unsigned el = t.ptr ? (unsigned)env->long_size : vd ? 1 : t.size;

		if (!t.ptr && sname[0]) {
			el = env->struct_size ? env->struct_size(env->ctx, sname) : 0;
			if (!el && !strcmp(sname, "page"))
				el = env->page_struct;
		}
		t = (struct ktype){ .size = env->long_size, .ptr = 1, .chr = !t.ptr && chr,
				    .el = el };
		tfile_lex_next(l);
		while (is_qualifier(l))
			tfile_lex_next(l);
	}
	return t;
}

/* The parser's question (tfile-expr.h): a type name here, and where it ends. */
static bool read_type(void *ctx, struct tfile_lex *l)
{
	const struct kbuild *b = ctx;
	bool ok;

	if (!type_starts(l))
		return false;
	parse_type(b->env, l, &ok);
	if (!ok)
		tfile_lex_fail(l, "a malformed type name");
	return true;
}

void kbuild_opts(struct kbuild *b, struct tfile_expr_opts *o)
{
	/*
	 * Deeper than any kernel print fmt (they nest a few levels): a hostile
	 * or broken format must fail here, not exhaust the stack.
	 */
	*o = (struct tfile_expr_opts){ .max_depth = 200, .depth_unary = true, .type = read_type,
				       .ctx = b };
}

/* The type a cast, sizeof or declaration names (the parser read it once already). */
static struct ktype type_of(struct kbuild *b, const char *s, size_t n)
{
	struct tfile_lex l = { .p = s, .end = s + n };
	struct ktype t;
	bool ok;

	tfile_lex_next(&l);
	t = parse_type(b->env, &l, &ok);
	if (!ok || l.t != TFILE_TOK_END)
		b->err = true;
	return t;
}

/* ---- nodes ---- */

static struct knode *node(struct kbuild *b, enum nop op)
{
	struct knode *n = kprog_mem(b->p, sizeof(*n));

	n->op = op;
	n->t = (struct ktype){ .size = 4, .sign = true };
	return n;
}

static struct knode *konst(struct kbuild *b, uint64_t v, struct ktype t)
{
	struct knode *n = node(b, N_CONST);

	n->v = v;
	n->t = t;
	return n;
}

static struct knode *fail(struct kbuild *b)
{
	b->err = true;
	return node(b, N_CONST);
}

/* A value converted to type t: truncated, and sign-extended if t is signed. */
uint64_t kconv_to(uint64_t v, struct ktype t)
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

struct ktype kpromote(struct ktype t)
{
	if (t.ptr)
		return t;
	if (t.size < 4)
		return (struct ktype){ .size = 4, .sign = true };
	return (struct ktype){ .size = t.size, .sign = t.sign };
}

struct ktype karith(struct ktype a, struct ktype b)
{
	a = kpromote(a);
	b = kpromote(b);
	if (a.size != b.size)
		return a.size > b.size ? a : b;
	return (struct ktype){ .size = a.size, .sign = a.sign && b.sign };
}

static struct tep_format_field *find_field(struct kbuild *b, const char *name, size_t n)
{
	char buf[128];

	if (n >= sizeof(buf))
		return NULL;
	memcpy(buf, name, n);
	buf[n] = '\0';
	return tep_find_any_field(b->e, buf);
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

static struct knode *field_node(struct kbuild *b, struct tep_format_field *f)
{
	struct knode *n = node(b, N_FIELD);

	n->off = f->offset;
	n->size = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		n->op = N_DYN;
		n->rel = f->flags & TEP_FIELD_IS_RELATIVE;
		n->elsize = f->elementsize > 0 ? f->elementsize : 1;
		n->t = (struct ktype){ .size = b->env->long_size, .ptr = 1,
				       .chr = field_is_char(f), .el = n->elsize };
		n->t.sign = !!(f->flags & TEP_FIELD_IS_SIGNED);
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		n->elsize = f->elementsize > 0 ? f->elementsize : 1;
		n->t = (struct ktype){ .size = b->env->long_size, .ptr = 1,
				       .chr = field_is_char(f), .el = n->elsize };
		n->t.sign = !!(f->flags & TEP_FIELD_IS_SIGNED);
	} else if (f->flags & TEP_FIELD_IS_POINTER || strchr(f->type, '*')) {
		n->t = (struct ktype){ .size = f->size, .ptr = 1, .chr = field_is_char(f),
				       .el = field_is_char(f) ? 1 : 0 };
	} else {
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
			b->err = true;
			return n;
		}
		n->t = (struct ktype){ .size = f->size, .sign = !!(f->flags & TEP_FIELD_IS_SIGNED) };
	}
	return n;
}

/* __get_str(f), __get_dynamic_array(f), ...: a dynamic field, by the name the call gives. */
static struct tep_format_field *dyn_field(struct kbuild *b, const struct tfile_expr *call)
{
	struct tep_format_field *f;

	if (call->nargs != 1 || call->args[0]->k != TX_NAME)
		return NULL;
	f = find_field(b, call->args[0]->s, call->args[0]->n);
	return f && (f->flags & TEP_FIELD_IS_DYNAMIC) ? f : NULL;
}

/* The { VAL, "NAME" } entries of __print_flags and __print_symbolic, from args[first]. */
static void table(struct kbuild *b, const struct tfile_expr *call, int first, struct knode *n)
{
	int cap = 0;

	for (int i = first; i < call->nargs && !b->err; i++) {
		const struct tfile_expr *en = call->args[i];

		if (!en->a)		/* "{ }": an empty table */
			continue;
		if (n->nent == cap) {
			struct kentry *e;

			cap = cap ? cap * 2 : 16;
			e = kprog_mem(b->p, cap * sizeof(*e));
			if (n->nent)
				memcpy(e, n->ent, n->nent * sizeof(*e));
			n->ent = e;
		}
		n->ent[n->nent].val = kbuild_arg(b, en->a);
		if (en->b->k == TX_STR) {
			size_t len;

			n->ent[n->nent].name = kbuild_str(b, en->b->s, en->b->n, &len);
		} else {
			/* NULL or ((void *)0): the end of the table. */
			struct knode *end = kbuild_arg(b, en->b);

			if (end->op != N_CONST || end->v) {
				b->err = true;
				return;
			}
			n->ent[n->nent].name = NULL;
		}
		n->nent++;
	}
}

static struct knode *call_node(struct kbuild *b, enum helper h, int nargs)
{
	struct knode *n = node(b, N_CALL);

	n->sub = h;
	n->nargs = nargs;
	n->args = kprog_mem(b->p, (nargs + 1) * sizeof(*n->args));
	return n;
}

/* A helper taking exactly nargs expressions. */
static struct knode *call_args(struct kbuild *b, const struct tfile_expr *e, enum helper h,
			       int nargs)
{
	struct knode *n = call_node(b, h, nargs);

	if (e->nargs != nargs) {
		b->err = true;
		return n;
	}
	for (int i = 0; i < nargs; i++)
		n->args[i] = kbuild_arg(b, e->args[i]);
	return n;
}

static struct knode *build_call(struct kbuild *b, const struct tfile_expr *e)
{
	struct tep_format_field *f;
	struct knode *n;
	enum tfile_helper h = e->h;

	switch (h) {
	case TFILE_H_PRINT_FLAGS:
	case TFILE_H_PRINT_FLAGS_U64:
		n = call_node(b, h == TFILE_H_PRINT_FLAGS ? H_FLAGS : H_FLAGS_U64, 1);
		if (e->nargs < 2)
			return fail(b);
		n->args[0] = kbuild_arg(b, e->args[0]);
		if (e->args[1]->k == TX_STR) {
			size_t len;

			n->delim = kbuild_str(b, e->args[1]->s, e->args[1]->n, &len);
		} else {
			n->delim = NULL;
			kbuild_arg(b, e->args[1]);
		}
		table(b, e, 2, n);
		return n;
	case TFILE_H_PRINT_SYMBOLIC:
	case TFILE_H_PRINT_SYMBOLIC_U64:
		n = call_node(b, h == TFILE_H_PRINT_SYMBOLIC ? H_SYMBOLIC : H_SYMBOLIC_U64, 1);
		if (e->nargs < 1)
			return fail(b);
		n->args[0] = kbuild_arg(b, e->args[0]);
		table(b, e, 1, n);
		return n;
	case TFILE_H_PRINT_HEX:
	case TFILE_H_PRINT_HEX_STR:
		return call_args(b, e, h == TFILE_H_PRINT_HEX ? H_HEX : H_HEX_STR, 2);
	case TFILE_H_PRINT_ARRAY:
		return call_args(b, e, H_ARRAY, 3);
	case TFILE_H_JIFFIES_TO_MSECS:
		return call_args(b, e, H_JIFFIES_MSECS, 1);
	case TFILE_H_MC_EVENT_ERROR_TYPE:
		n = call_args(b, e, H_MC_ERR_TYPE, 1);
		n->t = (struct ktype){ .size = b->env->long_size, .ptr = 1, .chr = 1, .el = 1 };
		return n;
	case TFILE_H_GET_STR:
	case TFILE_H_GET_DYNAMIC_ARRAY:
	case TFILE_H_GET_SOCKADDR:
		if (!(f = dyn_field(b, e)))
			return fail(b);
		n = field_node(b, f);
		if (h == TFILE_H_GET_STR)
			n->t.chr = 1;
		return n;
	case TFILE_H_GET_DYNAMIC_ARRAY_LEN:
		if (!(f = dyn_field(b, e)))
			return fail(b);
		n = call_node(b, H_DYN_LEN, 1);
		n->args[0] = field_node(b, f);
		n->t = (struct ktype){ .size = 4, .sign = true };
		return n;
	case TFILE_H_GET_BITMASK:
	case TFILE_H_GET_CPUMASK:
		if (!(f = dyn_field(b, e)))
			return fail(b);
		n = call_node(b, h == TFILE_H_GET_CPUMASK ? H_CPUMASK : H_BITMASK, 1);
		n->args[0] = field_node(b, f);
		n->t = (struct ktype){ .size = b->env->long_size, .ptr = 1, .chr = 1, .el = 1 };
		return n;
	case TFILE_H_BUILTIN_EXPECT:
		/* __builtin_expect(v, hint): v. */
		if (e->nargs != 2)
			return fail(b);
		n = kbuild_arg(b, e->args[0]);
		kbuild_arg(b, e->args[1]);
		return n;
	case TFILE_H_PRINT_DYNAMIC_ARRAY:
	case TFILE_H_NONE:
		break;
	}
	return fail(b);
}

static bool is_const(const struct knode *n)
{
	return n->op == N_CONST;
}

static bool keval_const(const struct knode *n, uint64_t *v);

/* Fold what is constant: the value of n's tree if every leaf is a number. */
static struct knode *fold(struct kbuild *b, struct knode *n)
{
	uint64_t v;

	if (n->op != N_CONST && n->op != N_STR && (!n->t.ptr || n->op == N_CAST) &&
	    keval_const(n, &v))
		return konst(b, v, n->t);
	return n;
}

/* A statement expression: ({ TYPE NAME = EXPR; ... EXPR; }) */
static struct knode *build_stmt(struct kbuild *b, const struct tfile_expr *e)
{
	struct knode *seq = node(b, N_SEQ);
	struct knode *list[32];
	int n = 0, base = b->nloc;

	for (int i = 0; i < e->nargs && !b->err; i++) {
		const struct tfile_expr *d = e->args[i];

		if (d->k == TX_DECL) {
			struct ktype t = type_of(b, d->ts, d->tn);
			struct knode *set;

			if (b->err || b->nloc >= 16 || n >= 30) {
				b->err = true;
				break;
			}
			b->loc[b->nloc].name = d->s;
			b->loc[b->nloc].n = d->n;
			b->loc[b->nloc].t = t;
			b->loc[b->nloc].slot = b->p->nlocals++;
			set = node(b, N_LOCAL);
			set->v = b->loc[b->nloc].slot;
			/* The name is not in scope in its own initializer. */
			set->a = kbuild_arg(b, d->a);
			set->t = t;
			list[n++] = set;
			b->nloc++;
		} else {
			if (n >= 30) {
				b->err = true;
				break;
			}
			list[n++] = kbuild_arg(b, d);
		}
	}
	b->nloc = base;
	if (!n) {
		b->err = true;
		return seq;
	}
	seq->nargs = n;
	seq->args = kprog_mem(b->p, n * sizeof(*seq->args));
	memcpy(seq->args, list, n * sizeof(*list));
	seq->t = list[n - 1]->t;
	return seq;
}

/* C's rules: the first of int, (unsigned int,) long, unsigned long that holds it. */
static struct knode *number(struct kbuild *b, uint64_t v, bool dec, bool u, bool l)
{
	uint64_t lmax = b->env->long_size == 8 ? 0x7fffffffffffffffULL : 0x7fffffffULL;
	struct ktype t;

	if (!l && !u && v <= 0x7fffffff)
		t = (struct ktype){ .size = 4, .sign = true };
	else if (!l && (u || !dec) && v <= 0xffffffffULL)
		t = (struct ktype){ .size = 4, .sign = false };
	else if (!u && v <= lmax)
		t = long_type(b, true);
	else if (v <= lmax * 2 + 1)
		t = long_type(b, false);
	else
		t = (struct ktype){ .size = 8, .sign = !u && v <= 0x7fffffffffffffffULL };
	return konst(b, v, t);
}

/* A character constant: one character, or one escape ('\n', '\x1b', '\0'). */
static struct knode *character(struct kbuild *b, const struct tfile_expr *e)
{
	const char *s = e->s, *stop;
	char c[8];
	size_t span = s[1] == '\\' ? (s[2] == 'x' ? 4 : 2) : 1;
	int n = unescape(s + 1, s + 1 + span, c, &stop);

	if (stop != e->s + e->n - 1)
		b->err = true;
	return number(b, n ? (uint64_t)(int64_t)(signed char)c[0] : 0, true, false, false);
}

static struct knode *name(struct kbuild *b, const struct tfile_expr *e)
{
	const char *s = e->s;
	size_t len = e->n;
	struct knode *n;
	char buf[128];
	uint64_t v;

	for (int i = b->nloc - 1; i >= 0; i--)
		if (b->loc[i].n == len && !strncmp(b->loc[i].name, s, len)) {
			n = node(b, N_LOCAL);
			n->v = b->loc[i].slot;
			n->t = b->loc[i].t;
			n->sub = 1;	/* a read */
			return n;
		}
	if ((len == 4 && !strncmp(s, "NULL", 4)) || (len == 5 && !strncmp(s, "false", 5)))
		return konst(b, 0, (struct ktype){ .size = 4, .sign = true });
	if (len == 4 && !strncmp(s, "true", 4))
		return konst(b, 1, (struct ktype){ .size = 4, .sign = true });
	if (len >= sizeof(buf))
		return fail(b);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (b->env->constant && b->env->constant(b->env->ctx, buf, &v))
		return konst(b, v, (struct ktype){ .size = 4, .sign = v <= 0x7fffffff });
	/* Known only to the kernel: fails the record if it is needed. */
	n = node(b, N_UNKNOWN);
	n->s = kprog_mem(b->p, len + 1);
	memcpy((char *)n->s, s, len);
	if (!strcmp(buf, "jiffies") || !strcmp(buf, "vmemmap_base"))
		n->t = long_type(b, false);
	return n;
}

static struct knode *build_unary(struct kbuild *b, const struct tfile_expr *e)
{
	char c = e->op[0];
	struct knode *n;

	switch (c) {
	case '+':
		return kbuild_arg(b, e->a);
	case '-':
	case '~':
	case '!':
		n = node(b, c == '-' ? N_NEG : c == '~' ? N_BNOT : N_LNOT);
		n->a = kbuild_arg(b, e->a);
		n->t = c == '!' ? (struct ktype){ .size = 4, .sign = true } : kpromote(n->a->t);
		return fold(b, n);
	case '&':
		n = node(b, N_ADDR);
		n->a = kbuild_arg(b, e->a);
		if (n->a->op != N_FIELD) {
			b->err = true;
			return n;
		}
		n->t = (struct ktype){ .size = b->env->long_size, .ptr = 1, .el = n->a->t.size };
		return n;
	default:
		/* '*': a dereference, only of the record's own data (an array's first element). */
		n = node(b, N_INDEX);
		n->a = kbuild_arg(b, e->a);
		n->b = konst(b, 0, (struct ktype){ .size = 4, .sign = true });
		if (!n->a->t.ptr)
			b->err = true;
		n->t = (struct ktype){ .size = n->a->t.el ? n->a->t.el : 1, .sign = n->a->t.sign };
		return n;
	}
}

static struct knode *build_sizeof(struct kbuild *b, const struct tfile_expr *e)
{
	struct knode *n;

	if (!e->a) {
		struct ktype t = type_of(b, e->ts, e->tn);

		return konst(b, t.ptr ? (uint64_t)b->env->long_size : t.size, long_type(b, false));
	}
	n = kbuild_arg(b, e->a);
	if (n->op == N_FIELD)
		return konst(b, n->size, long_type(b, false));
	return konst(b, n->t.size, long_type(b, false));
}

static struct knode *build_cast(struct kbuild *b, const struct tfile_expr *e)
{
	struct knode *n = node(b, N_CAST);

	n->t = type_of(b, e->ts, e->tn);
	n->a = kbuild_arg(b, e->a);
	if (n->a->op == N_STR || (n->a->t.ptr && !n->t.ptr && n->a->op != N_CONST &&
				  n->a->op != N_FIELD && n->a->op != N_UNKNOWN &&
				  n->a->op != N_CAST && n->a->op != N_COND && n->a->op != N_BIN))
		return n;
	return fold(b, n);
}

static const struct {
	const char *p;
	enum bop op;
} binops[] = {
	{ "*", B_MUL }, { "/", B_DIV }, { "%", B_MOD }, { "+", B_ADD }, { "-", B_SUB },
	{ "<<", B_SHL }, { ">>", B_SHR }, { "<", B_LT }, { ">", B_GT }, { "<=", B_LE },
	{ ">=", B_GE }, { "==", B_EQ }, { "!=", B_NE }, { "&", B_AND }, { "^", B_XOR },
	{ "|", B_OR }, { "&&", B_LAND }, { "||", B_LOR },
};

/* l op r, typed and folded. */
static struct knode *bin(struct kbuild *b, const char *op, struct knode *l, struct knode *r)
{
	struct knode *n = node(b, N_BIN);

	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (!strcmp(binops[i].p, op))
			n->sub = binops[i].op;
	n->a = l;
	n->b = r;
	n->ct = karith(n->a->t, n->b->t);
	switch (n->sub) {
	case B_LAND: case B_LOR: case B_EQ: case B_NE: case B_LT: case B_GT: case B_LE:
	case B_GE:
		n->t = (struct ktype){ .size = 4, .sign = true };
		break;
	case B_SHL: case B_SHR:
		n->t = kpromote(n->a->t);
		break;
	case B_ADD: case B_SUB:
		if (n->a->t.ptr && n->b->t.ptr)
			n->t = long_type(b, true);
		else if (n->a->t.ptr || n->b->t.ptr)
			n->t = n->a->t.ptr ? n->a->t : n->b->t;
		else
			n->t = karith(n->a->t, n->b->t);
		break;
	default:
		n->t = karith(n->a->t, n->b->t);
	}
	return fold(b, n);
}

/* A chain of binary operators, built up from its innermost (it is as long as the text). */
static struct knode *build_chain(struct kbuild *b, const struct tfile_expr *e)
{
	const struct tfile_expr **spine;
	int n = tfile_expr_spine(e, &spine);
	struct knode *l = kbuild_arg(b, spine[0]->a);

	for (int i = 0; i < n && !b->err; i++)
		l = bin(b, spine[i]->op, l, kbuild_arg(b, spine[i]->b));
	free(spine);
	return l;
}

static struct knode *build_cond(struct kbuild *b, const struct tfile_expr *e)
{
	struct knode *c = kbuild_arg(b, e->a), *n = node(b, N_COND);

	n->a = c;
	n->b = kbuild_arg(b, e->b);
	n->c = kbuild_arg(b, e->c);
	if (n->b->t.ptr || n->b->op == N_STR)
		n->t = n->b->t;
	else if (n->c->t.ptr || n->c->op == N_STR)
		n->t = n->c->t;
	else
		n->t = karith(n->b->t, n->c->t);
	if (is_const(c))
		return c->v ? n->b : n->c;
	return n;
}

static struct knode *build_index(struct kbuild *b, const struct tfile_expr *e)
{
	struct knode *ix = node(b, N_INDEX), *n = kbuild_arg(b, e->a);

	ix->a = n;
	ix->b = kbuild_arg(b, e->b);
	if (!n->t.ptr) {
		b->err = true;
		return ix;
	}
	ix->t = (struct ktype){ .size = n->t.el ? n->t.el : 1, .sign = n->t.sign || n->t.chr };
	if (ix->t.size != 1 && ix->t.size != 2 && ix->t.size != 4 && ix->t.size != 8)
		b->err = true;
	return ix;
}

struct knode *kbuild_arg(struct kbuild *b, const struct tfile_expr *e)
{
	struct tep_format_field *f;
	struct knode *n;
	size_t len;

	if (b->err)
		return node(b, N_CONST);
	switch (e->k) {
	case TX_NUM:
		return number(b, e->num, e->s[0] != '0', e->num_u, e->num_l);
	case TX_CHAR:
		return character(b, e);
	case TX_STR:
		n = node(b, N_STR);
		n->s = kbuild_str(b, e->s, e->n, &len);
		n->len = len;
		n->t = (struct ktype){ .size = b->env->long_size, .ptr = 1, .chr = 1, .el = 1 };
		return n;
	case TX_NAME:
		return name(b, e);
	case TX_FIELD:
		/* (REC)->x is the checker's, not the kernel's. */
		if (e->paren || !(f = find_field(b, e->s, e->n)))
			return fail(b);
		return field_node(b, f);
	case TX_CALL:
		return build_call(b, e);
	case TX_CAST:
		return build_cast(b, e);
	case TX_SIZEOF:
		return build_sizeof(b, e);
	case TX_UNARY:
		return build_unary(b, e);
	case TX_BINARY:
		return build_chain(b, e);
	case TX_COND:
		return build_cond(b, e);
	case TX_INDEX:
		return build_index(b, e);
	case TX_STMT:
		return build_stmt(b, e);
	case TX_REC:
	case TX_MEMBER:
	case TX_ENTRY:
	case TX_DECL:
		break;
	}
	return fail(b);
}

/* ---- evaluation ---- */


bool keval_num(struct ectx *c, const struct knode *n, uint64_t *v)
{
	struct kval k;

	if (!keval(c, n, &k))
		return false;
	if (k.p && !k.t.ptr)
		return false;
	*v = k.p ? (uint64_t)(uintptr_t)k.p : k.v;
	return !k.p;
}

bool kdyn_span(struct ectx *c, const struct knode *n, const uint8_t **p, uint32_t *len)
{
	uint32_t v, off;

	if ((uint64_t)n->off + 4 > c->r->size)
		return false;
	v = (uint32_t)krd(c, c->r->data + n->off, 4, false);
	off = (v & 0xffff) + (n->rel ? (uint32_t)n->off + 4 : 0);
	*len = v >> 16;
	if ((uint64_t)off + *len > c->r->size)
		return false;
	*p = c->r->data + off;
	return true;
}



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

		if (!keval_num(c, n->args[0], &v))
			return false;
		if (n->sub == H_FLAGS && c->env->long_size == 4)
			v = (uint32_t)v;
		for (int i = 0; i < n->nent && n->ent[i].name && v; i++) {
			if (!keval_num(c, n->ent[i].val, &m))
				return false;
			if (n->sub == H_FLAGS && c->env->long_size == 4)
				m = (uint32_t)m;
			if ((v & m) != m)
				continue;
			v &= ~m;
			if (!first && n->delim)
				kput(o, n->delim, strlen(n->delim));
			first = false;
			kput(o, n->ent[i].name, strlen(n->ent[i].name));
		}
		if (v) {
			if (!first && n->delim)
				kput(o, n->delim, strlen(n->delim));
			fmt_line_printf(o, "0x%llx", (unsigned long long)v);
		}
		break;
	}
	case H_SYMBOLIC:
	case H_SYMBOLIC_U64:
		if (!keval_num(c, n->args[0], &v))
			return false;
		if (n->sub == H_SYMBOLIC && c->env->long_size == 4)
			v = (uint32_t)v;
		for (int i = 0; i < n->nent && n->ent[i].name; i++) {
			if (!keval_num(c, n->ent[i].val, &m))
				return false;
			if (n->sub == H_SYMBOLIC && c->env->long_size == 4)
				m = (uint32_t)m;
			if (v != m)
				continue;
			kput(o, n->ent[i].name, strlen(n->ent[i].name));
			break;
		}
		/* Nothing written (no match, or an empty name): the number. */
		if (o->len == start)
			fmt_line_printf(o, "0x%llx", (unsigned long long)v);
		break;
	case H_HEX:
	case H_HEX_STR: {
		uint64_t len;

		if (!keval(c, n->args[0], &a) || !keval_num(c, n->args[1], &len))
			return false;
		if (!a.p || len > a.n)
			return false;
		for (uint64_t i = 0; i < len; i++) {
			if (n->sub == H_HEX && i)
				kput(o, " ", 1);
			fmt_line_printf(o, "%02x", a.p[i]);
		}
		break;
	}
	case H_ARRAY: {
		uint64_t count, el;
		const char *prefix = "";

		if (!keval(c, n->args[0], &a) || !keval_num(c, n->args[1], &count) ||
		    !keval_num(c, n->args[2], &el))
			return false;
		if (!a.p && count)
			return false;
		kput(o, "{", 1);
		for (uint64_t i = 0; i < count; i++) {
			if ((el != 1 && el != 2 && el != 4 && el != 8) || (i + 1) * el > a.n) {
				if (el == 1 || el == 2 || el == 4 || el == 8)
					return false;
				fmt_line_printf(o, "%sBAD SIZE:%llu 0x%x", prefix, (unsigned long long)el,
					 a.n > i * el ? a.p[i * el] : 0);
				break;
			}
			v = krd(c, a.p + i * el, el, false);
			fmt_line_printf(o, "%s0x%llx", prefix, (unsigned long long)v);
			prefix = ",";
		}
		kput(o, "}", 1);
		break;
	}
	case H_DYN_LEN: {
		const uint8_t *p;
		uint32_t len;

		if (!kdyn_span(c, n->args[0], &p, &len))
			return false;
		kval_num(out, len, n->t);
		return true;
	}
	case H_BITMASK:
	case H_CPUMASK: {
		const uint8_t *p;
		uint32_t len;

		if (!kdyn_span(c, n->args[0], &p, &len))
			return false;
		/* A cpumask prints as any bitmask does, in hex. */
		kput_bitmap(o, p, len, c);
		break;
	}
	case H_MC_ERR_TYPE: {
		/* include/linux/edac.h's, by enum hw_event_mc_err_type. */
		static const char *const names[] = { "Corrected", "Uncorrected", "Deferred", "Fatal" };
		const char *name;

		if (!keval_num(c, n->args[0], &v))
			return false;
		name = (uint32_t)v < 4 ? names[(uint32_t)v] : "Info";
		kput(o, name, strlen(name));
		break;
	}
	case H_JIFFIES_MSECS:
		if (!keval_num(c, n->args[0], &v) || !c->env->hz)
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

bool kin_scratch(const struct ectx *c, const struct kval *k)
{
	return k->p == (const uint8_t *)c->scratch;
}

bool keval(struct ectx *c, const struct knode *n, struct kval *out)
{
	struct kval a, b;
	uint64_t l, r;

	switch (n->op) {
	case N_CONST:
		kval_num(out, n->v, n->t);
		return true;
	case N_STR:
		kval_mem(out, (const uint8_t *)n->s, n->len + 1, n->t);
		return true;
	case N_FIELD:
		return keval_field(c, n, out);
	case N_DYN: {
		const uint8_t *p;
		uint32_t len;

		if (!kdyn_span(c, n, &p, &len))
			return false;
		kval_mem(out, p, len, n->t);
		return true;
	}
	case N_LOCAL:
		if (n->sub) {
			kval_num(out, c->locals[n->v & 63], n->t);
			return true;
		}
		if (!keval_num(c, n->a, &l))
			return false;
		c->locals[n->v & 63] = kconv_to(l, n->t);
		kval_num(out, c->locals[n->v & 63], n->t);
		return true;
	case N_SEQ:
		for (int i = 0; i < n->nargs; i++)
			if (!keval(c, n->args[i], out))
				return false;
		return true;
	case N_UNKNOWN:
		if (!strcmp(n->s, "vmemmap_base") && c->env->vmemmap) {
			kval_num(out, c->env->vmemmap, n->t);
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
		if (!keval(c, n->a, &a))
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
		kval_num(out, kconv_to(a.v, n->t), n->t);
		return true;
	case N_NEG:
	case N_BNOT:
		if (!keval_num(c, n->a, &l))
			return false;
		kval_num(out, kconv_to(n->op == N_NEG ? -l : ~l, n->t), n->t);
		return true;
	case N_LNOT:
		if (!keval(c, n->a, &a))
			return false;
		kval_num(out, a.p ? 0 : !a.v, n->t);
		return true;
	case N_COND:
		if (!keval(c, n->a, &a))
			return false;
		if (!keval(c, (a.p || a.v) ? n->b : n->c, out))
			return false;
		if (!out->p && !out->t.ptr && !n->t.ptr)
			out->v = kconv_to(out->v, n->t), out->t = n->t;
		return true;
	case N_INDEX:
		if (!keval(c, n->a, &a) || !keval_num(c, n->b, &r))
			return false;
		if (!a.p || kin_scratch(c, &a))
			return false;
		if ((r + 1) * n->t.size > a.n)
			return false;
		*out = (struct kval){ .v = krd(c, a.p + r * n->t.size, n->t.size, n->t.sign),
				      .t = n->t };
		return true;
	case N_ADDR:
		if ((uint64_t)n->a->off + n->a->size > c->r->size)
			return false;
		kval_mem(out, c->r->data + n->a->off, n->a->size, n->t);
		return true;
	case N_CALL:
		return helper(c, n, out);
	case N_BIN:
		if (n->sub == B_LAND || n->sub == B_LOR) {
			if (!keval(c, n->a, &a))
				return false;
			l = a.p || a.v;
			if ((n->sub == B_LAND && !l) || (n->sub == B_LOR && l)) {
				kval_num(out, l, n->t);
				return true;
			}
			if (!keval(c, n->b, &b))
				return false;
			kval_num(out, b.p || b.v, n->t);
			return true;
		}
		if (!keval(c, n->a, &a) || !keval(c, n->b, &b))
			return false;
		if (a.p || b.p) {
			/* Pointer arithmetic on the record's data: offsets into it. */
			if ((n->sub == B_ADD || n->sub == B_SUB) && a.p && !b.p && !kin_scratch(c, &a)) {
				int64_t d = (int64_t)b.v * (a.t.el ? a.t.el : 1);

				if (n->sub == B_SUB)
					d = -d;
				if (d < 0 || (uint64_t)d > a.n)
					return false;
				kval_mem(out, a.p + d, a.n - d, a.t);
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
			struct ktype ct = n->ct.size ? n->ct : karith(a.t, b.t);
			bool sg = ct.sign && !a.t.ptr && !b.t.ptr;
			uint64_t v = 0;

			if (!a.t.ptr)
				l = kconv_to(l, n->sub == B_SHL || n->sub == B_SHR ? kpromote(a.t) : ct);
			if (!b.t.ptr && n->sub != B_SHL && n->sub != B_SHR)
				r = kconv_to(r, ct);
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
				if (r >= (uint64_t)kpromote(a.t).size * 8)
					return false;
				v = l << r;
				break;
			case B_SHR:
				if (r >= (uint64_t)kpromote(a.t).size * 8)
					return false;
				v = kpromote(a.t).sign ? (uint64_t)((int64_t)l >> r) : l >> r;
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
			kval_num(out, n->t.ptr ? v : kconv_to(v, n->t), n->t);
		}
		return true;
	}
	return false;
}

static bool keval_const(const struct knode *n, uint64_t *v)
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
	if (!keval(&c, n, &k) || k.p)
		return false;
	*v = k.v;
	return true;
}
