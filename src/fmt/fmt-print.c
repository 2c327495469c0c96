// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fast printer.  libtraceevent's tep_print_event renders an event's
 * print fmt correctly but allocates and re-reads its format on every
 * record; for the common print fmts -- literal text with %d/%u/%x/%s/%ps
 * conversions of plain fields, 64-bit casts and __get_str() strings, and
 * the expressions sched_switch uses for prev_state (arithmetic on fields
 * and constants, "? :", __print_flags, __print_symbolic) -- this compiles
 * the print fmt once into a list of steps and runs them with no allocation.
 *
 * Exactness is the rule: a print fmt compiles only when each conversion's
 * output is certain to match what libtraceevent prints (numbers are read at
 * the field's size and cast as the conversion's length modifier says, which
 * is what libtraceevent does); anything else (casts to narrower types,
 * signed arithmetic, helper functions, escapes, %c, %p other than %ps)
 * makes compile return NULL, and a record the steps cannot render with
 * certainty (an address with no symbol, a string outside the record, flag
 * bits no table entry names, a symbol value not in the table) makes run
 * return false.  The caller also checks the first records of each event
 * against libtraceevent (see fmt.c), and tests/unit/test-fmt.c the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-local.h"
#include "tfile-format.h"

enum step_kind { ST_LIT, ST_NUM, ST_STR_ARRAY, ST_STR_DYN, ST_FUNC, ST_EXPR_NUM, ST_EXPR_STR };

struct step {
	enum step_kind kind;
	uint32_t lit_off, lit_len;	/* ST_LIT: text in prog->text */
	int off, size;			/* the field */
	bool rel;			/* __rel_loc string */
	bool simple;			/* no flags, width or precision */
	bool is_signed;			/* the conversion: d, i */
	char conv;			/* d i u x X o s */
	int ls;				/* -2 hh, -1 h, 0, 1 l, 2 ll */
	char spec[24];			/* the conversion as written, for snprintf */
	struct tep_print_arg *arg;	/* ST_EXPR_*: the expression */
};

struct fmt_prog {
	int n;
	struct step *steps;
	char *text;
	/* The constants of expressions, parsed once: keyed by their text's address. */
	struct {
		const char *s;
		unsigned long long v;
	} consts[128];
	/* A few recent address -> symbol lookups for %ps. */
	struct {
		unsigned long long addr;
		const char *name;
	} cache[64];
};

static struct tep_format_field *arg_field(struct tep_event *e, struct tep_print_arg *a)
{
	/* "(void *)REC->ip": a cast to a pointer changes nothing we print. */
	if (a->type == TEP_PRINT_TYPE && a->typecast.item && a->typecast.type &&
	    !strcmp(a->typecast.type, "void *") && a->typecast.item->type == TEP_PRINT_FIELD)
		a = a->typecast.item;
	if (a->type == TEP_PRINT_FIELD)
		return a->field.field ? a->field.field : tep_find_any_field(e, a->field.name);
	if (a->type == TEP_PRINT_STRING)
		return a->string.field ? a->string.field : tep_find_field(e, a->string.string);
	return NULL;
}

static bool field_is_char_array(const struct tep_format_field *f)
{
	const char *t = f->type;

	if (!(f->flags & TEP_FIELD_IS_ARRAY) || (f->flags & TEP_FIELD_IS_DYNAMIC))
		return false;
	if (!strncmp(t, "const ", 6))
		t += 6;
	return !strncmp(t, "char ", 5) || !strncmp(t, "char[", 5);
}

static int cast_size(int ls)
{
	switch (ls) {
	case -2: return 1;
	case -1: return 2;
	case 0: return 4;
	default: return 8;
	}
}

/*
 * Expressions: the arithmetic, __print_flags, __print_symbolic and "? :"
 * of print fmts like sched_switch's prev_state.  Only what is certain to
 * come out as libtraceevent prints it is accepted: unsigned fields (or full
 * 64-bit signed ones, where sign cannot matter to the operators allowed),
 * numeric constants, the operators below, and flag and symbol tables of
 * plain numbers.  A value the tables cannot fully name, a zero flags value
 * or an oversized shift sends the record to libtraceevent.
 */
enum { MAX_DEPTH = 16 };

static bool parse_const(const char *s, unsigned long long *v)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !*end && !errno && s[0] != '-';
}

