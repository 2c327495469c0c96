// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The print fmt's grammar (tfile-expr.h, tfile-format.h): its tokens, the
 * names of its helpers, and the parser of its argument list into a tree,
 * for the format checker (tfile-format.c) and the kernel printer's
 * compiler (fmt/fmt-kexpr.c).
 *
 * The grammar is the one libtraceevent's parser accepts (event-parse.c,
 * process_arg and friends), with what the kernel printer evaluates besides
 * (statement expressions, sizeof of an expression, REC.field) when its
 * reader of type names is given.  The parser fails a text on its syntax
 * and its limits only: which names are fields, which values are safe and
 * what a type means are the readers' checks.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfile-expr.h"
#include "tfile-format.h"
#include "tr.h"

#define UNBOUNDED UINT64_MAX

/* ---- tokens (tfile-format.h) ---- */

void tfile_lex_fail(struct tfile_lex *l, const char *fmt, ...)
{
	va_list ap;

	if (l->failed)
		return;
	l->failed = true;
	if (!l->whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(l->why, l->whylen, fmt, ap);
	va_end(ap);
}

void tfile_lex_next(struct tfile_lex *c)
{
	static const char *const ops2[] = { "->", "<<", ">>", "<=", ">=", "==", "!=", "&&",
					    "||", "++", "--" };
	const char *p = c->p;

	if (c->failed) {
		c->t = TFILE_TOK_END;
		return;
	}
	while (p < c->end && isspace((unsigned char)*p))
		p++;
	c->s = p;
	if (p == c->end) {
		c->t = TFILE_TOK_END;
		c->n = 0;
		c->p = p;
		return;
	}
	if (c->max_tokens && ++c->ntokens > c->max_tokens) {
		tfile_lex_fail(c, "more than %d tokens", c->max_tokens);
		c->t = TFILE_TOK_END;
		return;
	}
	if (*p == '"' || *p == '\'') {
		char q = *p++;

		while (p < c->end && *p != q)
			p += *p == '\\' && p + 1 < c->end ? 2 : 1;
		if (p >= c->end) {
			tfile_lex_fail(c, "unterminated %s", q == '"' ? "string" : "character");
			c->t = TFILE_TOK_END;
			return;
		}
		p++;
		c->t = q == '"' ? TFILE_TOK_STR : TFILE_TOK_CHAR;
	} else if (isdigit((unsigned char)*p)) {
		char *e;

		errno = 0;
		c->num = strtoull(p, &e, 0);
		if (errno)
			c->num = UNBOUNDED;
		p = e;
		c->num_u = c->num_l = false;
		/* Suffixes: 1000ULL, 10u. */
		while (p < c->end && (*p == 'u' || *p == 'U' || *p == 'l' || *p == 'L')) {
			if (*p == 'u' || *p == 'U')
				c->num_u = true;
			else
				c->num_l = true;
			p++;
		}
		if (p < c->end && (isalnum((unsigned char)*p) || *p == '_' || *p == '.')) {
			tfile_lex_fail(c, "bad number '%.*s'", (int)(p - c->s + 1), c->s);
			c->t = TFILE_TOK_END;
			return;
		}
		c->t = TFILE_TOK_NUM;
	} else if (isalpha((unsigned char)*p) || *p == '_') {
		while (p < c->end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		c->t = TFILE_TOK_IDENT;
	} else {
		c->t = TFILE_TOK_OP;
		p++;
		for (size_t i = 0; i < ARRAY_SIZE(ops2); i++)
			if (c->end - c->s >= 2 && !memcmp(c->s, ops2[i], 2)) {
				p = c->s + 2;
				break;
			}
		if (p == c->s + 1 && !strchr("+-*/%&|^~!?:,()[]{}.<>=;", *c->s)) {
			tfile_lex_fail(c, "unexpected character 0x%02x", (unsigned char)*c->s);
			c->t = TFILE_TOK_END;
			return;
		}
	}
	c->n = p - c->s;
	c->p = p;
}

bool tfile_lex_is(const struct tfile_lex *l, const char *op)
{
	return l->t == TFILE_TOK_OP && l->n == strlen(op) && !memcmp(l->s, op, l->n);
}

/* ---- helpers (tfile-format.h) ---- */

enum tfile_helper tfile_helper_find(const char *name, size_t n, bool *rel)
{
	static const struct {
		const char *name;
		enum tfile_helper h;
	} helpers[] = {
		{ "__print_flags", TFILE_H_PRINT_FLAGS },
		{ "__print_flags_u64", TFILE_H_PRINT_FLAGS_U64 },
		{ "__print_symbolic", TFILE_H_PRINT_SYMBOLIC },
		{ "__print_symbolic_u64", TFILE_H_PRINT_SYMBOLIC_U64 },
		{ "__print_hex", TFILE_H_PRINT_HEX },
		{ "__print_hex_str", TFILE_H_PRINT_HEX_STR },
		{ "__print_array", TFILE_H_PRINT_ARRAY },
		{ "__print_dynamic_array", TFILE_H_PRINT_DYNAMIC_ARRAY },
		{ "str", TFILE_H_GET_STR },
		{ "bitmask", TFILE_H_GET_BITMASK },
		{ "cpumask", TFILE_H_GET_CPUMASK },
		{ "dynamic_array", TFILE_H_GET_DYNAMIC_ARRAY },
		{ "dynamic_array_len", TFILE_H_GET_DYNAMIC_ARRAY_LEN },
		{ "sockaddr", TFILE_H_GET_SOCKADDR },
		{ "jiffies_to_msecs", TFILE_H_JIFFIES_TO_MSECS },
		{ "mc_event_error_type", TFILE_H_MC_EVENT_ERROR_TYPE },
		{ "__builtin_expect", TFILE_H_BUILTIN_EXPECT },
	};
	bool get = false;

	*rel = false;
	/* __get_X and __get_rel_X: the table holds X (the entries that are not names of their own). */
	if (n > 10 && !memcmp(name, "__get_rel_", 10)) {
		*rel = get = true;
		name += 10, n -= 10;
	} else if (n > 6 && !memcmp(name, "__get_", 6)) {
		get = true;
		name += 6, n -= 6;
	}
	for (size_t i = 0; i < ARRAY_SIZE(helpers); i++)
		if (get == (helpers[i].h >= TFILE_H_GET_STR && helpers[i].h <= TFILE_H_GET_SOCKADDR) &&
		    n == strlen(helpers[i].name) && !memcmp(name, helpers[i].name, n))
			return helpers[i].h;
	*rel = false;
	return TFILE_H_NONE;
}

/* ---- the tree (tfile-expr.h) ---- */

/* Nodes in blocks, freed at once: a hostile text's tree is as big as its tokens allow. */
struct tfile_expr_mem {
	struct tfile_expr_mem *next;
	size_t used, cap;
	max_align_t data[];
};

struct px {
	struct tfile_lex x;
	int depth;
	const struct tfile_expr_opts *o;
	struct tfile_print *pr;
};

static void *px_mem(struct px *c, size_t n)
{
	struct tfile_expr_mem *m = c->pr->mem;
	void *p;

	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!m || m->used + n > m->cap) {
		size_t cap = n > 16384 ? n : 16384;

		m = xmalloc(sizeof(*m) + cap);
		m->next = c->pr->mem;
		m->used = 0;
		m->cap = cap;
		c->pr->mem = m;
	}
	p = (char *)m->data + m->used;
	m->used += n;
	memset(p, 0, n);
	return p;
}

static struct tfile_expr *mk(struct px *c, enum tfile_expr_kind k, const char *s, size_t n)
{
	struct tfile_expr *e = px_mem(c, sizeof(*e));

	e->k = k;
	e->s = s;
	e->n = n;
	return e;
}

/* Arguments collected one by one: copied into the tree once their number is known. */
struct list {
	struct tfile_expr **v;
	int n, cap;
};

static void list_add(struct list *l, struct tfile_expr *e)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = e;
}

