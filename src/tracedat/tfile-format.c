// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event-format checker (tfile-format.h): field lines checked for sane
 * offsets and sizes, and the print fmt parsed as the C expression list it
 * is, with an upper bound worked out for every value that libtraceevent
 * will use as a length, a count or a width.
 *
 * The grammar is the one libtraceevent's parser accepts (event-parse.c,
 * process_arg and friends): a string, then comma-separated expressions of
 * numbers, strings, REC->field, casts, the C operators, ?:, sizeof, and the
 * helpers __print_flags/_symbolic/_hex/_hex_str/_array and
 * __get_str/_bitmask/_cpumask/_dynamic_array(_len)/_sockaddr (and their
 * __get_rel_ forms).  What is refused, with the reason:
 *   - a field a helper or REC-> names that the format does not declare;
 *   - a division or remainder whose divisor is not a positive literal
 *     (libtraceevent folds constants at parse time and divides record
 *     values at print time: 0 or -1 there is SIGFPE);
 *   - a __print_hex/__print_hex_str length or __print_array count times
 *     element size that may exceed TFILE_FORMAT_MAX_RECORD, an element size
 *     other than 1, 2, 4 or 8, or a buffer that is not a field or a
 *     dynamic array (libtraceevent would read a union member it never set);
 *   - a '*' width or precision argument, or a literal one, above 4096;
 *   - %n, a conversion it does not know, more conversions than arguments;
 *   - nesting deeper than 32, more than 16384 tokens, or bytes that are not
 *     printable ASCII (no kernel writes them).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "tfile-format.h"
#include "tfile.h"
#include "tr.h"

enum { MAX_DEPTH = 32, MAX_TOKENS = 16384, MAX_WIDTH = 4096, MAX_FIELDS = 1024,
       MAX_ARGS = 256, MAX_TEXT = 256 << 10 };

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

/* ---- the checker's parse ---- */

struct pc {
	struct tfile_lex x;
	int depth;
	const struct tfile_format_field *fields;
	int nfields;
};

#define fail(c, ...) tfile_lex_fail(&(c)->x, __VA_ARGS__)

static bool is_op(const struct pc *c, const char *op)
{
	return tfile_lex_is(&c->x, op);
}

static bool is_ident(const struct pc *c, const char *id)
{
	return c->x.t == TFILE_TOK_IDENT && c->x.n == strlen(id) && !memcmp(c->x.s, id, c->x.n);
}

static void next(struct pc *c)
{
	tfile_lex_next(&c->x);
}

static bool expect(struct pc *c, const char *op)
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

/* ---- values: what the checks need to know of an expression ---- */

enum vkind { V_OTHER, V_FIELD, V_DYNARRAY, V_STRING, V_REC };

struct val {
	enum vkind kind;
	bool literal;		/* a number as written (or sizeof), possibly in parens or cast */
	bool constant;		/* no field, no call: libtraceevent can fold it */
	uint64_t bound;		/* no value it takes is above this (as unsigned) */
	uint64_t least;		/* of a literal: none is below this (a divisor's worst case) */
	const struct tfile_format_field *field;
};

static struct val v_other(void)
{
	return (struct val){ .kind = V_OTHER, .bound = UNBOUNDED };
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UNBOUNDED - b ? UNBOUNDED : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return a && b > UNBOUNDED / a ? UNBOUNDED : a * b;
}

static const struct tfile_format_field *find_field(const struct pc *c, const char *s, size_t n)
{
	for (int i = 0; i < c->nfields; i++)
		if (c->fields[i].name_len == n && !memcmp(c->fields[i].name, s, n))
			return &c->fields[i];
	return NULL;
}

/* The largest value a field can hold, read as libtraceevent reads it. */
static uint64_t field_bound(const struct tfile_format_field *f)
{
	/* A signed field may be negative: as a length, that is huge. */
	if (f->is_signed || f->size <= 0 || f->size >= 8)
		return UNBOUNDED;
	return (1ULL << (8 * f->size)) - 1;
}

static struct val expr(struct pc *c);

/* REC->name, or the name a helper takes. */
static const struct tfile_format_field *field_ref(struct pc *c, const char *how)
{
	const struct tfile_format_field *f;

	if (c->x.t != TFILE_TOK_IDENT) {
		fail(c, "%s without a field name", how);
		return NULL;
	}
	f = find_field(c, c->x.s, c->x.n);
	if (!f)
		fail(c, "%s names '%.*s', which is not a field", how, (int)c->x.n, c->x.s);
	next(c);
	return f;
}