static struct tep_format_field *expr_field(struct tep_event *e, struct tep_print_arg *a)
{
	/* libtraceevent resolves the field the same way the first time it prints. */
	if (!a->field.field)
		a->field.field = tep_find_any_field(e, a->field.name);
	return a->field.field;
}

static bool num_ok(struct tep_event *e, struct tep_print_arg *a, int depth)
{
	static const char *const ops[] = { "&", "|", "^", "+", "-", "*", "<<", "==", "!=", "&&",
					   "||", NULL };
	struct tep_format_field *f;
	unsigned long long v;

	if (!a || depth > MAX_DEPTH)
		return false;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		return parse_const(a->atom.atom, &v);
	case TEP_PRINT_FIELD:
		f = expr_field(e, a);
		if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) ||
		    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
			return false;
		return !(f->flags & TEP_FIELD_IS_SIGNED) || f->size == 8;
	case TEP_PRINT_OP:
		if (!a->op.op)
			return false;
		if (!strcmp(a->op.op, "?"))
			return a->op.right && a->op.right->type == TEP_PRINT_OP &&
			       a->op.right->op.op && !strcmp(a->op.right->op.op, ":") &&
			       num_ok(e, a->op.left, depth + 1) &&
			       num_ok(e, a->op.right->op.left, depth + 1) &&
			       num_ok(e, a->op.right->op.right, depth + 1);
		for (int i = 0; ops[i]; i++)
			if (!strcmp(a->op.op, ops[i]))
				return num_ok(e, a->op.left, depth + 1) &&
				       num_ok(e, a->op.right, depth + 1);
		return false;
	default:
		return false;
	}
}

/* Flag and symbol tables of plain numbers (flags: no 0, whose meaning varies). */
static bool table_ok(struct tep_print_flag_sym *t, bool zero_ok)
{
	unsigned long long v;

	for (; t; t = t->next)
		if (!parse_const(t->value, &v) || (!v && !zero_ok) || !t->str)
			return false;
	return true;
}

static bool str_ok(struct tep_event *e, struct tep_print_arg *a, int depth)
{
	if (!a || depth > MAX_DEPTH)
		return false;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		return a->atom.atom != NULL;
	case TEP_PRINT_FLAGS:
		return num_ok(e, a->flags.field, depth + 1) && table_ok(a->flags.flags, false);
	case TEP_PRINT_SYMBOL:
		return num_ok(e, a->symbol.field, depth + 1) && table_ok(a->symbol.symbols, true);
	case TEP_PRINT_OP:
		return a->op.op && !strcmp(a->op.op, "?") && a->op.right &&
		       a->op.right->type == TEP_PRINT_OP && a->op.right->op.op &&
		       !strcmp(a->op.right->op.op, ":") && num_ok(e, a->op.left, depth + 1) &&
		       str_ok(e, a->op.right->op.left, depth + 1) &&
		       str_ok(e, a->op.right->op.right, depth + 1);
	default:
		return false;
	}
}

struct ectx {
	struct tep_handle *tep;
	const uint8_t *d;
	uint32_t size;
	struct fmt_prog *p;
};

static bool cached_const(const struct ectx *c, const char *s, unsigned long long *v);

static bool eval_num(const struct ectx *c, const struct tep_print_arg *a, unsigned long long *v)
{
	unsigned long long l, r;
	const char *op;

	switch (a->type) {
	case TEP_PRINT_ATOM:
		return cached_const(c, a->atom.atom, v);
	case TEP_PRINT_FIELD: {
		const struct tep_format_field *f = a->field.field;

		if ((uint64_t)f->offset + f->size > c->size)
			return false;
		*v = tep_read_number(c->tep, c->d + f->offset, f->size);
		return true;
	}
	case TEP_PRINT_OP:
		op = a->op.op;
		if (!eval_num(c, a->op.left, &l))
			return false;
		if (op[0] == '?')
			return eval_num(c, l ? a->op.right->op.left : a->op.right->op.right, v);
		if (!eval_num(c, a->op.right, &r))
			return false;
		if (!strcmp(op, "&&"))
			*v = l && r;
		else if (!strcmp(op, "||"))
			*v = l || r;
		else if (!strcmp(op, "<<")) {
			if (r >= 64)
				return false;
			*v = l << r;
		} else if (!strcmp(op, "=="))
			*v = l == r;
		else if (!strcmp(op, "!="))
			*v = l != r;
		else if (op[0] == '&')
			*v = l & r;
		else if (op[0] == '|')
			*v = l | r;
		else if (op[0] == '^')
			*v = l ^ r;
		else if (op[0] == '+')
			*v = l + r;
		else if (op[0] == '-')
			*v = l - r;
		else if (op[0] == '*')
			*v = l * r;
		else
			return false;
		return true;
	default:
		return false;
	}
}