static void list_to(struct px *c, struct list *l, struct tfile_expr *e)
{
	e->nargs = l->n;
	e->args = px_mem(c, (l->n + 1) * sizeof(*e->args));
	if (l->n)
		memcpy(e->args, l->v, l->n * sizeof(*l->v));
	free(l->v);
	*l = (struct list){ 0 };
}

#define fail(c, ...) tfile_lex_fail(&(c)->x, __VA_ARGS__)

static bool is_op(const struct px *c, const char *op)
{
	return tfile_lex_is(&c->x, op);
}

static bool is_ident(const struct px *c, const char *id)
{
	return c->x.t == TFILE_TOK_IDENT && c->x.n == strlen(id) && !memcmp(c->x.s, id, c->x.n);
}

static void next(struct px *c)
{
	tfile_lex_next(&c->x);
}

static bool expect(struct px *c, const char *op)
{
	if (is_op(c, op)) {
		next(c);
		return true;
	}
	/* The text is not NUL-terminated: at most what is left of it. */
	if (c->x.t == TFILE_TOK_END)
		fail(c, "expected '%s' at 'the end'", op);
	else
		fail(c, "expected '%s' at '%.*s'", op,
		     (int)(c->x.end - c->x.s < 20 ? c->x.end - c->x.s : 20), c->x.s);
	return false;
}

