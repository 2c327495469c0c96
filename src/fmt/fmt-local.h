/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The formatter's private parts, shared by src/fmt*.c only (the interface
 * is include/fmt.h).
 */
#ifndef TR_FMT_LOCAL_H
#define TR_FMT_LOCAL_H

#include <stdarg.h>

#include "fmt.h"

struct tep_event;

struct fmt_line {
	char *p;
	size_t len, cap;
};

static inline void fmt_line_grow(struct fmt_line *l, size_t more)
{
	if (l->len + more > l->cap) {
		l->cap = (l->len + more) * 2;
		l->p = xrealloc(l->p, l->cap);
	}
}

/* printf onto the end of the line (the one helper for every part of the formatter). */
void fmt_line_printf(struct fmt_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fmt_line_vprintf(struct fmt_line *l, const char *fmt, va_list ap);

/*
 * The fast printer: an event's print fmt compiled once into steps that need
 * neither malloc nor libtraceevent per record.  Only print fmts whose every
 * conversion it can render exactly as libtraceevent does compile; the rest
 * return NULL and go through tep_print_event.
 */
struct fmt_prog;
struct fmt_prog *fmt_prog_compile(struct tep_handle *tep, struct tep_event *e);
/* Append the event text; false if this record needs libtraceevent after all. */
bool fmt_prog_run(const struct fmt_prog *p, struct tep_handle *tep, const void *data,
		  uint32_t size, struct fmt_line *out);
void fmt_prog_free(struct fmt_prog *p);

/*
 * User events: the kernel prints them field by field, not by their print
 * fmt (fmt-user.c).  fmt_user_event() says whether an event is one.
 */
bool fmt_user_event(const struct tep_event *e);
void fmt_user_text(struct tep_handle *tep, struct tep_event *e, const void *data,
		   uint32_t size, struct fmt_line *out);

#endif
