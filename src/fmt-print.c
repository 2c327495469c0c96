// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fast printer.  libtraceevent's tep_print_event renders an event's
 * print fmt correctly but allocates and re-reads its format on every
 * record; for the common print fmts -- literal text with %d/%u/%x/%s/%ps
 * conversions of plain fields and __get_str() strings -- this compiles the
 * print fmt once into a list of steps and runs them with no allocation.
 *
 * Exactness is the rule: a print fmt compiles only when each conversion's
 * output is certain to match what libtraceevent prints (numbers are read at
 * the field's size and cast as the conversion's length modifier says, which
 * is what libtraceevent does); anything else (flags, symbols, casts,
 * arithmetic, helper functions, escapes) makes compile return NULL, and a
 * record the steps cannot handle (an address with no symbol, a string
 * outside the record) makes run return false.  The caller also checks the
 * first records of each event against libtraceevent (see fmt.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#define FMT_INTERNAL
#include "fmt.h"

enum step_kind { ST_LIT, ST_NUM, ST_STR_ARRAY, ST_STR_DYN, ST_FUNC };

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
};

struct fmt_prog {
	int n;
	struct step *steps;
	char *text;
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
		size_t j = i + 1, k;

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
		/* flags, width, precision */
		while (f[j] && strchr("-+ #0", f[j]))
			j++;
		while (f[j] >= '0' && f[j] <= '9')
			j++;
		if (f[j] == '.') {
			j++;
			while (f[j] >= '0' && f[j] <= '9')
				j++;
		}
		st.simple = j == i + 1;
		while (f[j] == 'l' || f[j] == 'h') {
			st.ls += f[j] == 'l' ? 1 : -1;
			j++;
		}
		if (st.ls < -2 || st.ls > 2 || !f[j] || !arg)
			goto fail;
		st.conv = f[j];
		k = j - i + 1;
		if (k >= sizeof(st.spec))
			goto fail;
		memcpy(st.spec, f + i, k);
		fld = arg_field(e, arg);
		if (!fld)
			goto fail;
		switch (st.conv) {
		case 'd':
		case 'i':
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			if (arg->type != TEP_PRINT_FIELD || (fld->flags & TEP_FIELD_IS_ARRAY) ||
			    (fld->size != 1 && fld->size != 2 && fld->size != 4 && fld->size != 8))
				goto fail;
			/* A signed field narrower than the cast: sign extension is unclear. */
			if ((fld->flags & TEP_FIELD_IS_SIGNED) && fld->size < cast_size(st.ls))
				goto fail;
			st.kind = ST_NUM;
			st.is_signed = st.conv == 'd' || st.conv == 'i';
			break;
		case 's':
			if (st.ls)
				goto fail;
			if (arg->type == TEP_PRINT_STRING && (fld->flags & TEP_FIELD_IS_DYNAMIC) &&
			    fld->size == 4) {
				st.kind = ST_STR_DYN;
				st.rel = fld->flags & TEP_FIELD_IS_RELATIVE;
			} else if (arg->type == TEP_PRINT_FIELD && field_is_char_array(fld)) {
				st.kind = ST_STR_ARRAY;
			} else {
				goto fail;
			}
			break;
		case 'p':
			/* Only %ps: the symbol's name alone. */
			if (f[j + 1] != 's' || st.ls || !st.simple ||
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
		st.off = fld->offset;
		st.size = fld->size;
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
	fmt_line_grow(o, n);
	memcpy(o->p + o->len, s, n);
	o->len += n;
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
			unsigned base = st->conv == 'o' ? 8 : (st->conv == 'x' || st->conv == 'X') ? 16 : 10;
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
			unsigned base = st->conv == 'o' ? 8 : (st->conv == 'x' || st->conv == 'X') ? 16 : 10;
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
		if ((uint64_t)st->off + st->size > size)
			goto slow;
		switch (st->kind) {
		case ST_NUM:
			put_num(out, st, tep_read_number(tep, d + st->off, st->size));
			break;
		case ST_STR_ARRAY: {
			/* A char[] of size 0 runs to the end of the record. */
			size_t n = st->size ? (size_t)st->size : size - st->off;

			put_str(out, st, (const char *)d + st->off, strnlen((const char *)d + st->off, n));
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