/*
 * { value, "string" } of __print_flags and __print_symbolic: the value is
 * folded at parse time.  The kernel also writes "{ }" and a terminating
 * "{ -1, ((void *)0) }".
 */
static void flag_list(struct pc *c)
{
	while (is_op(c, ",") && !c->x.failed) {
		struct val v;

		next(c);
		if (!expect(c, "{"))
			return;
		if (is_op(c, "}")) {
			next(c);
			continue;
		}
		v = expr(c);
		if (!v.constant)
			fail(c, "a __print_flags/__print_symbolic value is not a constant");
		if (!expect(c, ","))
			return;
		if (c->x.t == TFILE_TOK_STR) {
			while (c->x.t == TFILE_TOK_STR)
				next(c);
		} else if (!expr(c).constant) {
			fail(c, "a __print_flags/__print_symbolic entry without its string");
			return;
		}
		expect(c, "}");
	}
}

static bool buffer_arg(struct val *v)
{
	return v->kind == V_FIELD || v->kind == V_DYNARRAY;
}

/* A helper call: the name is the current token and '(' follows. */
static struct val call(struct pc *c)
{
	const char *name = c->x.s;
	size_t n = c->x.n;
	struct val args[4], v = v_other();
	enum tfile_helper h;
	int nargs = 0;
	bool rel;

	next(c);
	next(c);	/* the '(' */
	h = tfile_helper_find(name, n, &rel);
	if (n > 6 && !memcmp(name, "__get_", 6)) {
		if (h == TFILE_H_NONE) {
			fail(c, "unknown helper '%.*s'", (int)n, name);
			return v;
		}
		v.field = field_ref(c, "a __get_ helper");
		expect(c, ")");
		if (h == TFILE_H_GET_DYNAMIC_ARRAY_LEN) {	/* a 16-bit length */
			v.bound = 0xffff;
		} else if (h == TFILE_H_GET_DYNAMIC_ARRAY || h == TFILE_H_GET_SOCKADDR) {
			v.kind = V_DYNARRAY;
		} else if (h == TFILE_H_GET_STR) {
			v.kind = V_STRING;
		}
		return v;
	}
	/* __print_flags(val, delim, {..}...), __print_symbolic(val, {..}...) */
	if (h == TFILE_H_PRINT_FLAGS || h == TFILE_H_PRINT_FLAGS_U64 ||
	    h == TFILE_H_PRINT_SYMBOLIC || h == TFILE_H_PRINT_SYMBOLIC_U64) {
		expr(c);
		if (h == TFILE_H_PRINT_FLAGS || h == TFILE_H_PRINT_FLAGS_U64) {
			if (!expect(c, ","))
				return v;
			if (c->x.t != TFILE_TOK_STR) {
				fail(c, "__print_flags without its delimiter string");
				return v;
			}
			while (c->x.t == TFILE_TOK_STR)
				next(c);
		}
		flag_list(c);
		expect(c, ")");
		v.kind = V_STRING;
		return v;
	}
	if (h == TFILE_H_PRINT_HEX || h == TFILE_H_PRINT_HEX_STR || h == TFILE_H_PRINT_ARRAY ||
	    h == TFILE_H_PRINT_DYNAMIC_ARRAY) {
		bool array = h == TFILE_H_PRINT_ARRAY;

		for (nargs = 0; nargs < (array ? 3 : 2) && !c->x.failed; nargs++) {
			if (nargs && !expect(c, ","))
				return v;
			args[nargs] = expr(c);
		}
		expect(c, ")");
		if (c->x.failed)
			return v;
		if (h == TFILE_H_PRINT_DYNAMIC_ARRAY) {
			fail(c, "unknown helper '__print_dynamic_array'");
			return v;
		}
		if (!buffer_arg(&args[0])) {
			fail(c, "%.*s of something that is neither a field nor a dynamic array",
			     (int)n, name);
			return v;
		}
		/*
		 * A length that is a field alone (REC->len, maybe cast) is what the
		 * kernel writes for buffers of varying size: the formatter checks
		 * its value against each record before libtraceevent sees it.
		 */
		if (args[1].kind == V_FIELD)
			args[1].bound = 0;
		if (array) {
			uint64_t el = args[2].literal && args[2].least == args[2].bound ? args[2].bound : 0;

			if (el != 1 && el != 2 && el != 4 && el != 8)
				fail(c, "__print_array with an element size that is not 1, 2, 4 "
					"or 8");
			else if (sat_mul(args[1].bound, el) > TFILE_FORMAT_MAX_RECORD)
				fail(c, "__print_array may read past the record (count not bounded "
					"by %d bytes)", TFILE_FORMAT_MAX_RECORD);
		} else if (args[1].bound > TFILE_FORMAT_MAX_RECORD) {
			fail(c, "%.*s may read past the record (length not bounded by %d bytes)",
			     (int)n, name, TFILE_FORMAT_MAX_RECORD);
		}
		v.kind = V_STRING;
		return v;
	}
	if (n > 2 && name[0] == '_' && name[1] == '_' &&
	    (n < 8 || memcmp(name, "__print", 7) == 0)) {
		fail(c, "unknown helper '%.*s'", (int)n, name);
		return v;
	}
	/* Another function (a plugin's, or one libtraceevent will refuse): check its arguments. */
	if (!is_op(c, ")"))
		for (;;) {
			expr(c);
			if (c->x.failed || !is_op(c, ","))
				break;
			next(c);
		}
	expect(c, ")");
	return v;
}