/* A string: adjacent literals are one, kept as written. */
static struct tfile_expr *strings(struct px *c)
{
	struct tfile_expr *e = mk(c, TX_STR, c->x.s, 0);
	const char *end = c->x.s;

	while (c->x.t == TFILE_TOK_STR) {
		end = c->x.s + c->x.n;
		next(c);
	}
	e->n = end - e->s;
	return e;
}

static struct tfile_expr *expr(struct px *c);
static struct tfile_expr *unary(struct px *c);

/*
 * { value, "string" } entries of __print_flags and __print_symbolic (the
 * kernel also writes "{ }" and a terminating "{ -1, ((void *)0) }"), into l.
 */
static void entries(struct px *c, struct list *l)
{
	while (is_op(c, ",") && !c->x.failed) {
		struct tfile_expr *e;

		next(c);
		/* The kernel printer's reading ends the entries at anything else. */
		if (c->o->type && !is_op(c, "{"))
			return;
		e = mk(c, TX_ENTRY, c->x.s, 0);
		if (!expect(c, "{"))
			return;
		list_add(l, e);
		if (is_op(c, "}")) {
			next(c);
			continue;
		}
		e->a = expr(c);
		if (!expect(c, ","))
			return;
		e->b = c->x.t == TFILE_TOK_STR ? strings(c) : expr(c);
		expect(c, "}");
	}
}

/* A call: the name is the current token and '(' follows. */
static struct tfile_expr *call(struct px *c)
{
	struct tfile_expr *e = mk(c, TX_CALL, c->x.s, c->x.n);
	struct list l = { 0 };
	int fixed = 0;

	next(c);
	next(c);	/* the '(' */
	e->h = tfile_helper_find(e->s, e->n, &e->rel);
	if (e->n > 6 && !memcmp(e->s, "__get_", 6) && e->h != TFILE_H_NONE) {
		/* A __get_ helper's argument is a field's name. */
		if (c->x.t != TFILE_TOK_IDENT) {
			fail(c, "a __get_ helper without a field name");
		} else {
			list_add(&l, mk(c, TX_NAME, c->x.s, c->x.n));
			next(c);
			expect(c, ")");
		}
		list_to(c, &l, e);
		return e;
	}
	switch (e->h) {
	case TFILE_H_PRINT_FLAGS:
	case TFILE_H_PRINT_FLAGS_U64:
		/* __print_flags(val, delim, {..}...) */
		list_add(&l, expr(c));
		if (expect(c, ","))
			list_add(&l, c->x.t == TFILE_TOK_STR ? strings(c) : expr(c));
		entries(c, &l);
		expect(c, ")");
		list_to(c, &l, e);
		return e;
	case TFILE_H_PRINT_SYMBOLIC:
	case TFILE_H_PRINT_SYMBOLIC_U64:
		/* __print_symbolic(val, {..}...) */
		list_add(&l, expr(c));
		entries(c, &l);
		expect(c, ")");
		list_to(c, &l, e);
		return e;
	case TFILE_H_PRINT_HEX:
	case TFILE_H_PRINT_HEX_STR:
	case TFILE_H_PRINT_DYNAMIC_ARRAY:
		fixed = 2;
		break;
	case TFILE_H_PRINT_ARRAY:
		fixed = 3;
		break;
	default:
		break;
	}
	if (fixed) {
		for (int i = 0; i < fixed && !c->x.failed; i++) {
			if (i && !expect(c, ","))
				break;
			list_add(&l, expr(c));
		}
	} else if (!is_op(c, ")")) {
		for (;;) {
			list_add(&l, expr(c));
			if (c->x.failed || !is_op(c, ","))
				break;
			next(c);
		}
	}
	expect(c, ")");
	list_to(c, &l, e);
	return e;
}

