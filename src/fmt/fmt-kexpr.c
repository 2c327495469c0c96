// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's printer's arguments: the C expressions of a print fmt
 * (fields, casts, arithmetic, "? :", statement expressions, the helpers
 * __print_flags, __print_symbolic, __print_hex, __print_array, __get_str,
 * __get_bitmask, ...) parsed into trees, and evaluated per record with C's
 * types: integer promotion, the usual arithmetic conversions, casts and
 * pointer arithmetic.  Constant subtrees are folded when parsing.  Names
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
#include "tfile-format.h"

/* ---- the tokens ---- */

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

/*
 * The next token, read by the trace file layer's tokenizer (tfile-format.h)
 * and decoded for the compiler: adjacent string literals are one ("#" "DE"),
 * escapes are decoded, a character constant is its number.
 */
void klex_next(struct lex *x)
{
	struct tfile_lex l = { .p = x->s, .end = x->end };

	tfile_lex_next(&l);
	x->t = (struct tok){ .s = l.s, .n = l.n };
	x->s = l.p;
	if (l.failed) {
		x->err = true;
		x->t = (struct tok){ .k = T_END, .s = x->end };
		x->s = x->end;
		return;
	}
	switch (l.t) {
	case TFILE_TOK_END:
		x->t.k = T_END;
		break;
	case TFILE_TOK_NUM:
		x->t.k = T_NUM;
		x->t.v = l.num;
		x->t.u = l.num_u;
		x->t.l = l.num_l;
		break;
	case TFILE_TOK_IDENT:
		x->t.k = T_ID;
		break;
	case TFILE_TOK_OP:
		x->t.k = T_P;
		break;
	case TFILE_TOK_STR: {
		char *buf = NULL;
		size_t len = 0;

		for (;;) {
			struct tfile_lex peek = l;

			append_literal(&buf, &len, l.s, l.n);
			x->s = l.p;
			tfile_lex_next(&peek);
			if (peek.failed || peek.t != TFILE_TOK_STR)
				break;
			l = peek;
		}
		x->t.k = T_STR;
		x->t.s = buf;
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
		break;
	}
	case TFILE_TOK_CHAR: {
		const char *s = l.s, *stop;
		char c[8];
		size_t span = s[1] == '\\' ? (s[2] == 'x' ? 4 : 2) : 1;
		int n = unescape(s + 1, s + 1 + span, c, &stop);

		/* One character, or one escape: '\n', '\x1b', '\0'. */
		x->t = (struct tok){ .k = T_NUM, .s = l.s,
				     .v = n ? (uint64_t)(int64_t)(signed char)c[0] : 0 };
		if (stop != l.s + l.n - 1)
			x->err = true;
		break;
	}
	}
}

bool klex_is(const struct lex *x, const char *p)
{
	return x->t.k == T_P && x->t.n == strlen(p) && !strncmp(x->t.s, p, x->t.n);
}

static bool is_id(const struct lex *x, const char *id)
{
	return x->t.k == T_ID && x->t.n == strlen(id) && !strncmp(x->t.s, id, x->t.n);
}

bool klex_expect(struct lex *x, const char *p)
{
	if (!klex_is(x, p)) {
		x->err = true;
		return false;
	}
	klex_next(x);
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
			klex_next(x);
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

			klex_next(x);
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
		klex_next(x);
	}
	if (!any) {
		*ok = false;
		return t;
	}
	if (longs)
		t.size = longs > 1 ? 8 : x->env->long_size;
	if (un)
		t.sign = false;
	while (klex_is(x, "*")) {
		unsigned el = t.ptr ? (unsigned)x->env->long_size : vd ? 1 : t.size;

		if (!t.ptr && sname[0]) {
			el = x->env->struct_size ? x->env->struct_size(x->env->ctx, sname) : 0;
			if (!el && !strcmp(sname, "page"))
				el = x->env->page_struct;
		}
		t = (struct ktype){ .size = x->env->long_size, .ptr = 1, .chr = !t.ptr && chr,
				    .el = el };
		klex_next(x);
		while (is_qualifier(x))
			klex_next(x);
	}
	return t;
}

/* ---- nodes ---- */

static struct knode *node(struct lex *x, enum nop op)
{
	struct knode *n = kprog_mem(x->p, sizeof(*n));

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

static struct knode *parse_expr(struct lex *x);
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

	if (!klex_expect(x, "(") || x->t.k != T_ID) {
		x->err = true;
		return NULL;
	}
	f = find_field(x, x->t.s, x->t.n);
	klex_next(x);
	if (!f || !klex_expect(x, ")")) {
		x->err = true;
		return NULL;
	}
	return f;
}

