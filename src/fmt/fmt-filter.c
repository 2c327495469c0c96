// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event-filter fence (tfile-format.h): every filter tr hands to
 * libtraceevent's tep_filter_add_filter_str is first parsed here, in the
 * kernel's filter grammar (Documentation/trace/events.rst, "Event
 * filtering"), and rewritten in one canonical spelling.  libtraceevent's own
 * parser crashes on some malformed strings (an unterminated string, an
 * arithmetic operator in the wrong place, a comma after an expression); what
 * it is given here is always well formed, so it only ever decides what the
 * names mean.
 *
 *   filter     := events [':' expr] | expr
 *   events     := event {',' event}           sys/name or name, regex characters allowed
 *   expr       := and {'||' and}
 *   and        := unary {'&&' unary}
 *   unary      := '!' unary | '(' expr ')' | field op value
 *   op         := '==' | '!=' | '<' | '<=' | '>' | '>=' | '&' | '~' | '=~' | '!~'
 *   value      := number | "string" | 'string' | word
 *
 * The kernel's '~' (a glob: *, ?, [...]) is libtraceevent's bitwise not, so
 * it is rewritten as libtraceevent's '=~' with the glob turned into an
 * anchored regex.  The other rewrites are for libtraceevent's sake too:
 * bare-word values quoted, negative numbers as 64 unsigned bits
 * (pred_text), and '!' only ever before a comparison (print_node).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-filter.h"
#include "tr.h"

#define MAX_DEPTH 32		/* nested '(' and '!' */
#define MAX_STRING 255		/* the kernel's MAX_FILTER_STR_VAL, less its NUL */

enum tok {
	T_END, T_LPAREN, T_RPAREN, T_NOT, T_AND, T_OR, T_OP, T_NAME, T_NUMBER, T_STRING, T_BAD,
};

struct lex {
	const char *p;		/* the next byte */
	enum tok t;		/* the current token */
	const char *at;		/* where it starts */
	size_t len;		/* its length */
	char *why;
	size_t whylen;
	int err;
	char *out;		/* the canonical text */
	size_t n, cap;
	struct node *nodes;	/* the expression's tree */
	int nnodes;
};

/*
 * A node of the expression: a comparison (its canonical text) or an
 * operator over nodes a and b (NOT: a only).
 */
enum { N_PRED, N_AND, N_OR, N_NOT };
struct node {
	int kind, a, b;
	char *text;
};

