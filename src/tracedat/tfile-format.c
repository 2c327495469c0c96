// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event-format checker (tfile-format.h): field lines checked for sane
 * offsets and sizes, and the print fmt parsed as the C expression list it
 * is (tfile_print_parse(), tfile-expr.c), with an upper bound worked out
 * over its tree for every value that libtraceevent will use as a length, a
 * count or a width.
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

#include "tfile-expr.h"
#include "tfile-format.h"
#include "tfile.h"
#include "tr.h"

enum { MAX_DEPTH = 32, MAX_TOKENS = 16384, MAX_WIDTH = 4096, MAX_FIELDS = 1024,
       MAX_ARGS = 256, MAX_TEXT = 256 << 10 };

#define UNBOUNDED UINT64_MAX

/* ---- the checks, over the parsed tree (tfile-expr.h) ---- */

struct ck {
	const struct tfile_format_field *fields;
	int nfields;
	bool failed;
	char *why;
	size_t whylen;
};

static void fail(struct ck *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct ck *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return;
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(c->why, c->whylen, fmt, ap);
	va_end(ap);
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

static const struct tfile_format_field *find_field(const struct ck *c, const char *s, size_t n)
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

static struct val value(struct ck *c, const struct tfile_expr *e);

/* REC->name, or the name a helper takes. */
static const struct tfile_format_field *field_ref(struct ck *c, const struct tfile_expr *e,
						   const char *how)
{
	const struct tfile_format_field *f = find_field(c, e->s, e->n);

	if (!f)
		fail(c, "%s names '%.*s', which is not a field", how, (int)e->n, e->s);
	return f;
}

/* The { value, "string" } entries of __print_flags and __print_symbolic: folded at parse time. */
static void entries(struct ck *c, const struct tfile_expr *call, int first)
{
	for (int i = first; i < call->nargs && !c->failed; i++) {
		const struct tfile_expr *e = call->args[i];

		if (!e->a)
			continue;
		if (!value(c, e->a).constant)
			fail(c, "a __print_flags/__print_symbolic value is not a constant");
		if (e->b->k != TX_STR && !value(c, e->b).constant)
			fail(c, "a __print_flags/__print_symbolic entry without its string");
	}
}

static bool buffer_arg(struct val *v)
{
	return v->kind == V_FIELD || v->kind == V_DYNARRAY;
}

static struct val call(struct ck *c, const struct tfile_expr *e)
{
	const char *name = e->s;
	size_t n = e->n;
	struct val args[3], v = v_other();
	enum tfile_helper h = e->h;

	if (n > 6 && !memcmp(name, "__get_", 6)) {
		if (h == TFILE_H_NONE) {
			fail(c, "unknown helper '%.*s'", (int)n, name);
			return v;
		}
		v.field = field_ref(c, e->args[0], "a __get_ helper");
		if (h == TFILE_H_GET_DYNAMIC_ARRAY_LEN) {	/* a 16-bit length */
			v.bound = 0xffff;
		} else if (h == TFILE_H_GET_DYNAMIC_ARRAY || h == TFILE_H_GET_SOCKADDR) {
			v.kind = V_DYNARRAY;
		} else if (h == TFILE_H_GET_STR) {
			v.kind = V_STRING;
		}
		return v;
	}
	if (h == TFILE_H_PRINT_FLAGS || h == TFILE_H_PRINT_FLAGS_U64 ||
	    h == TFILE_H_PRINT_SYMBOLIC || h == TFILE_H_PRINT_SYMBOLIC_U64) {
		bool flags = h == TFILE_H_PRINT_FLAGS || h == TFILE_H_PRINT_FLAGS_U64;

		value(c, e->args[0]);
		if (flags && e->args[1]->k != TX_STR) {
			fail(c, "__print_flags without its delimiter string");
			return v;
		}
		entries(c, e, flags ? 2 : 1);
		v.kind = V_STRING;
		return v;
	}
	if (h == TFILE_H_PRINT_HEX || h == TFILE_H_PRINT_HEX_STR || h == TFILE_H_PRINT_ARRAY ||
	    h == TFILE_H_PRINT_DYNAMIC_ARRAY) {
		bool array = h == TFILE_H_PRINT_ARRAY;

		for (int i = 0; i < e->nargs && !c->failed; i++)
			args[i] = value(c, e->args[i]);
		if (c->failed)
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
	for (int i = 0; i < e->nargs && !c->failed; i++)
		value(c, e->args[i]);
	return v;
}

/* sizeof(TYPE): the size of the last word, if a known one, or of a pointer. */
static struct val size_of(const struct tfile_expr *e)
{
	static const struct { const char *type; int size; } sizes[] = {
		{ "char", 1 }, { "u8", 1 }, { "s8", 1 }, { "__u8", 1 },
		{ "short", 2 }, { "u16", 2 }, { "s16", 2 }, { "__u16", 2 },
		{ "int", 4 }, { "u32", 4 }, { "s32", 4 }, { "__u32", 4 },
		{ "u64", 8 }, { "s64", 8 }, { "__u64", 8 }, { "long", 8 },
	};
	struct tfile_lex l = { .p = e->ts, .end = e->ts + e->tn };
	struct val v = v_other();
	const char *last = NULL;
	size_t last_n = 0;
	bool ptr = false;

	for (tfile_lex_next(&l); l.t != TFILE_TOK_END; tfile_lex_next(&l))
		if (tfile_lex_is(&l, "*"))
			ptr = true;
		else if (l.t == TFILE_TOK_IDENT)
			last = l.s, last_n = l.n;
	v.literal = v.constant = true;
	v.bound = 4096;
	v.least = 1;
	for (size_t i = 0; i < ARRAY_SIZE(sizes) && last && !ptr; i++)
		if (last_n == strlen(sizes[i].type) && !memcmp(last, sizes[i].type, last_n))
			v.bound = v.least = sizes[i].size;
	if (ptr)
		v.bound = v.least = 8;
	return v;
}

static struct val unary(struct ck *c, const struct tfile_expr *e)
{
	struct val v = value(c, e->a);
	char op = e->op[0];

	v.literal = op == '+' && v.literal;
	if (op == '!')
		v.bound = 1;
	else if (op != '+')
		v.bound = UNBOUNDED;
	if (op == '*' || op == '&')
		v.constant = false;
	v.kind = V_OTHER;
	return v;
}

/* l op r, r's value at hand. */
static void binary(struct ck *c, const char *op, struct val *l, const struct val *r)
{
	if (!strcmp(op, "/") || !strcmp(op, "%")) {
		if (!r->literal || r->least == 0 || r->bound == UNBOUNDED)
			fail(c, "a divisor that is not a positive number (libtraceevent "
				"would divide by it)");
		else if (!strcmp(op, "/"))
			l->bound = l->bound / r->least;
		else
			l->bound = r->bound - 1 < l->bound ? r->bound - 1 : l->bound;
	} else if (!strcmp(op, "+")) {
		l->bound = sat_add(l->bound, r->bound);
	} else if (!strcmp(op, "*")) {
		l->bound = sat_mul(l->bound, r->bound);
	} else if (!strcmp(op, "&")) {
		l->bound = l->bound < r->bound ? l->bound : r->bound;
	} else if (!strcmp(op, "<<")) {
		l->bound = r->bound < 64 && l->bound <= UNBOUNDED >> r->bound ? l->bound << r->bound
									: UNBOUNDED;
	} else if (!strcmp(op, ">>")) {
		l->bound = r->literal && r->bound < 64 ? l->bound >> r->bound : l->bound;
	} else if (!strcmp(op, "||") || !strcmp(op, "&&") || !strcmp(op, "==") ||
		   !strcmp(op, "!=") || op[0] == '<' || op[0] == '>') {
		l->bound = 1;
	} else {
		l->bound = UNBOUNDED;
	}
	l->constant = l->constant && r->constant;
	l->literal = false;
	l->kind = V_OTHER;
}

/* A chain of binary operators, walked up from its innermost (it is as long as the text). */
static struct val chain(struct ck *c, const struct tfile_expr *e)
{
	const struct tfile_expr **spine;
	int n = tfile_expr_spine(e, &spine);
	struct val l = value(c, spine[0]->a);

	for (int i = 0; i < n && !c->failed; i++) {
		struct val r = value(c, spine[i]->b);

		if (!c->failed)
			binary(c, spine[i]->op, &l, &r);
	}
	free(spine);
	return l;
}

static struct val value(struct ck *c, const struct tfile_expr *e)
{
	struct val v = v_other(), a, b;

	if (c->failed)
		return v;
	switch (e->k) {
	case TX_NUM:
		v.literal = v.constant = true;
		v.bound = v.least = e->num;
		return v;
	case TX_STR:
		v.kind = V_STRING;
		v.constant = true;
		return v;
	case TX_CHAR:
		v.constant = true;
		v.bound = 255;
		return v;
	case TX_NAME:
		/* An enum name or a macro the kernel left in: libtraceevent keeps it as text. */
		v.constant = true;
		return v;
	case TX_REC:
		v.kind = V_REC;
		return v;
	case TX_FIELD:
		v.field = field_ref(c, e, "REC->");
		v.kind = V_FIELD;
		if (v.field)
			v.bound = field_bound(v.field);
		return v;
	case TX_CALL:
		return call(c, e);
	case TX_CAST:
		return value(c, e->a);
	case TX_SIZEOF:
		return size_of(e);
	case TX_UNARY:
		return unary(c, e);
	case TX_BINARY:
		return chain(c, e);
	case TX_COND:
		v = value(c, e->a);
		a = value(c, e->b);
		b = value(c, e->c);
		v.constant = v.constant && a.constant && b.constant;
		v.bound = a.bound > b.bound ? a.bound : b.bound;
		v.literal = false;
		v.kind = a.kind == V_STRING || b.kind == V_STRING ? V_STRING : V_OTHER;
		return v;
	case TX_INDEX:
		value(c, e->a);
		value(c, e->b);
		return v;
	case TX_MEMBER:
		value(c, e->a);
		return v;
	case TX_ENTRY:
	case TX_STMT:
	case TX_DECL:
		break;
	}
	/* The checker's reading of the grammar has no statement expressions. */
	fail(c, "a statement expression, which libtraceevent cannot evaluate");
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
static int scan_conversions(struct ck *c, const char *s, size_t n, bool *star, int maxargs)
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
	static const struct tfile_expr_opts opts = { .max_depth = MAX_DEPTH,
						     .max_tokens = MAX_TOKENS };
	struct ck c = { .fields = fields, .nfields = nfields, .why = why, .whylen = whylen };
	bool star[MAX_ARGS] = { false };
	struct val args[MAX_ARGS];
	struct tfile_print pr;
	int used, r = -EINVAL;

	why[0] = '\0';
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)print[i] > 0x7e ||
		    ((unsigned char)print[i] < 0x20 && !isspace((unsigned char)print[i]))) {
			fail(&c, "byte 0x%02x in the print fmt", (unsigned char)print[i]);
			return -EINVAL;
		}
	if (tfile_print_parse(print, len, &opts, &pr)) {
		fail(&c, "%s", pr.why);
		goto out;
	}
	for (int i = 0; i < pr.nargs && !c.failed; i++) {
		struct val v = value(&c, pr.args[i]);

		if (v.kind == V_REC)
			fail(&c, "REC without a field");
		if (i < MAX_ARGS)
			args[i] = v;
	}
	if (c.failed)
		goto out;
	if (pr.nargs > MAX_ARGS) {
		fail(&c, "more than %d arguments", MAX_ARGS);
		goto out;
	}
	used = scan_conversions(&c, pr.fmt, pr.fmt_len, star, MAX_ARGS);
	if (used < 0)
		goto out;
	if (used > pr.nargs) {
		fail(&c, "the format string wants %d arguments and has %d", used, pr.nargs);
		goto out;
	}
	for (int i = 0; i < pr.nargs && i < used; i++)
		if (star[i] && args[i].bound > MAX_WIDTH) {
			fail(&c, "a '*' width or precision not bounded by %d", MAX_WIDTH);
			goto out;
		}
	r = 0;
out:
	tfile_print_free(&pr);
	return r;
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