/* Is this '(' the start of a cast: only type words and '*' up to its ')'? */
static bool looks_like_cast(const struct pc *c)
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

static struct val unary(struct pc *c);

static struct val primary(struct pc *c)
{
	struct val v = v_other();

	switch (c->x.t) {
	case TFILE_TOK_NUM:
		v.literal = v.constant = true;
		v.bound = v.least = c->x.num;
		next(c);
		return v;
	case TFILE_TOK_STR:
		while (c->x.t == TFILE_TOK_STR)
			next(c);
		v.kind = V_STRING;
		v.constant = true;
		return v;
	case TFILE_TOK_CHAR:
		next(c);
		v.constant = true;
		v.bound = 255;
		return v;
	case TFILE_TOK_IDENT:
		if (is_ident(c, "REC")) {
			/* The record: only "->field" may follow (postfix). */
			next(c);
			v.kind = V_REC;
			return v;
		}
		if (is_ident(c, "sizeof")) {
			static const struct { const char *type; int size; } sizes[] = {
				{ "char", 1 }, { "u8", 1 }, { "s8", 1 }, { "__u8", 1 },
				{ "short", 2 }, { "u16", 2 }, { "s16", 2 }, { "__u16", 2 },
				{ "int", 4 }, { "u32", 4 }, { "s32", 4 }, { "__u32", 4 },
				{ "u64", 8 }, { "s64", 8 }, { "__u64", 8 }, { "long", 8 },
			};
			const char *last = NULL;
			size_t last_n = 0;
			bool ptr = false;
			int depth = 0;

			next(c);
			if (!is_op(c, "(")) {
				fail(c, "sizeof without '('");
				return v;
			}
			/* sizeof(TYPE): skip the balanced parentheses, keeping the last word. */
			do {
				if (is_op(c, "("))
					depth++;
				else if (is_op(c, ")"))
					depth--;
				else if (c->x.t == TFILE_TOK_END)
					fail(c, "unbalanced sizeof");
				else if (is_op(c, "*"))
					ptr = true;
				else if (c->x.t == TFILE_TOK_IDENT)
					last = c->x.s, last_n = c->x.n;
				next(c);
			} while (depth > 0 && !c->x.failed);
			v.literal = v.constant = true;
			v.bound = 4096;
			v.least = 1;
			for (size_t i = 0; i < ARRAY_SIZE(sizes) && last && !ptr; i++)
				if (last_n == strlen(sizes[i].type) &&
				    !memcmp(last, sizes[i].type, last_n))
					v.bound = v.least = sizes[i].size;
			if (ptr)
				v.bound = v.least = 8;
			return v;
		}
		if (c->x.p < c->x.end) {
			const char *p = c->x.p;

			while (p < c->x.end && isspace((unsigned char)*p))
				p++;
			if (p < c->x.end && *p == '(')
				return call(c);
		}
		/* An enum name or a macro the kernel left in: libtraceevent keeps it as text. */
		next(c);
		v.constant = true;
		return v;
	case TFILE_TOK_OP:
		if (is_op(c, "(")) {
			if (c->x.p < c->x.end && *c->x.p == '{') {
				fail(c, "a statement expression, which libtraceevent cannot evaluate");
				return v;
			}
			if (looks_like_cast(c)) {
				while (!is_op(c, ")") && c->x.t != TFILE_TOK_END)
					next(c);
				next(c);
				return unary(c);
			}
			next(c);
			v = expr(c);
			expect(c, ")");
			return v;
		}
		fail(c, "unexpected '%.*s'", (int)c->x.n, c->x.s);
		return v;
	default:
		fail(c, "the print fmt ends too soon");
		return v;
	}
}