static bool is_name0(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name(char c)
{
	return is_name0(c) || (c >= '0' && c <= '9');
}

static int fail(struct lex *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct lex *l, const char *fmt, ...)
{
	va_list ap;

	if (l->err)
		return l->err;
	va_start(ap, fmt);
	vsnprintf(l->why, l->whylen, fmt, ap);
	va_end(ap);
	l->err = -EINVAL;
	return l->err;
}

/* The current token, quoted for a message (at most 40 bytes of it). */
static const char *shown(struct lex *l, char *buf, size_t len)
{
	if (l->t == T_END)
		snprintf(buf, len, "the end");
	else
		snprintf(buf, len, "'%.*s%s'", (int)(l->len > 40 ? 40 : l->len), l->at,
			 l->len > 40 ? "..." : "");
	return buf;
}

static void emit(struct lex *l, const char *s, size_t n)
{
	if (l->n + n + 1 > l->cap) {
		l->cap = (l->n + n + 1) * 2;
		l->out = xrealloc(l->out, l->cap);
	}
	memcpy(l->out + l->n, s, n);
	l->n += n;
	l->out[l->n] = '\0';
}

static void emits(struct lex *l, const char *s)
{
	emit(l, s, strlen(s));
}

/* A number: decimal, 0x hex or 0 octal, optionally negative, in 64 bits. */
static int lex_number(struct lex *l)
{
	const char *p = l->p, *d = *p == '-' ? p + 1 : p;
	bool hex = d[0] == '0' && (d[1] == 'x' || d[1] == 'X');
	const char *q = hex ? d + 2 : d;
	unsigned long long v = 0, lim = *p == '-' ? (1ULL << 63) : ~0ULL;
	unsigned base = hex ? 16 : d[0] == '0' ? 8 : 10;
	bool over = false;

	for (; *q; q++) {
		unsigned dig;

		if (*q >= '0' && *q <= '9')
			dig = *q - '0';
		else if (hex && *q >= 'a' && *q <= 'f')
			dig = *q - 'a' + 10;
		else if (hex && *q >= 'A' && *q <= 'F')
			dig = *q - 'A' + 10;
		else
			break;
		if (dig >= base)
			break;
		if (v > (lim - dig) / base)
			over = true;
		else
			v = v * base + dig;
	}
	l->at = p;
	l->len = q - p;
	l->p = q;
	/* "12abc", "0x", "09": not a number, and not a name either. */
	if (is_name(*q) || (hex && q == d + 2)) {
		while (is_name(*l->p))
			l->p++;
		l->len = l->p - p;
		l->t = T_BAD;
		return fail(l, "bad number '%.*s'", (int)(l->len > 40 ? 40 : l->len), p);
	}
	if (over) {
		l->t = T_BAD;
		return fail(l, "the number '%.*s' is out of range", (int)(l->len > 40 ? 40 : l->len),
			    p);
	}
	l->t = T_NUMBER;
	return 0;
}

/*
 * A string: to the same quote, no escapes (the kernel takes none), printable
 * bytes only.  A backslash is let through only before a byte that is not a
 * quote or a backslash, which libtraceevent's reader, which does honour
 * escapes, then reads alike.
 */
static int lex_string(struct lex *l)
{
	const char *p = l->p, *q = p + 1;

	l->at = p;
	for (; *q && *q != *p; q++) {
		if ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e) {
			l->t = T_BAD;
			l->len = q - p;
			return fail(l, "byte 0x%02x in the string %.*s", (unsigned char)*q,
				    (int)(q - p > 40 ? 40 : q - p), p);
		}
		/* libtraceevent splits the whole text at each ',' as a list of events. */
		if (*q == ',') {
			l->t = T_BAD;
			l->len = q - p + 1;
			return fail(l, "a ',' in the string %.*s (libtraceevent cannot take one)",
				    (int)(q - p + 1 > 40 ? 40 : q - p + 1), p);
		}
		if (*q == '\\' && (!q[1] || q[1] == '"' || q[1] == '\'' || q[1] == '\\')) {
			l->t = T_BAD;
			l->len = q - p + 1;
			return fail(l, "a backslash at the end of or before a quote in the string "
				    "%.*s", (int)(q - p + 1 > 40 ? 40 : q - p + 1), p);
		}
	}
	l->len = q - p + (*q ? 1 : 0);
	if (!*q) {
		l->t = T_BAD;
		return fail(l, "unterminated string %.*s%s", (int)(l->len > 40 ? 40 : l->len), p,
			    l->len > 40 ? "..." : "");
	}
	if (l->len - 2 > MAX_STRING) {
		l->t = T_BAD;
		return fail(l, "the string %.20s... is longer than %d bytes", p, MAX_STRING);
	}
	l->p = q + 1;
	l->t = T_STRING;
	return 0;
}

/* The next token into l->t, l->at, l->len. */
static int next(struct lex *l)
{
	static const char *const ops[] = { "==", "!=", "<=", ">=", "=~", "!~", "&&", "||",
					   "<", ">", "&", "~", "!", "(", ")" };
	const char *p;

	if (l->err)
		return l->err;
	while (*l->p == ' ' || *l->p == '\t')
		l->p++;
	p = l->p;
	l->at = p;
	l->len = 0;
	if (!*p) {
		l->t = T_END;
		return 0;
	}
	if (*p == '"' || *p == '\'')
		return lex_string(l);
	if ((*p >= '0' && *p <= '9') || (*p == '-' && p[1] >= '0' && p[1] <= '9'))
		return lex_number(l);
	if (is_name0(*p)) {
		while (is_name(*l->p))
			l->p++;
		l->len = l->p - p;
		l->t = T_NAME;
		return 0;
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i]);

		if (strncmp(p, ops[i], n))
			continue;
		l->len = n;
		l->p += n;
		l->t = !strcmp(ops[i], "&&") ? T_AND : !strcmp(ops[i], "||") ? T_OR :
		       !strcmp(ops[i], "!") ? T_NOT : *p == '(' ? T_LPAREN : *p == ')' ? T_RPAREN :
		       T_OP;
		return 0;
	}
	l->t = T_BAD;
	l->len = 1;
	if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
		return fail(l, "unexpected byte 0x%02x", (unsigned char)*p);
	if (*p == '=')
		return fail(l, "unexpected '=' (a comparison is '==')");
	return fail(l, "unexpected '%c'", *p);
}