/* { VAL, "NAME" }, ... ) of __print_flags and __print_symbolic. */
static void parse_table(struct lex *x, struct knode *n)
{
	int cap = 0;

	while (klex_is(x, ",")) {
		klex_next(x);
		if (!klex_is(x, "{"))
			break;
		klex_next(x);
		if (klex_is(x, "}")) {		/* "{ }": an empty table */
			klex_next(x);
			continue;
		}
		if (n->nent == cap) {
			cap = cap ? cap * 2 : 16;
			{
				struct kentry *e = kprog_mem(x->p, cap * sizeof(*e));

				if (n->nent)
					memcpy(e, n->ent, n->nent * sizeof(*e));
				n->ent = e;
			}
		}
		n->ent[n->nent].val = kparse_arg(x);
		if (!klex_expect(x, ","))
			return;
		if (x->t.k == T_STR) {
			n->ent[n->nent].name = x->t.s;
			klex_next(x);
		} else {
			/* NULL or ((void *)0): the end of the table. */
			struct knode *end = kparse_arg(x);

			if (end->op != N_CONST || end->v) {
				x->err = true;
				return;
			}
			n->ent[n->nent].name = NULL;
		}
		n->nent++;
		if (!klex_expect(x, "}"))
			return;
	}
	klex_expect(x, ")");
}

static struct knode *call(struct lex *x, enum helper h, int nargs)
{
	struct knode *n = node(x, N_CALL);

	n->sub = h;
	n->nargs = nargs;
	n->args = kprog_mem(x->p, (nargs + 1) * sizeof(*n->args));
	return n;
}

static struct knode *parse_args_into(struct lex *x, struct knode *n)
{
	if (!klex_expect(x, "("))
		return n;
	for (int i = 0; i < n->nargs; i++) {
		n->args[i] = kparse_arg(x);
		if (i + 1 < n->nargs && !klex_expect(x, ","))
			return n;
	}
	klex_expect(x, ")");
	return n;
}

static struct knode *parse_call(struct lex *x, const char *name, size_t len)
{
	struct tep_format_field *f;
	struct knode *n;
	bool rel;
	enum tfile_helper h = tfile_helper_find(name, len, &rel);

	switch (h) {
	case TFILE_H_PRINT_FLAGS:
	case TFILE_H_PRINT_FLAGS_U64:
		n = call(x, h == TFILE_H_PRINT_FLAGS ? H_FLAGS : H_FLAGS_U64, 1);
		if (!klex_expect(x, "("))
			return n;
		n->args[0] = kparse_arg(x);
		if (!klex_expect(x, ","))
			return n;
		if (x->t.k == T_STR) {
			n->delim = x->t.s;
			klex_next(x);
		} else {
			n->delim = NULL;
			kparse_arg(x);
		}
		parse_table(x, n);
		return n;
	case TFILE_H_PRINT_SYMBOLIC:
	case TFILE_H_PRINT_SYMBOLIC_U64:
		n = call(x, h == TFILE_H_PRINT_SYMBOLIC ? H_SYMBOLIC : H_SYMBOLIC_U64, 1);
		if (!klex_expect(x, "("))
			return n;
		n->args[0] = kparse_arg(x);
		parse_table(x, n);
		return n;
	case TFILE_H_PRINT_HEX:
	case TFILE_H_PRINT_HEX_STR:
		return parse_args_into(x, call(x, h == TFILE_H_PRINT_HEX ? H_HEX : H_HEX_STR, 2));
	case TFILE_H_PRINT_ARRAY:
		return parse_args_into(x, call(x, H_ARRAY, 3));
	case TFILE_H_JIFFIES_TO_MSECS:
		return parse_args_into(x, call(x, H_JIFFIES_MSECS, 1));
	case TFILE_H_MC_EVENT_ERROR_TYPE:
		n = parse_args_into(x, call(x, H_MC_ERR_TYPE, 1));
		n->t = (struct ktype){ .size = x->env->long_size, .ptr = 1, .chr = 1, .el = 1 };
		return n;
	case TFILE_H_GET_STR:
	case TFILE_H_GET_DYNAMIC_ARRAY:
	case TFILE_H_GET_SOCKADDR:
		f = paren_field(x);
		if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC)) {
			x->err = true;
			return node(x, N_CONST);
		}
		n = field_node(x, f);
		if (h == TFILE_H_GET_STR)
			n->t.chr = 1;
		return n;
	case TFILE_H_GET_DYNAMIC_ARRAY_LEN:
		f = paren_field(x);
		if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC)) {
			x->err = true;
			return node(x, N_CONST);
		}
		n = call(x, H_DYN_LEN, 1);
		n->args[0] = field_node(x, f);
		n->t = (struct ktype){ .size = 4, .sign = true };
		return n;
	case TFILE_H_GET_BITMASK:
	case TFILE_H_GET_CPUMASK:
		f = paren_field(x);
		if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC)) {
			x->err = true;
			return node(x, N_CONST);
		}
		n = call(x, h == TFILE_H_GET_CPUMASK ? H_CPUMASK : H_BITMASK, 1);
		n->args[0] = field_node(x, f);
		n->t = (struct ktype){ .size = x->env->long_size, .ptr = 1, .chr = 1, .el = 1 };
		return n;
	case TFILE_H_BUILTIN_EXPECT: {
		struct knode *v;

		if (!klex_expect(x, "("))
			return node(x, N_CONST);
		v = kparse_arg(x);
		if (klex_expect(x, ","))
			kparse_arg(x);
		klex_expect(x, ")");
		return v;
	}
	case TFILE_H_PRINT_DYNAMIC_ARRAY:
	case TFILE_H_NONE:
		break;
	}
	x->err = true;
	return node(x, N_CONST);
}