static struct val postfix(struct pc *c)
{
	struct val v = primary(c);

	while (!c->x.failed) {
		if (v.kind == V_REC) {
			/* "(REC)->x": the parentheses hand REC out to here. */
			if (!is_op(c, "->"))
				break;
			next(c);
			v = v_other();
			v.field = field_ref(c, "REC->");
			v.kind = V_FIELD;
			if (v.field)
				v.bound = field_bound(v.field);
		} else if (is_op(c, "[")) {
			next(c);
			expr(c);
			expect(c, "]");
			v = v_other();
		} else if (is_op(c, ".") || is_op(c, "->")) {
			next(c);
			if (c->x.t != TFILE_TOK_IDENT) {
				fail(c, "a member access without a name");
				break;
			}
			next(c);
			v = v_other();
		} else {
			break;
		}
	}
	return v;
}

static struct val unary(struct pc *c)
{
	struct val v;

	if (++c->depth > MAX_DEPTH) {
		fail(c, "nested more than %d deep", MAX_DEPTH);
		return v_other();
	}
	if (is_op(c, "-") || is_op(c, "+") || is_op(c, "!") || is_op(c, "~") || is_op(c, "*") ||
	    is_op(c, "&")) {
		char op = *c->x.s;

		next(c);
		v = unary(c);
		v.literal = op == '+' && v.literal;
		if (op == '!') {
			v.bound = 1;
		} else if (op != '+') {
			v.bound = UNBOUNDED;
		}
		if (op == '*' || op == '&')
			v.constant = false;
		v.kind = V_OTHER;
	} else {
		v = postfix(c);
	}
	c->depth--;
	return v;
}

static int prec(const struct pc *c)
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

static struct val binary(struct pc *c, int min)
{
	struct val l = unary(c);

	for (int p; !c->x.failed && (p = prec(c)) >= min;) {
		char op[3] = { 0 };
		struct val r;

		memcpy(op, c->x.s, c->x.n);
		next(c);
		r = binary(c, p + 1);
		if (c->x.failed)
			break;
		if (!strcmp(op, "/") || !strcmp(op, "%")) {
			if (!r.literal || r.least == 0 || r.bound == UNBOUNDED)
				fail(c, "a divisor that is not a positive number (libtraceevent "
					"would divide by it)");
			else if (!strcmp(op, "/"))
				l.bound = l.bound / r.least;
			else
				l.bound = r.bound - 1 < l.bound ? r.bound - 1 : l.bound;
		} else if (!strcmp(op, "+")) {
			l.bound = sat_add(l.bound, r.bound);
		} else if (!strcmp(op, "*")) {
			l.bound = sat_mul(l.bound, r.bound);
		} else if (!strcmp(op, "&")) {
			l.bound = l.bound < r.bound ? l.bound : r.bound;
		} else if (!strcmp(op, "<<")) {
			l.bound = r.bound < 64 && l.bound <= UNBOUNDED >> r.bound ? l.bound << r.bound
								    : UNBOUNDED;
		} else if (!strcmp(op, ">>")) {
			l.bound = r.literal && r.bound < 64 ? l.bound >> r.bound : l.bound;
		} else if (p <= 2 || p == 6 || p == 7) {
			l.bound = 1;
		} else {
			l.bound = UNBOUNDED;
		}
		l.constant = l.constant && r.constant;
		l.literal = false;
		l.kind = V_OTHER;
	}
	return l;
}

static struct val expr(struct pc *c)
{
	struct val v;

	if (++c->depth > MAX_DEPTH) {
		fail(c, "nested more than %d deep", MAX_DEPTH);
		return v_other();
	}
	v = binary(c, 1);
	if (!c->x.failed && is_op(c, "?")) {
		struct val a, b;

		next(c);
		a = expr(c);
		expect(c, ":");
		b = expr(c);
		v.constant = v.constant && a.constant && b.constant;
		v.bound = a.bound > b.bound ? a.bound : b.bound;
		v.literal = false;
		v.kind = a.kind == V_STRING || b.kind == V_STRING ? V_STRING : V_OTHER;
	}
	c->depth--;
	return v;
}