/* The checker's reading: is this '(' a cast, only type words and '*' up to its ')'? */
static bool looks_like_cast(const struct px *c)
{
	const char *p = c->x.p;
	bool word = false, in_word = false;

	while (p < c->x.end && *p != ')') {
		if (isalnum((unsigned char)*p) || *p == '_') {
			if (isdigit((unsigned char)*p) && !in_word)
				return false;
			word = in_word = true;
		} else if (*p == '*' || isspace((unsigned char)*p)) {
			in_word = false;
		} else {
			return false;
		}
		p++;
	}
	/* "(REC)->x" is not a cast. */
	if (p >= c->x.end || !word || (p - c->x.p == 3 && !memcmp(c->x.p, "REC", 3)))
		return false;
	/* "(name)" alone is a parenthesised name unless a value follows it. */
	p++;
	while (p < c->x.end && isspace((unsigned char)*p))
		p++;
	return p < c->x.end && (isalnum((unsigned char)*p) || *p == '_' || *p == '(' || *p == '"' ||
			      *p == '\'' || *p == '~' || *p == '!' || *p == '-');
}

/*
 * The reader's type name at the current token: true with *l past it (or
 * failed, if malformed), false if none starts here.  l is a copy of the
 * lexer: a cast that is not one costs nothing.
 */
static bool read_type(const struct px *c, struct tfile_lex *l)
{
	*l = c->x;
	return c->o->type(c->o->ctx, l);
}

/* sizeof(...): the current token is "sizeof". */
static struct tfile_expr *size_of(struct px *c)
{
	struct tfile_expr *e = mk(c, TX_SIZEOF, c->x.s, c->x.n);
	int depth = 0;

	next(c);
	if (!is_op(c, "(")) {
		fail(c, "sizeof without '('");
		return e;
	}
	if (c->o->type) {
		struct tfile_lex l;

		next(c);
		if (read_type(c, &l)) {
			e->ts = c->x.s;
			e->tn = l.s - c->x.s;
			c->x = l;
		} else {
			e->a = expr(c);
		}
		expect(c, ")");
		return e;
	}
	/* sizeof(TYPE): the balanced parentheses, whatever they hold. */
	e->ts = c->x.p;
	do {
		if (is_op(c, "("))
			depth++;
		else if (is_op(c, ")") && !--depth)
			e->tn = c->x.s - e->ts;
		else if (c->x.t == TFILE_TOK_END)
			fail(c, "unbalanced sizeof");
		next(c);
	} while (depth > 0 && !c->x.failed);
	return e;
}

/* ({ TYPE NAME = EXPR; ... EXPR; }): the current token is the '{'. */
static struct tfile_expr *stmt_expr(struct px *c)
{
	struct tfile_expr *e = mk(c, TX_STMT, c->x.s, 0);
	struct list l = { 0 };

	next(c);
	while (!c->x.failed && !is_op(c, "}") && c->x.t != TFILE_TOK_END) {
		struct tfile_lex t;

		if (read_type(c, &t)) {
			struct tfile_expr *d = mk(c, TX_DECL, NULL, 0);

			d->ts = c->x.s;
			d->tn = t.s - c->x.s;
			c->x = t;
			list_add(&l, d);
			if (c->x.t != TFILE_TOK_IDENT) {
				fail(c, "a declaration without a name");
				break;
			}
			d->s = c->x.s;
			d->n = c->x.n;
			next(c);
			if (!expect(c, "="))
				break;
			d->a = expr(c);
		} else {
			list_add(&l, expr(c));
		}
		expect(c, ";");
	}
	expect(c, "}");
	list_to(c, &l, e);
	return e;
}

static struct tfile_expr *primary(struct px *c)
{
	struct tfile_expr *e;