static inline void put(struct fmt_line *o, const char *s, size_t n);

static bool eval_str(const struct ectx *c, const struct tep_print_arg *a, struct fmt_line *o)
{
	unsigned long long v, fv;
	const struct tep_print_flag_sym *t;
	bool any = false;

	switch (a->type) {
	case TEP_PRINT_ATOM:
		put(o, a->atom.atom, strlen(a->atom.atom));
		return true;
	case TEP_PRINT_OP:
		if (!eval_num(c, a->op.left, &v))
			return false;
		return eval_str(c, v ? a->op.right->op.left : a->op.right->op.right, o);
	case TEP_PRINT_SYMBOL:
		if (!eval_num(c, a->symbol.field, &v))
			return false;
		for (t = a->symbol.symbols; t; t = t->next)
			if (cached_const(c, t->value, &fv) && fv == v) {
				put(o, t->str, strlen(t->str));
				return true;
			}
		return false;
	case TEP_PRINT_FLAGS:
		if (!eval_num(c, a->flags.field, &v) || !v)
			return false;
		for (t = a->flags.flags; t && v; t = t->next) {
			if (!cached_const(c, t->value, &fv) || (v & fv) != fv)
				continue;
			if (any && a->flags.delim)
				put(o, a->flags.delim, strlen(a->flags.delim));
			put(o, t->str, strlen(t->str));
			any = true;
			v &= ~fv;
		}
		/* Bits no flag names: libtraceevent's way of printing them is its own. */
		return !v;
	default:
		return false;
	}
}

static bool cached_const(const struct ectx *c, const char *s, unsigned long long *v)
{
	unsigned h = ((uintptr_t)s >> 3) & 127;

	if (c->p->consts[h].s == s) {
		*v = c->p->consts[h].v;
		return true;
	}
	if (!parse_const(s, v))
		return false;
	c->p->consts[h].s = s;
	c->p->consts[h].v = *v;
	return true;
}

/* A cast to a 64-bit integer type: "(unsigned long long)REC->runtime". */
static bool is_cast64(struct tep_handle *tep, const struct tep_print_arg *a)
{
	static const char *const types[] = { "unsigned long long", "long long", "u64", "s64",
					     "unsigned long", "long", NULL };

	if (a->type != TEP_PRINT_TYPE || !a->typecast.type || !a->typecast.item ||
	    a->typecast.item->type != TEP_PRINT_FIELD)
		return false;
	for (int i = 0; types[i]; i++)
		if (!strcmp(a->typecast.type, types[i]))
			return i < 4 || tep_get_long_size(tep) == 8;
	return false;
}

struct fmt_prog *fmt_prog_compile(struct tep_handle *tep, struct tep_event *e)
{
	const char *f = e->print_fmt.format;
	struct tep_print_arg *arg = e->print_fmt.args;
	struct fmt_prog *p;
	size_t tlen = 0, lit_start = 0;