/* ---- conversions (tfile-format.h) ---- */

static int digits(const char *s, size_t n, size_t *i)
{
	int v = 0;

	for (; *i < n && isdigit((unsigned char)s[*i]); (*i)++)
		v = v > (INT_MAX - (s[*i] - '0')) / 10 ? INT_MAX : v * 10 + (s[*i] - '0');
	return v;
}

size_t tfile_conv_scan(const char *s, size_t n, struct tfile_conv *c)
{
	static const char flag_chars[] = "-+ #0";
	size_t i = 1;
	const char *fl;

	*c = (struct tfile_conv){ .width = -1, .prec = -1 };
	if (i < n && s[i] == '%') {
		c->conv = '%';
		return 2;
	}
	while (i < n && s[i] && (fl = strchr(flag_chars, s[i]))) {
		c->flags |= 1u << (fl - flag_chars);
		i++;
	}
	if (i < n && s[i] == '*') {
		c->width = TFILE_CONV_STAR;
		i++;
	} else if (i < n && isdigit((unsigned char)s[i])) {
		c->width = digits(s, n, &i);
	}
	if (i < n && s[i] == '.') {
		i++;
		if (i < n && s[i] == '*') {
			c->prec = TFILE_CONV_STAR;
			i++;
		} else {
			c->prec = digits(s, n, &i);
		}
	}
	c->qual = s + i;
	while (i < n && s[i] && strchr("hlLqjzZt", s[i]))
		i++;
	c->qual_len = s + i - c->qual;
	if (i >= n)
		return 0;
	c->conv = s[i++];
	c->ext = s + i;
	if (c->conv == 'p')
		while (i + c->ext_len < n && isalnum((unsigned char)c->ext[c->ext_len]))
			c->ext_len++;
	return i;
}

/*
 * The format string's conversions: check each, and note which arguments
 * give a '*' width or precision (they must be bounded).  Returns the number
 * of arguments the string uses, or -1.
 */
static int scan_conversions(struct pc *c, const char *s, size_t n, bool *star, int maxargs)
{
	int used = 0;
	bool in_str = false;

	/* s is the string tokens as written, quotes and the blanks between them included. */
	for (size_t i = 0; i < n; i++) {
		struct tfile_conv cv;
		size_t len;
		int prec_arg = -1;

		if (s[i] == '"') {
			in_str = !in_str;
			continue;
		}
		if (!in_str)
			continue;
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] != '%')
			continue;
		len = tfile_conv_scan(s + i, n - i, &cv);
		if (len == 2 && cv.conv == '%') {
			i++;
			continue;
		}
		if (cv.width > MAX_WIDTH || cv.prec > MAX_WIDTH) {
			fail(c, "a width or precision above %d", MAX_WIDTH);
			return -1;
		}
		if (cv.width == TFILE_CONV_STAR) {
			if (used < maxargs)
				star[used] = true;
			used++;
		}
		if (cv.prec == TFILE_CONV_STAR) {
			if (used < maxargs)
				star[used] = true;
			prec_arg = used;
			used++;
		}
		if (!len) {
			fail(c, "the format string ends inside a conversion");
			return -1;
		}
		if (!strchr("diouxXcsp", cv.conv)) {
			fail(c, "conversion '%%%c' in the format string", cv.conv);
			return -1;
		}
		/* A precision only shortens a string: any value is harmless there. */
		if (cv.conv == 's' && prec_arg >= 0 && prec_arg < maxargs)
			star[prec_arg] = false;
		used++;
		/* %pS, %pM, %pI4, %pISpc, %pU...: letters and digits that follow belong to it. */
		i += len - 1 + cv.ext_len;
	}
	return used;
}

