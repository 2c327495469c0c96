// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The formatter's data lines: JSON, a record as one object a line with every
 * field typed (numbers, strings, arrays); CSV, the common columns and the
 * event's text.
 */
#include <string.h>

#include "fmt-core-local.h"
#include "json.h"

void fmt_put_json_str(struct fmt *f, const char *p, size_t n)
{
	grow(f, JSON_ESCAPED_MAX(n));
	f->ln.len += json_escape(f->ln.p + f->ln.len, p, n);
}

static void put_csv_str(struct fmt *f, const char *p, size_t n)
{
	grow(f, CSV_QUOTED_MAX(n));
	f->ln.len += csv_quote(f->ln.p + f->ln.len, p, n);
}

bool fmt_char_field(const struct tep_format_field *fld)
{
	const char *t = fld->type;

	if (fld->flags & TEP_FIELD_IS_STRING)
		return true;
	if (!strncmp(t, "__data_loc ", 11))
		t += 11;
	if (!strncmp(t, "__rel_loc ", 10))
		t += 10;
	if (!strncmp(t, "const ", 6))
		t += 6;
	if (!strncmp(t, "unsigned ", 9) || !strncmp(t, "signed ", 7))
		return false;
	return !strncmp(t, "char", 4) && (t[4] == '[' || t[4] == ' ' || !t[4]);
}

static void put_json_num(struct fmt *f, struct fmt_src *s, const uint8_t *p, int size, bool sign)
{
	uint64_t v;

	if (size != 1 && size != 2 && size != 4 && size != 8) {
		putc_(f, '"');
		for (int i = 0; i < size; i++)
			fmt_line_printf(&f->ln, "%02x", p[i]);
		putc_(f, '"');
		return;
	}
	v = rd_num(s, p, size);
	if (sign) {
		int shift = 64 - size * 8;

		put_i(f, (int64_t)(v << shift) >> shift);
	} else {
		put_u(f, v, 0, false);
	}
}

static void put_json_field(struct fmt *f, struct fmt_src *s, const struct tep_format_field *fld,
			   const struct tfile_event *ev)
{
	const uint8_t *data = ev->data, *p;
	uint32_t off = fld->offset, len = fld->size;
	bool sign = fld->flags & TEP_FIELD_IS_SIGNED;

	/* A char buf[] of size 0 (ftrace's print) runs to the end of the record. */
	if (!len && (fld->flags & TEP_FIELD_IS_ARRAY) && !(fld->flags & TEP_FIELD_IS_DYNAMIC) &&
	    off <= ev->size)
		len = ev->size - off;
	if (off + (uint64_t)len > ev->size) {
		puts_(f, "null");
		return;
	}
	if (fld->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t v = rd_num(s, data + off, len >= 4 ? 4 : len);

		off = (fld->flags & TEP_FIELD_IS_RELATIVE) ? fld->offset + fld->size + (v & 0xffff)
							   : (v & 0xffff);
		len = v >> 16;
		if (off + (uint64_t)len > ev->size) {
			puts_(f, "null");
			return;
		}
	} else if (!(fld->flags & TEP_FIELD_IS_ARRAY)) {
		put_json_num(f, s, data + off, len, sign);
		return;
	}
	p = data + off;
	if (fmt_char_field(fld)) {
		fmt_put_json_str(f, (const char *)p, strnlen((const char *)p, len));
		return;
	}
	{
		int el = fld->elementsize;

		if (el <= 0 || el > 8)
			el = 1;
		putc_(f, '[');
		for (uint32_t i = 0; i + el <= len; i += el) {
			if (i)
				putc_(f, ',');
			put_json_num(f, s, p + i, el, sign);
		}
		putc_(f, ']');
	}
}

void fmt_json_event(struct fmt *f, struct fmt_src *s, struct ev_info *ei, const char *prefix,
		    const struct tfile_event *ev, int pid)
{
	const char *comm = fmt_src_comm(s, pid);

	puts_(f, "{\"ts\":");
	put_u(f, ev->ts, 0, false);
	puts_(f, ",\"cpu\":");
	put_i(f, ev->cpu);
	puts_(f, ",\"pid\":");
	put_i(f, pid);
	puts_(f, ",\"comm\":");
	fmt_put_json_str(f, comm, strlen(comm));
	if (prefix && *prefix) {
		size_t n = strlen(prefix);

		/* The prefix is "name: "; JSON wants the name. */
		while (n && (prefix[n - 1] == ' ' || prefix[n - 1] == ':'))
			n--;
		puts_(f, ",\"buffer\":");
		fmt_put_json_str(f, prefix, n);
	}
	if (s->file) {
		puts_(f, ",\"file\":");
		fmt_put_json_str(f, s->file, strlen(s->file));
	}
	if (!ei->event) {
		puts_(f, ",\"event\":null}\n");
		return;
	}
	puts_(f, ",\"system\":");
	fmt_put_json_str(f, ei->event->system, strlen(ei->event->system));
	puts_(f, ",\"event\":");
	fmt_put_json_str(f, ei->event->name, strlen(ei->event->name));
	puts_(f, ",\"fields\":{");
	for (struct tep_format_field *fld = ei->event->format.fields; fld; fld = fld->next) {
		if (fld != ei->event->format.fields)
			putc_(f, ',');
		fmt_put_json_str(f, fld->name, strlen(fld->name));
		putc_(f, ':');
		put_json_field(f, s, fld, ev);
	}
	puts_(f, "}}\n");
}

/* A CSV row: timestamp,cpu,comm,pid,system,event,info (fmt_new() wrote the header). */
void fmt_csv_event(struct fmt *f, struct fmt_src *s, struct ev_info *ei,
		   const struct tfile_event *ev, int pid, struct tep_record *rec)
{
	const char *comm = fmt_src_comm(s, pid);

	put_u(f, ev->ts / 1000000000ULL, 0, false);
	putc_(f, '.');
	put_u(f, ev->ts % 1000000000ULL, 9, true);
	putc_(f, ',');
	put_i(f, ev->cpu);
	putc_(f, ',');
	put_csv_str(f, comm, strlen(comm));
	putc_(f, ',');
	put_i(f, pid);
	putc_(f, ',');
	if (ei->event) {
		put_csv_str(f, ei->event->system, strlen(ei->event->system));
		putc_(f, ',');
		put_csv_str(f, ei->event->name, strlen(ei->event->name));
	} else {
		putc_(f, ',');
	}
	putc_(f, ',');
	f->txt.len = 0;
	fmt_event_text(f, s, ei, rec, false, &f->txt);
	put_csv_str(f, f->txt.p, f->txt.len);
	putc_(f, '\n');
}