/* The kernel's glob as an anchored POSIX regex, inside the quotes q. */
static int emit_glob(struct lex *l, const char *g, size_t n, char q)
{
	char c[2] = { q, 0 };

	emit(l, c, 1);
	emits(l, "^");
	for (size_t i = 0; i < n; i++) {
		char ch = g[i];

		if (ch == '*') {
			emits(l, ".*");
		} else if (ch == '?') {
			emits(l, ".");
		} else if (ch == '[') {
			size_t j = i + 1;

			if (j < n && (g[j] == '!' || g[j] == '^'))
				j++;
			if (j < n && g[j] == ']')
				j++;
			while (j < n && g[j] != ']')
				j++;
			if (j >= n)
				return fail(l, "unterminated '[' in the glob %c%.*s%c", q,
					    (int)(n > 40 ? 40 : n), g, q);
			emits(l, "[");
			i++;
			if (g[i] == '!' || g[i] == '^') {
				emits(l, "^");
				i++;
			}
			emit(l, g + i, j - i);
			emits(l, "]");
			i = j;
		} else if (strchr(".^$+(){}|\\", ch)) {
			/* A pair of backslashes is one to libtraceevent's reader too. */
			char e[3] = { '\\', ch, 0 };

			emit(l, e, 2);
		} else {
			emit(l, &ch, 1);
		}
	}
	emits(l, "$");
	emit(l, c, 1);
	return 0;
}

static int parse_or(struct lex *l, int depth, int *out);

static int add_node(struct lex *l, int kind, int a, int b, char *text)
{
	l->nodes = xrealloc(l->nodes, (l->nnodes + 1) * sizeof(*l->nodes));
	l->nodes[l->nnodes] = (struct node){ kind, a, b, text };
	return l->nnodes++;
}

/* field op value, its canonical text built in l->out. */
static int pred_text(struct lex *l)
{
	char b1[64], b2[64];
	const char *op;
	size_t oplen;

	if (l->t != T_NAME)
		return fail(l, "expected a field name, not %s", shown(l, b1, sizeof(b1)));
	emit(l, l->at, l->len);
	snprintf(b2, sizeof(b2), "%.*s", (int)(l->len > 40 ? 40 : l->len), l->at);
	if (next(l))
		return l->err;
	if (l->t != T_OP)
		return fail(l, "expected a comparison after '%s', not %s", b2,
			    shown(l, b1, sizeof(b1)));
	op = l->at;
	oplen = l->len;
	if (next(l))
		return l->err;
	if (l->t != T_NUMBER && l->t != T_STRING && l->t != T_NAME)
		return fail(l, "expected a value after '%.*s', not %s", (int)oplen, op,
			    shown(l, b1, sizeof(b1)));
	/*
	 * As the kernel: strings are compared with ==, != and the globs, numbers
	 * with the rest.  libtraceevent frees twice on the way out of some of
	 * these mistakes, so they stop here.
	 */
	if ((*op == '~' || op[1] == '~') && l->t == T_NUMBER)
		return fail(l, "'%.*s' takes a string, not %s", (int)oplen, op,
			    shown(l, b1, sizeof(b1)));
	if ((*op == '<' || *op == '>' || *op == '&') && l->t != T_NUMBER)
		return fail(l, "'%.*s' takes a number, not %s", (int)oplen, op,
			    shown(l, b1, sizeof(b1)));
	if (oplen == 1 && *op == '~') {
		emits(l, " =~ ");
		if (l->t == T_STRING)
			emit_glob(l, l->at + 1, l->len - 2, *l->at);
		else
			emit_glob(l, l->at, l->len, '"');
	} else {
		emits(l, " ");
		emit(l, op, oplen);
		emits(l, " ");
		/* A bare word is a string to the kernel (comm != bash); libtraceevent wants quotes. */
		if (l->t == T_NAME)
			emits(l, "\"");
		if (l->t == T_NUMBER && *l->at == '-') {
			/*
			 * libtraceevent reads "-1" as a subtraction with no left
			 * side (and frees it twice); it compares numbers as
			 * unsigned 64-bit values, signed fields sign-extended,
			 * so the same number is written as those 64 bits.
			 */
			char num[24];

			snprintf(num, sizeof(num), "%llu",
				 (unsigned long long)strtoll(l->at, NULL, 0));
			emits(l, num);
		} else {
			emit(l, l->at, l->len);
		}
		if (l->t == T_NAME)
			emits(l, "\"");
	}
	return l->err ? l->err : next(l);
}