	if (!f || strchr(f, '\\') || (e->flags & TEP_EVENT_FL_FAILED) || e->handler)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->text = xstrdup(f);
	p->steps = xcalloc(strlen(f) * 2 + 2, sizeof(*p->steps));
	tlen = strlen(f);
	for (size_t i = 0; i <= tlen; i++) {
		struct step st = { 0 };
		struct tep_format_field *fld;
		struct tfile_conv cv;
		size_t j, k;

		if (f[i] && f[i] != '%')
			continue;
		if (i > lit_start)
			p->steps[p->n++] = (struct step){ .kind = ST_LIT, .lit_off = lit_start,
							  .lit_len = i - lit_start };
		if (!f[i])
			break;
		if (f[i + 1] == '%') {
			/* "%%": the second '%' starts the next literal. */
			lit_start = i + 1;
			i++;
			continue;
		}
		/* Flags, a width and a precision of digits, modifiers of l, h and L only. */
		k = tfile_conv_scan(f + i, tlen - i, &cv);
		if (!k || cv.width == TFILE_CONV_STAR || cv.prec == TFILE_CONV_STAR)
			goto fail;
		st.simple = !cv.flags && cv.width < 0 && cv.prec < 0;
		for (size_t q = 0; q < cv.qual_len; q++) {
			if (!strchr("lhL", cv.qual[q]))
				goto fail;
			st.ls += cv.qual[q] == 'l' ? 1 : cv.qual[q] == 'L' ? 2 : -1;
		}
		if (st.ls < -2 || st.ls > 2 || !arg)
			goto fail;
		st.conv = cv.conv;
		j = i + k - 1;
		if (k >= sizeof(st.spec))
			goto fail;
		memcpy(st.spec, f + i, k);
		/* printf reads %Lu as %llu; say so for the snprintf path. */
		if (strchr(st.spec, 'L')) {
			char *L = strchr(st.spec, 'L');

			if (k + 1 >= sizeof(st.spec))
				goto fail;
			memmove(L + 1, L, strlen(L) + 1);
			L[0] = L[1] = 'l';
		}
		fld = arg_field(e, arg);
		if (!fld && is_cast64(tep, arg))
			fld = expr_field(e, arg->typecast.item);
		switch (st.conv) {
		case 'd':
		case 'i':
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			st.is_signed = st.conv == 'd' || st.conv == 'i';
			if (fld && (arg->type == TEP_PRINT_FIELD || is_cast64(tep, arg)) &&
			    !(fld->flags & TEP_FIELD_IS_ARRAY) &&
			    (fld->size == 1 || fld->size == 2 || fld->size == 4 ||
			     fld->size == 8)) {
				int cs = arg->type == TEP_PRINT_TYPE ? 8 : cast_size(st.ls);

				/* A signed field narrower than the cast: sign-extended? */
				if ((fld->flags & TEP_FIELD_IS_SIGNED) && fld->size < cs)
					goto fail;
				st.kind = ST_NUM;
				break;
			}
			if (!num_ok(e, arg, 0))
				goto fail;
			st.kind = ST_EXPR_NUM;
			st.arg = arg;
			break;
		case 's':
			if (st.ls)
				goto fail;
			if (fld && arg->type == TEP_PRINT_STRING &&
			    (fld->flags & TEP_FIELD_IS_DYNAMIC) && fld->size == 4) {
				st.kind = ST_STR_DYN;
				st.rel = fld->flags & TEP_FIELD_IS_RELATIVE;
			} else if (fld && arg->type == TEP_PRINT_FIELD &&
				   field_is_char_array(fld)) {
				st.kind = ST_STR_ARRAY;
			} else if (st.simple && str_ok(e, arg, 0)) {
				st.kind = ST_EXPR_STR;
				st.arg = arg;
			} else {
				goto fail;
			}
			break;
		case 'p':
			/* Only %ps: the symbol's name alone. */
			if (!fld || f[j + 1] != 's' || st.ls || !st.simple ||
			    (arg->type != TEP_PRINT_FIELD && arg->type != TEP_PRINT_TYPE) ||
			    (fld->flags & TEP_FIELD_IS_ARRAY) ||
			    fld->size != tep_get_long_size(tep))
				goto fail;
			j++;
			st.kind = ST_FUNC;
			break;
		default:
			goto fail;
		}
		if (fld) {
			st.off = fld->offset;
			st.size = fld->size;
		}
		p->steps[p->n++] = st;
		arg = arg->next;
		lit_start = j + 1;
		i = j;
	}
	if (arg)
		goto fail;	/* more arguments than conversions: not ours */
	return p;
fail:
	fmt_prog_free(p);
	return NULL;
}

void fmt_prog_free(struct fmt_prog *p)
{
	if (!p)
		return;
	free(p->steps);
	free(p->text);
	free(p);
}