	switch (c->x.t) {
	case TFILE_TOK_NUM:
		e = mk(c, TX_NUM, c->x.s, c->x.n);
		e->num = c->x.num;
		e->num_u = c->x.num_u;
		e->num_l = c->x.num_l;
		next(c);
		return e;
	case TFILE_TOK_STR:
		return strings(c);
	case TFILE_TOK_CHAR:
		e = mk(c, TX_CHAR, c->x.s, c->x.n);
		next(c);
		return e;
	case TFILE_TOK_IDENT:
		if (is_ident(c, "REC")) {
			/* The record: only "->field" may follow (postfix). */
			e = mk(c, TX_REC, c->x.s, c->x.n);
			next(c);
			return e;
		}
		if (is_ident(c, "sizeof"))
			return size_of(c);
		if (c->x.p < c->x.end) {
			const char *p = c->x.p;

			while (p < c->x.end && isspace((unsigned char)*p))
				p++;
			if (p < c->x.end && *p == '(')
				return call(c);
		}
		/* An enum name, a macro the kernel left in, a local. */
		e = mk(c, TX_NAME, c->x.s, c->x.n);
		next(c);
		return e;
	case TFILE_TOK_OP:
		if (is_op(c, "(")) {
			const char *open = c->x.s;

			if (!c->o->type) {
				if (c->x.p < c->x.end && *c->x.p == '{') {
					fail(c, "a statement expression, which libtraceevent "
						"cannot evaluate");
					return mk(c, TX_NUM, open, 0);
				}
				if (looks_like_cast(c)) {
					e = mk(c, TX_CAST, open, 0);
					next(c);
					e->ts = c->x.s;
					while (!is_op(c, ")") && c->x.t != TFILE_TOK_END)
						next(c);
					e->tn = c->x.s - e->ts;
					next(c);
					e->a = unary(c);
					return e;
				}
			}
			next(c);
			if (c->o->type && is_op(c, "{")) {
				e = stmt_expr(c);
				expect(c, ")");
				return e;
			}
			e = expr(c);
			if (e->k == TX_REC)
				e->paren = true;
			expect(c, ")");
			return e;
		}
		fail(c, "unexpected '%.*s'", (int)c->x.n, c->x.s);
		return mk(c, TX_NUM, c->x.s, 0);
	default:
		fail(c, "the print fmt ends too soon");
		return mk(c, TX_NUM, c->x.s, 0);
	}
}

static struct tfile_expr *postfix(struct px *c)
{
	struct tfile_expr *e = primary(c);

	while (!c->x.failed) {
		if (e->k == TX_REC) {
			/* "(REC)->x": the parentheses hand REC out to here. */
			bool dot = c->o->type && !e->paren && is_op(c, ".");
			bool paren = e->paren;

			if (!is_op(c, "->") && !dot)
				break;
			next(c);
			if (c->x.t != TFILE_TOK_IDENT) {
				fail(c, "REC-> without a field name");
				break;
			}
			e = mk(c, TX_FIELD, c->x.s, c->x.n);
			e->paren = paren;
			e->dot = dot;
			next(c);
		} else if (is_op(c, "[")) {
			struct tfile_expr *ix = mk(c, TX_INDEX, c->x.s, 0);

			next(c);
			ix->a = e;
			ix->b = expr(c);
			expect(c, "]");
			e = ix;
		} else if (is_op(c, ".") || is_op(c, "->")) {
			struct tfile_expr *m = mk(c, TX_MEMBER, NULL, 0);

			memcpy(m->op, c->x.s, c->x.n);
			next(c);
			if (c->x.t != TFILE_TOK_IDENT) {
				fail(c, "a member access without a name");
				break;
			}
			m->s = c->x.s;
			m->n = c->x.n;
			m->a = e;
			next(c);
			e = m;
		} else {
			break;
		}
	}
	return e;
}

static bool deeper(struct px *c)
{
	if (++c->depth > c->o->max_depth) {
		fail(c, "nested more than %d deep", c->o->max_depth);
		return false;
	}
	return true;
}

static struct tfile_expr *unary(struct px *c)
{
	struct tfile_expr *e;

	if (!deeper(c)) {
		e = mk(c, TX_NUM, c->x.s, 0);
	} else if (is_op(c, "-") || is_op(c, "+") || is_op(c, "!") || is_op(c, "~") ||
		   is_op(c, "*") || is_op(c, "&")) {
		e = mk(c, TX_UNARY, c->x.s, 1);
		e->op[0] = *c->x.s;
		next(c);
		e->a = unary(c);
	} else if (c->o->type && is_op(c, "(")) {
		/* The kernel printer's cast: a type name up to the ')'; else the '(' again. */
		struct tfile_lex back = c->x, l;

		next(c);
		if (!c->x.failed && read_type(c, &l) && !l.failed && tfile_lex_is(&l, ")")) {
			e = mk(c, TX_CAST, back.s, 0);
			e->ts = c->x.s;
			e->tn = l.s - c->x.s;
			c->x = l;
			next(c);
			e->a = unary(c);
		} else {
			c->x = back;
			e = postfix(c);
		}
	} else {
		e = postfix(c);
	}
	c->depth--;
	return e;
}