static bool is_const(const struct knode *n)
{
	return n->op == N_CONST;
}

static bool keval_const(const struct knode *n, uint64_t *v);

/* Fold what is constant: the value of n's tree if every leaf is a number. */
static struct knode *fold(struct lex *x, struct knode *n)
{
	uint64_t v;

	if (n->op != N_CONST && n->op != N_STR && (!n->t.ptr || n->op == N_CAST) &&
	    keval_const(n, &v))
		return konst(x, v, n->t);
	return n;
}

/* A statement expression: ({ TYPE NAME = EXPR; ... EXPR; }) */
static struct knode *parse_stmt_expr(struct lex *x)
{
	struct knode *seq = node(x, N_SEQ);
	struct knode *list[32];
	int n = 0, base = x->nloc;

	while (!x->err && !klex_is(x, "}")) {
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
			klex_next(x);
			if (!klex_expect(x, "="))
				break;
			{
				struct knode *set = node(x, N_LOCAL);

				set->v = x->loc[x->nloc].slot;
				set->a = kparse_arg(x);
				set->t = t;
				list[n++] = set;
			}
			x->nloc++;
			klex_expect(x, ";");
		} else {
			if (n >= 30) {
				x->err = true;
				break;
			}
			list[n++] = parse_expr(x);
			klex_expect(x, ";");
		}
	}
	klex_expect(x, "}");
	x->nloc = base;
	if (!n) {
		x->err = true;
		return seq;
	}
	seq->nargs = n;
	seq->args = kprog_mem(x->p, n * sizeof(*seq->args));
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
		klex_next(x);
		return n;
	}
	case T_STR:
		n = node(x, N_STR);
		n->s = x->t.s;
		n->len = x->t.n;
		n->t = (struct ktype){ .size = x->env->long_size, .ptr = 1, .chr = 1, .el = 1 };
		klex_next(x);
		return n;
	case T_ID: {
		const char *name = x->t.s;
		size_t len = x->t.n;

		klex_next(x);
		if (len == 3 && !strncmp(name, "REC", 3)) {
			struct tep_format_field *f;

			if (!klex_is(x, "->") && !klex_is(x, ".")) {
				x->err = true;
				return node(x, N_CONST);
			}
			klex_next(x);
			if (x->t.k != T_ID) {
				x->err = true;
				return node(x, N_CONST);
			}
			f = find_field(x, x->t.s, x->t.n);
			klex_next(x);
			if (!f) {
				x->err = true;
				return node(x, N_CONST);
			}
			return field_node(x, f);
		}
		if (klex_is(x, "("))
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
			n->s = kprog_mem(x->p, len + 1);
			memcpy((char *)n->s, name, len);
			if (!strcmp(buf, "jiffies") || !strcmp(buf, "vmemmap_base"))
				n->t = long_type(x, false);
			return n;
		}
	}
	case T_P:
		if (klex_is(x, "(")) {
			klex_next(x);
			if (klex_is(x, "{")) {
				klex_next(x);
				n = parse_stmt_expr(x);
				klex_expect(x, ")");
				return n;
			}
			n = parse_expr(x);
			klex_expect(x, ")");
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

	while (!x->err && klex_is(x, "[")) {
		struct knode *ix = node(x, N_INDEX);

		klex_next(x);
		ix->a = n;
		ix->b = parse_expr(x);
		klex_expect(x, "]");
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

/*
 * Deeper than any kernel print fmt (they nest a few levels): a hostile or
 * broken format must fail here, not exhaust the stack.
 */
#define KPARSE_MAX_DEPTH 200

static struct knode *parse_unary_1(struct lex *x);

static struct knode *parse_unary(struct lex *x)
{
	struct knode *n;

	if (++x->depth > KPARSE_MAX_DEPTH) {
		x->err = true;
		n = node(x, N_CONST);
	} else {
		n = parse_unary_1(x);
	}
	x->depth--;
	return n;
}

static struct knode *parse_unary_1(struct lex *x)
{
	struct knode *n;

	if (x->err)
		return node(x, N_CONST);
	if (klex_is(x, "-") || klex_is(x, "~") || klex_is(x, "!") || klex_is(x, "+")) {
		char c = x->t.s[0];

		klex_next(x);
		if (c == '+')
			return parse_unary(x);
		n = node(x, c == '-' ? N_NEG : c == '~' ? N_BNOT : N_LNOT);
		n->a = parse_unary(x);
		n->t = c == '!' ? (struct ktype){ .size = 4, .sign = true } : kpromote(n->a->t);
		return fold(x, n);
	}
	if (klex_is(x, "&")) {
		klex_next(x);
		n = node(x, N_ADDR);
		n->a = parse_unary(x);
		if (n->a->op != N_FIELD) {
			x->err = true;
			return n;
		}
		n->t = (struct ktype){ .size = x->env->long_size, .ptr = 1, .el = n->a->t.size };
		return n;
	}
	if (klex_is(x, "*")) {
		/* Dereference: only of the record's own data (an array's first element). */
		klex_next(x);
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

		klex_next(x);
		if (!klex_expect(x, "("))
			return node(x, N_CONST);
		if (type_starts(x)) {
			bool ptr;

			t = parse_type(x, &ok);
			ptr = t.ptr;
			klex_expect(x, ")");
			if (!ok)
				x->err = true;
			return konst(x, ptr ? (uint64_t)x->env->long_size : t.size, long_type(x, false));
		}
		n = parse_expr(x);
		klex_expect(x, ")");
		if (n->op == N_FIELD && !n->t.ptr)
			return konst(x, n->size, long_type(x, false));
		if (n->op == N_FIELD)
			return konst(x, n->size, long_type(x, false));
		return konst(x, n->t.size, long_type(x, false));
	}
	if (klex_is(x, "(")) {
		/* A cast, or a parenthesized expression. */
		const char *save = x->s;
		struct tok st = x->t;

		klex_next(x);
		if (type_starts(x)) {
			bool ok;
			struct ktype t = parse_type(x, &ok);

			if (ok && klex_is(x, ")")) {
				klex_next(x);
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
		if (klex_is(x, binops[i].p))
			return i;
	return -1;
}

static struct knode *parse_bin(struct lex *x, int minprec)
{
	struct knode *l = parse_unary(x);
	int i;

	while (!x->err && (i = binop(x)) >= 0 && binops[i].prec >= minprec) {
		struct knode *n = node(x, N_BIN);

		klex_next(x);
		n->sub = binops[i].op;
		n->a = l;
		n->b = parse_bin(x, binops[i].prec + 1);
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
				n->t = long_type(x, true);
			else if (n->a->t.ptr || n->b->t.ptr)
				n->t = n->a->t.ptr ? n->a->t : n->b->t;
			else
				n->t = karith(n->a->t, n->b->t);
			break;
		default:
			n->t = karith(n->a->t, n->b->t);
		}
		l = fold(x, n);
	}
	return l;
}

static struct knode *parse_cond(struct lex *x)
{
	struct knode *c = parse_bin(x, 1);

	if (!x->err && klex_is(x, "?")) {
		struct knode *n = node(x, N_COND);

		klex_next(x);
		n->a = c;
		n->b = parse_expr(x);
		klex_expect(x, ":");
		n->c = parse_cond(x);
		if (n->b->t.ptr || n->b->op == N_STR)
			n->t = n->b->t;
		else if (n->c->t.ptr || n->c->op == N_STR)
			n->t = n->c->t;
		else
			n->t = karith(n->b->t, n->c->t);
		if (is_const(c)) {
			uint64_t v = c->v;

			return v ? n->b : n->c;
		}
		return n;
	}
	return c;
}

struct knode *kparse_arg(struct lex *x)
{
	return parse_cond(x);
}

static struct knode *parse_expr(struct lex *x)
{
	struct knode *n = kparse_arg(x);

	/* The comma operator is not in print fmts (it separates arguments). */
	return n;
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