int tfile_format_check_print(const char *print, size_t len,
			     const struct tfile_format_field *fields, int nfields, char *why,
			     size_t whylen)
{
	struct pc c = { .x = { .p = print, .end = print + len, .max_tokens = MAX_TOKENS,
			       .why = why, .whylen = whylen },
			.fields = fields, .nfields = nfields };
	bool star[MAX_ARGS] = { false };
	struct val args[MAX_ARGS];
	const char *fmt;
	size_t fmt_len;
	int nargs = 0, used;

	why[0] = '\0';
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)print[i] > 0x7e ||
		    ((unsigned char)print[i] < 0x20 && !isspace((unsigned char)print[i]))) {
			fail(&c, "byte 0x%02x in the print fmt", (unsigned char)print[i]);
			return -EINVAL;
		}
	next(&c);
	if (c.x.t != TFILE_TOK_STR) {
		fail(&c, "the print fmt does not start with a string");
		return -EINVAL;
	}
	/* The format may be several strings in a row (the kernel's stack events). */
	fmt = c.x.s;
	while (c.x.t == TFILE_TOK_STR)
		next(&c);
	fmt_len = (c.x.t == TFILE_TOK_END ? c.x.end : c.x.s) - fmt;
	while (!c.x.failed && is_op(&c, ",")) {
		struct val v;

		next(&c);
		v = expr(&c);
		if (v.kind == V_REC)
			fail(&c, "REC without a field");
		if (nargs < MAX_ARGS)
			args[nargs] = v;
		nargs++;
	}
	if (!c.x.failed && c.x.t != TFILE_TOK_END)
		fail(&c, "unexpected '%.*s' in the print fmt",
		     (int)(c.x.end - c.x.s < 20 ? c.x.end - c.x.s : 20), c.x.s);
	if (c.x.failed)
		return -EINVAL;
	if (nargs > MAX_ARGS) {
		fail(&c, "more than %d arguments", MAX_ARGS);
		return -EINVAL;
	}
	used = scan_conversions(&c, fmt, fmt_len, star, MAX_ARGS);
	if (used < 0)
		return -EINVAL;
	if (used > nargs) {
		fail(&c, "the format string wants %d arguments and has %d", used, nargs);
		return -EINVAL;
	}
	for (int i = 0; i < nargs && i < used; i++)
		if (star[i] && args[i].bound > MAX_WIDTH) {
			fail(&c, "a '*' width or precision not bounded by %d", MAX_WIDTH);
			return -EINVAL;
		}
	return 0;
}

/* ---- the whole format: field lines, then the print fmt ---- */

static bool parse_int(const char *line, size_t n, const char *key, long *out)
{
	const char *k = memmem(line, n, key, strlen(key));
	const char *p;
	const char *end = line + n;
	bool neg;
	long v = 0;

	if (!k)
		return false;
	p = k + strlen(key);
	/* By hand, within the line: the text is not NUL-terminated (strtol read past it). */
	neg = p < end && *p == '-';
	p += neg;
	if (p >= end || !isdigit((unsigned char)*p))
		return false;
	for (; p < end && isdigit((unsigned char)*p); p++) {
		if (v > (LONG_MAX - (*p - '0')) / 10)
			return false;
		v = v * 10 + (*p - '0');
	}
	*out = neg ? -v : v;
	return p < end && *p == ';';
}