static inline void put(struct fmt_line *o, const char *s, size_t n)
{
	if (!n)
		return;
	fmt_line_grow(o, n);
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static unsigned conv_base(char conv)
{
	return conv == 'o' ? 8 : (conv == 'x' || conv == 'X') ? 16 : 10;
}

static void put_num(struct fmt_line *o, const struct step *st, uint64_t raw)
{
	char tmp[64];
	int n;

	/* Cast as the length modifier says, as printf would see the argument. */
	if (st->ls >= 1) {
		if (st->simple) {
			bool neg = st->is_signed && (int64_t)raw < 0;
			uint64_t v = neg ? -(uint64_t)raw : raw;
			unsigned base = conv_base(st->conv);
			const char *dig = st->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";

			n = 0;
			do {
				tmp[sizeof(tmp) - 1 - n++] = dig[v % base];
				v /= base;
			} while (v);
			if (neg)
				tmp[sizeof(tmp) - 1 - n++] = '-';
			put(o, tmp + sizeof(tmp) - n, n);
			return;
		}
		n = snprintf(tmp, sizeof(tmp), st->spec, (long long)raw);
	} else {
		int v;

		if (st->ls == -2)
			v = st->is_signed ? (int)(signed char)raw : (int)(unsigned char)raw;
		else if (st->ls == -1)
			v = st->is_signed ? (int)(short)raw : (int)(unsigned short)raw;
		else
			v = (int)(uint32_t)raw;
		if (st->simple && st->ls == 0) {
			bool neg = st->is_signed && v < 0;
			uint64_t u = st->is_signed ? (neg ? -(int64_t)v : v) : (uint32_t)v;
			unsigned base = conv_base(st->conv);
			const char *dig = st->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";

			n = 0;
			do {
				tmp[sizeof(tmp) - 1 - n++] = dig[u % base];
				u /= base;
			} while (u);
			if (neg)
				tmp[sizeof(tmp) - 1 - n++] = '-';
			put(o, tmp + sizeof(tmp) - n, n);
			return;
		}
		n = snprintf(tmp, sizeof(tmp), st->spec, v);
	}
	if (n > 0)
		put(o, tmp, n < (int)sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void put_str(struct fmt_line *o, const struct step *st, const char *s, size_t n)
{
	char tmp[512], *copy;
	int len;

	if (st->simple) {
		put(o, s, n);
		return;
	}
	/* Width or precision: let printf apply them to a terminated copy. */
	copy = n < sizeof(tmp) ? tmp : xmalloc(n + 1);
	memcpy(copy, s, n);
	copy[n] = '\0';
	len = snprintf(NULL, 0, st->spec, copy);
	if (len > 0) {
		fmt_line_grow(o, len + 1);
		snprintf(o->p + o->len, len + 1, st->spec, copy);
		o->len += len;
	}
	if (copy != tmp)
		free(copy);
}

bool fmt_prog_run(const struct fmt_prog *cp, struct tep_handle *tep, const void *data,
		  uint32_t size, struct fmt_line *out)
{
	struct fmt_prog *p = (struct fmt_prog *)cp;
	const uint8_t *d = data;
	size_t start = out->len;

	for (int i = 0; i < p->n; i++) {
		const struct step *st = &p->steps[i];

		if (st->kind == ST_LIT) {
			put(out, p->text + st->lit_off, st->lit_len);
			continue;
		}
		if (st->kind == ST_EXPR_NUM || st->kind == ST_EXPR_STR) {
			struct ectx c = { tep, d, size, p };
			unsigned long long v;

			if (st->kind == ST_EXPR_STR ? !eval_str(&c, st->arg, out)
						    : !eval_num(&c, st->arg, &v))
				goto slow;
			if (st->kind == ST_EXPR_NUM)
				put_num(out, st, v);
			continue;
		}
		if ((uint64_t)st->off + st->size > size)
			goto slow;
		switch (st->kind) {
		case ST_NUM:
			put_num(out, st, tep_read_number(tep, d + st->off, st->size));
			break;
		case ST_STR_ARRAY: {
			/* A char[] of size 0 runs to the end of the record. */
			size_t n = st->size ? (size_t)st->size : size - st->off;

			const char *str = (const char *)d + st->off;

			put_str(out, st, str, strnlen(str, n));
			break;
		}
		case ST_STR_DYN: {
			uint32_t v = tep_read_number(tep, d + st->off, 4);
			uint32_t off = (v & 0xffff) + (st->rel ? st->off + 4 : 0), len = v >> 16;
			const char *s;
			size_t n;

			if ((uint64_t)off + len > size)
				goto slow;
			s = (const char *)d + off;
			n = strnlen(s, len);
			if (n == len && len)
				goto slow;	/* not terminated inside its field */
			put_str(out, st, s, n);
			break;
		}
		case ST_FUNC: {
			unsigned long long addr = tep_read_number(tep, d + st->off, st->size);
			unsigned h = (addr >> 4 ^ addr >> 12) & 63;
			const char *name;

			if (p->cache[h].name && p->cache[h].addr == addr) {
				name = p->cache[h].name;
			} else {
				name = tep_find_function(tep, addr);
				if (!name)
					goto slow;
				p->cache[h].addr = addr;
				p->cache[h].name = name;
			}
			put(out, name, strlen(name));
			break;
		}
		default:
			goto slow;
		}
	}
	return true;
slow:
	out->len = start;
	return false;
}