/* The parsers below set *out to the node they read, or return the error. */
static int parse_pred(struct lex *l, int *out)
{
	l->out = NULL, l->n = l->cap = 0;
	if (pred_text(l)) {
		free(l->out);
		l->out = NULL;
		return l->err;
	}
	*out = add_node(l, N_PRED, -1, -1, l->out);
	l->out = NULL, l->n = l->cap = 0;
	return 0;
}

static int parse_unary(struct lex *l, int depth, int *out)
{
	char b[64];
	int a;

	if (depth > MAX_DEPTH)
		return fail(l, "nested deeper than %d at %s", MAX_DEPTH, shown(l, b, sizeof(b)));
	if (l->t == T_NOT) {
		if (next(l) || parse_unary(l, depth + 1, &a))
			return l->err;
		*out = add_node(l, N_NOT, a, -1, NULL);
		return 0;
	}
	if (l->t == T_LPAREN) {
		if (next(l) || parse_or(l, depth + 1, out))
			return l->err;
		if (l->t != T_RPAREN)
			return fail(l, "expected ')' before %s", shown(l, b, sizeof(b)));
		return next(l);
	}
	return parse_pred(l, out);
}

static int parse_and(struct lex *l, int depth, int *out)
{
	int b;

	if (parse_unary(l, depth, out))
		return l->err;
	while (l->t == T_AND) {
		if (next(l) || parse_unary(l, depth, &b))
			return l->err;
		*out = add_node(l, N_AND, *out, b, NULL);
	}
	return 0;
}

static int parse_or(struct lex *l, int depth, int *out)
{
	int b;

	if (parse_and(l, depth, out))
		return l->err;
	while (l->t == T_OR) {
		if (next(l) || parse_and(l, depth, &b))
			return l->err;
		*out = add_node(l, N_OR, *out, b, NULL);
	}
	return 0;
}

/* What node i is once the NOTs above it (neg) are pushed down: N_PRED, N_AND or N_OR. */
static int effective(const struct lex *l, int i, bool neg)
{
	while (l->nodes[i].kind == N_NOT) {
		neg = !neg;
		i = l->nodes[i].a;
	}
	if (l->nodes[i].kind == N_PRED)
		return N_PRED;
	return (l->nodes[i].kind == N_AND) != neg ? N_AND : N_OR;
}

/*
 * Node i as text, negated when neg.  A '!' only ever goes right before a
 * comparison: libtraceevent leaks the token of "!(" (and the tree is no
 * deeper for it), so a negated group is written by De Morgan's laws.  A
 * negated comparison keeps its '!' rather than flipping the operator: for
 * an event that lacks the field, libtraceevent's "!a == 1" is true, as
 * "!(a == 1)" was.
 */
static void print_node(struct lex *l, int i, bool neg)
{
	const struct node *n = &l->nodes[i];
	int kind;

	if (n->kind == N_NOT) {
		print_node(l, n->a, !neg);
		return;
	}
	if (n->kind == N_PRED) {
		if (neg)
			emits(l, "!");
		emits(l, n->text);
		return;
	}
	kind = effective(l, i, neg);
	for (int side = 0; side < 2; side++) {
		int c = side ? n->b : n->a;
		int ck = effective(l, c, neg);
		bool paren = ck != N_PRED && ck != kind;

		if (side)
			emits(l, kind == N_AND ? " && " : " || ");
		if (paren)
			emits(l, "(");
		print_node(l, c, neg);
		if (paren)
			emits(l, ")");
	}
}

/* An expression, to its end. */
static int parse_expr(struct lex *l, const char *s)
{
	char b[64];

	int root, r = 0;

	l->p = s;
	if (next(l))
		return l->err;
	if (l->t == T_END)
		return fail(l, "no expression");
	if (parse_or(l, 0, &root))
		r = l->err;
	else if (l->t != T_END)
		r = fail(l, "unexpected %s after the expression", shown(l, b, sizeof(b)));
	else
		print_node(l, root, false);
	for (int i = 0; i < l->nnodes; i++)
		free(l->nodes[i].text);
	free(l->nodes);
	l->nodes = NULL;
	l->nnodes = 0;
	return r;
}

/* Bytes an event selector may hold: names, '/', and what a regex of them needs. */
static bool is_event_char(char c)
{
	return is_name(c) || strchr("/.*?+^$[]-", c);
}