int tfile_format_parse_field(const char *line, size_t n, struct tfile_format_field *f, char *why,
			     size_t whylen)
{
	const char *decl = line + 6, *semi, *name_end, *name, *type_end;
	long off, size, sign = 0;
	bool loc;

	if (n < 6 || memcmp(line, "field:", 6)) {
		snprintf(why, whylen, "not a field line");
		return -EINVAL;
	}
	semi = memchr(decl, ';', n - 6);
	if (!semi) {
		snprintf(why, whylen, "a field line without ';'");
		return -EINVAL;
	}
	/* A C type and a name: words, '*' and array brackets, as the kernel writes them. */
	for (const char *p = decl; p < semi; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_ \t*[]", *p)) {
			snprintf(why, whylen, "a field declared as '%.*s'",
				 (int)(semi - decl > 60 ? 60 : semi - decl), decl);
			return -EINVAL;
		}
	/*
	 * A __data_loc/__rel_loc field is a 4-byte offset and length word: its
	 * dimension means nothing.  The kernel (6.12's user_events) writes
	 * "__rel_loc char line[1684631647]" from an unset length.
	 */
	loc = !strncmp(decl, "__data_loc", 10) || !strncmp(decl, "__rel_loc", 9);
	name_end = semi;
	while (name_end > decl && isspace((unsigned char)name_end[-1]))
		name_end--;
	f->array = name_end > decl && name_end[-1] == ']';
	/* Array dimensions: "[16]", "[]", or a macro the kernel did not expand. */
	while (name_end > decl && name_end[-1] == ']') {
		const char *open = name_end - 1;
		long dim;
		char *e;

		while (open > decl && *open != '[')
			open--;
		if (*open != '[') {
			snprintf(why, whylen, "a field with an unbalanced ']'");
			return -EINVAL;
		}
		if (!loc && open + 1 < name_end - 1 && isdigit((unsigned char)open[1])) {
			errno = 0;
			dim = strtol(open + 1, &e, 0);
			if (errno || e != name_end - 1 || dim <= 0 ||
			    dim > TFILE_FORMAT_MAX_RECORD) {
				snprintf(why, whylen, "field '%.*s' with array length '%.*s'",
					 (int)(open - decl > 64 ? 64 : open - decl), decl,
					 (int)(name_end - open > 24 ? 24 : name_end - open), open);
				return -EINVAL;
			}
		}
		name_end = open;
	}
	name = name_end;
	while (name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == name_end || name_end - name > 128 || isdigit((unsigned char)*name)) {
		snprintf(why, whylen, "a field line without a name");
		return -EINVAL;
	}
	f->name = name;
	f->name_len = name_end - name;
	for (type_end = name; type_end > decl && isspace((unsigned char)type_end[-1]);)
		type_end--;
	f->type = decl;
	f->type_len = type_end - decl;
	if (!parse_int(semi, line + n - semi, "offset:", &off) ||
	    !parse_int(semi, line + n - semi, "size:", &size)) {
		snprintf(why, whylen, "field '%.*s' without a readable offset and size",
			 (int)f->name_len, name);
		return -EINVAL;
	}
	parse_int(semi, line + n - semi, "signed:", &sign);
	if (off < 0 || size < 0 || off > TFILE_FORMAT_MAX_RECORD ||
	    size > TFILE_FORMAT_MAX_RECORD || off + size > TFILE_FORMAT_MAX_RECORD) {
		snprintf(why, whylen, "field '%.*s' at offset %ld of %ld bytes runs past %d bytes",
			 (int)f->name_len, name, off, size, TFILE_FORMAT_MAX_RECORD);
		return -EINVAL;
	}
	f->offset = off;
	f->size = size;
	f->is_signed = sign != 0;
	return 0;
}

/* A line libtraceevent's tokenizer may see: printable ASCII and tabs only. */
static int odd_byte(const char *l, const char *le)
{
	for (; l < le; l++)
		if (*l != '\t' && *l != '\n' && (*l < 0x20 || *l > 0x7e))
			return (unsigned char)*l | 0x100;
	return 0;
}

static void append(struct tfile_format_safe *res, size_t *cap, const char *s, size_t n)
{
	if (res->safe_len + n + 1 > *cap) {
		*cap = (res->safe_len + n + 1) * 2;
		res->safe = xrealloc(res->safe, *cap);
	}
	memcpy(res->safe + res->safe_len, s, n);
	res->safe_len += n;
	res->safe[res->safe_len] = '\0';
}