static int prec(const struct px *c)
{
	static const struct { const char *op; int p; } t[] = {
		{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 }, { "==", 6 },
		{ "!=", 6 }, { "<", 7 }, { ">", 7 }, { "<=", 7 }, { ">=", 7 }, { "<<", 8 },
		{ ">>", 8 }, { "+", 9 }, { "-", 9 }, { "*", 10 }, { "/", 10 }, { "%", 10 },
	};

	if (c->x.t != TFILE_TOK_OP)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (is_op(c, t[i].op))
			return t[i].p;
	return 0;
}

static struct tfile_expr *binary(struct px *c, int min)
{
	struct tfile_expr *l = unary(c);

	for (int p; !c->x.failed && (p = prec(c)) >= min;) {
		struct tfile_expr *e = mk(c, TX_BINARY, c->x.s, c->x.n);

		memcpy(e->op, c->x.s, c->x.n);
		next(c);
		e->a = l;
		e->b = binary(c, p + 1);
		l = e;
	}
	return l;
}

static struct tfile_expr *expr(struct px *c)
{
	struct tfile_expr *e;
	bool counted = !c->o->depth_unary;

	if (counted && !deeper(c))
		return mk(c, TX_NUM, c->x.s, 0);
	e = binary(c, 1);
	if (!c->x.failed && is_op(c, "?")) {
		struct tfile_expr *q = mk(c, TX_COND, c->x.s, 0);

		next(c);
		q->a = e;
		q->b = expr(c);
		expect(c, ":");
		q->c = expr(c);
		e = q;
	}
	if (counted)
		c->depth--;
	return e;
}

int tfile_print_parse(const char *text, size_t len, const struct tfile_expr_opts *o,
		      struct tfile_print *pr)
{
	struct tfile_expr_opts dflt = { 0 };
	struct px c = { .pr = pr };
	struct list l = { 0 };

	*pr = (struct tfile_print){ 0 };
	if (!o)
		o = &dflt;
	dflt = *o;
	if (!dflt.max_depth)
		dflt.max_depth = 32;
	c.o = &dflt;
	c.x = (struct tfile_lex){ .p = text, .end = text + len, .max_tokens = o->max_tokens,
				  .why = pr->why, .whylen = sizeof(pr->why) };
	next(&c);
	if (c.x.t != TFILE_TOK_STR) {
		fail(&c, "the print fmt does not start with a string");
		return -EINVAL;
	}
	/* The format may be several strings in a row (the kernel's stack events). */
	pr->fmt = c.x.s;
	while (c.x.t == TFILE_TOK_STR)
		next(&c);
	pr->fmt_len = (c.x.t == TFILE_TOK_END ? c.x.end : c.x.s) - pr->fmt;
	while (!c.x.failed && is_op(&c, ",")) {
		next(&c);
		list_add(&l, expr(&c));
	}
	if (!c.x.failed && c.x.t != TFILE_TOK_END)
		fail(&c, "unexpected '%.*s' in the print fmt",
		     (int)(c.x.end - c.x.s < 20 ? c.x.end - c.x.s : 20), c.x.s);
	pr->nargs = l.n;
	pr->args = l.v;
	return c.x.failed ? -EINVAL : 0;
}

void tfile_print_free(struct tfile_print *pr)
{
	while (pr->mem) {
		struct tfile_expr_mem *m = pr->mem;

		pr->mem = m->next;
		free(m);
	}
	free(pr->args);
	pr->args = NULL;
	pr->nargs = 0;
}

int tfile_expr_spine(const struct tfile_expr *e, const struct tfile_expr ***spine)
{
	int n = 0;

	for (const struct tfile_expr *p = e; p->k == TX_BINARY; p = p->a)
		n++;
	*spine = xmalloc((n ? n : 1) * sizeof(**spine));
	for (int i = n - 1; i >= 0; i--, e = e->a)
		(*spine)[i] = e;
	return n;
}