/* "sys/name,name2" (up to end): checked and copied without the blanks. */
static int parse_events(struct lex *l, const char *s, const char *end)
{
	const char *p = s;

	for (;;) {
		const char *w;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		for (w = p; w < end && is_event_char(*w); w++)
			;
		if (w == p) {
			if (p == end)
				return fail(l, "no event name before %s", *end ? "':'" : "the end");
			if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
				return fail(l, "unexpected byte 0x%02x in the events",
					    (unsigned char)*p);
			return fail(l, "unexpected '%c' in the events", *p);
		}
		emit(l, p, w - p);
		p = w;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			return 0;
		if (*p != ',') {
			if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
				return fail(l, "unexpected byte 0x%02x in the events",
					    (unsigned char)*p);
			return fail(l, "unexpected '%c' after the event '%.*s'", *p,
				    (int)(w - s > 40 ? 40 : w - s), s);
		}
		emits(l, ",");
		p++;
	}
}

/* The first ':' outside quotes, or NULL. */
static const char *colon(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\'') {
			const char *q = strchr(p + 1, *p);

			if (!q)
				return NULL;
			p = q;
		} else if (*p == ':') {
			return p;
		}
	}
	return NULL;
}

int fmt_filter_parse(const char *filter, unsigned flags, struct fmt_filter *out, char *why,
		     size_t whylen)
{
	struct lex l = { .why = why, .whylen = whylen };
	size_t len = strlen(filter);
	const char *c;

	*out = (struct fmt_filter){ 0 };
	if (len > FMT_CHECK_MAX_FILTER) {
		snprintf(why, whylen, "%zu bytes long; at most %d are taken", len,
			 FMT_CHECK_MAX_FILTER);
		return -EINVAL;
	}
	c = flags & FMT_FILTER_EXPR ? NULL : colon(filter);
	if (c) {
		if (parse_events(&l, filter, c))
			goto fail;
		out->events = l.out ? l.out : xstrdup("");
		l.out = NULL, l.n = l.cap = 0;
		if (parse_expr(&l, c + 1))
			goto fail;
		out->expr = l.out;
		return 0;
	}
	/* No ':': a list of events, unless it reads as an expression. */
	if (!(flags & FMT_FILTER_EXPR) && !strpbrk(filter, "=!<>~&|()\"'")) {
		if (parse_events(&l, filter, filter + len))
			goto fail;
		out->events = l.out;
		return 0;
	}
	if (parse_expr(&l, filter))
		goto fail;
	out->expr = l.out;
	return 0;
fail:
	free(l.out);
	fmt_filter_free(out);
	return l.err ? l.err : -EINVAL;
}

void fmt_filter_free(struct fmt_filter *f)
{
	free(f->events);
	free(f->expr);
	*f = (struct fmt_filter){ 0 };
}

char *fmt_filter_string(const struct fmt_filter *f, const char *events)
{
	const char *ev = f->events ? f->events : events;

	if (ev && f->expr)
		return xasprintf("%s: %s", ev, f->expr);
	return xstrdup(ev ? ev : f->expr ? f->expr : "");
}

const char *fmt_filter_reason(char *msg)
{
	char *end = msg + strlen(msg), *line;

	while (end > msg && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	line = memrchr(msg, '\n', end - msg);
	line = line ? line + 1 : msg;
	if (line[0] >= 'A' && line[0] <= 'Z' && line[1] >= 'a' && line[1] <= 'z')
		line[0] += 'a' - 'A';
	return line;
}

int fmt_check_filter(const char *expr, char *why, size_t whylen)
{
	struct fmt_filter f;
	int r = fmt_filter_parse(expr, 0, &f, why, whylen);

	fmt_filter_free(&f);
	return r;
}

int fmt_filter_compile(struct tep_handle *tep, const char *filter, unsigned flags,
		       const char *events, struct tep_event_filter **out)
{
	struct fmt_filter f;
	char msg[256] = "", *text;
	enum tep_errno e;

	*out = NULL;
	if (fmt_filter_parse(filter, flags, &f, msg, sizeof(msg)))
		return tr_fail(-EINVAL, "bad filter '%.60s%s': %s", filter,
			       strlen(filter) > 60 ? "..." : "", msg);
	text = fmt_filter_string(&f, events);
	fmt_filter_free(&f);
	*out = tep_filter_alloc(tep);
	e = tep_filter_add_filter_str(*out, text);
	free(text);
	if (e < 0) {
		if (tep_filter_strerror(*out, e, msg, sizeof(msg)))
			tep_strerror(tep, e, msg, sizeof(msg));
		tep_filter_free(*out);
		*out = NULL;
		return tr_fail(-EINVAL, "bad filter '%.60s%s': %s", filter,
			       strlen(filter) > 60 ? "..." : "", fmt_filter_reason(msg));
	}
	return 0;
}