void tfile_format_sanitize(const char *text, size_t len, struct tfile_format_safe *res)
{
	struct tfile_format_field *fields = NULL;
	const char *end = text + len, *print = NULL;
	int nfields = 0;
	bool *bad = NULL, nul = false;
	size_t cap = 0;
	int odd;
	char why[sizeof(res->why)];

	*res = (struct tfile_format_safe){ .verdict = TFILE_FORMAT_OK };
	/* Field lines up to "print fmt:"; a line with a NUL byte is dropped whatever it is. */
	for (const char *l = text; l < end;) {
		const char *nl = memchr(l, '\n', end - l), *le = nl ? nl : end, *s = l;

		while (s < le && isspace((unsigned char)*s))
			s++;
		if ((size_t)(le - s) >= 10 && !memcmp(s, "print fmt:", 10)) {
			print = s + 10;
			break;
		}
		if ((odd = odd_byte(l, le))) {
			if (!nul && res->verdict == TFILE_FORMAT_OK)
				snprintf(res->why, sizeof(res->why), "byte 0x%02x in the format",
					 odd & 0xff);
			nul = true;
		} else if ((size_t)(le - s) >= 6 && !memcmp(s, "field:", 6)) {
			struct tfile_format_field f;

			fields = xrealloc(fields, (nfields + 1) * sizeof(*fields));
			bad = xrealloc(bad, (nfields + 1) * sizeof(*bad));
			bad[nfields] = false;
			if (nfields >= MAX_FIELDS) {
				snprintf(why, sizeof(why), "more than %d fields", MAX_FIELDS);
				bad[nfields] = true;
			} else if (tfile_format_parse_field(s, le - s, &f, why, sizeof(why))) {
				bad[nfields] = true;
			} else {
				for (int i = 0; i < nfields; i++)
					if (!bad[i] && fields[i].name_len == f.name_len &&
					    !memcmp(fields[i].name, f.name, f.name_len)) {
						snprintf(why, sizeof(why), "field '%.*s' twice",
							 (int)f.name_len, f.name);
						bad[nfields] = true;
					}
			}
			if (bad[nfields]) {
				if (res->verdict == TFILE_FORMAT_OK && !nul)
					snprintf(res->why, sizeof(res->why), "%s", why);
				res->verdict = TFILE_FORMAT_FIELDS;
				f = (struct tfile_format_field){ 0 };
			}
			fields[nfields++] = f;
		}
		l = nl ? nl + 1 : end;
	}
	if (nul)
		res->verdict = TFILE_FORMAT_FIELDS;
	if (res->verdict == TFILE_FORMAT_OK && len > MAX_TEXT) {
		res->verdict = TFILE_FORMAT_PRINT;
		snprintf(res->why, sizeof(res->why), "a format of %zu bytes", len);
	}
	if (res->verdict == TFILE_FORMAT_OK && print &&
	    tfile_format_check_print(print, end - print, fields, nfields, why, sizeof(why))) {
		res->verdict = TFILE_FORMAT_PRINT;
		snprintf(res->why, sizeof(res->why), "%s", why);
	}
	if (res->verdict != TFILE_FORMAT_OK) {
		char mark[sizeof(res->why) + 64];
		int k = 0, n;

		/* The same lines, less the unsound ones, and the mark as the print fmt. */
		append(res, &cap, "", 0);
		for (const char *l = text; l < end;) {
			const char *nl = memchr(l, '\n', end - l), *le = nl ? nl + 1 : end, *s = l;
			bool field;

			while (s < le && isspace((unsigned char)*s))
				s++;
			if (print && s == print - 10)
				break;
			field = (size_t)(le - s) >= 6 && !memcmp(s, "field:", 6);
			odd = odd_byte(l, le);
			if (!odd && (!field || !bad[k]))
				append(res, &cap, l, le - l);
			k += field && !odd;
			l = le;
		}
		/* The reason goes inside a C string: no quotes, backslashes or conversions. */
		for (char *w = res->why; *w; w++)
			if (*w == '"' || *w == '\\' || *w == '%' || (unsigned char)*w < 0x20 ||
			    (unsigned char)*w > 0x7e)
				*w = '\'';
		n = snprintf(mark, sizeof(mark), "\nprint fmt: \"" TFILE_FORMAT_MARK "%s\"\n",
			     res->why);
		append(res, &cap, mark, n);
	}
	free(fields);
	free(bad);
}

/* ---- the event-format handle (tfile.h) ---- */

struct tep_handle *tfile_tep_new(const struct tfile_tep_opts *o)
{
	struct tep_handle *tep = tep_alloc();
	int long_size = o->long_size ? o->long_size : (int)sizeof(long);

	if (!tep)
		return NULL;
	tep_set_file_bigendian(tep, o->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, o->page_size ? o->page_size : getpagesize());
	if (o->header_page)
		tfile_tep_header_page(tep, o->header_page, o->header_page_len, long_size);
	return tep;
}

void tfile_tep_header_page(struct tep_handle *tep, const char *text, size_t n, int long_size)
{
	/* A NUL-terminated copy: a file's text need not end in one. */
	char *copy = xmalloc(n + 1);

	memcpy(copy, text, n);
	copy[n] = '\0';
	/* tep keeps the header layout for kbuffer users; tr parses it itself too. */
	tep_parse_header_page(tep, copy, n, long_size);
	free(copy);
}

int tfile_tep_add_format(struct tep_handle *tep, const char *sys, const char *text, size_t n,
			 bool sanitize)
{
	struct tfile_format_safe chk;
	int r;

	if (!sanitize)
		return tfile_parse_event(tep, text, n, sys);
	/*
	 * libtraceevent trusts the format: it gets only what tfile-format.h
	 * finds safe (a format with a print fmt withheld prints its fields).
	 * An event tep cannot parse prints as unknown; the rest still work.
	 */
	tfile_format_sanitize(text, n, &chk);
	if (chk.verdict == TFILE_FORMAT_OK)
		r = tfile_parse_event(tep, text, n, sys);
	else
		r = tfile_parse_event(tep, chk.safe, chk.safe_len, sys);
	free(chk.safe);
	return r;
}
