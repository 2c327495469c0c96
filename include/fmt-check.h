/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event-format checker: what tr hands libtraceevent from a trace file.
 *
 * libtraceevent parses an event's format text (tep_parse_event) and later
 * evaluates its print fmt against each record (tep_print_event) without
 * checking either against anything: a format naming a field it lacks, a
 * division by zero, a __print_hex or __print_array whose length is not
 * bounded by the record, or a width of 2^31 crashes it, hangs it or makes it
 * print memory past the record.  A trace file is data from anywhere, so
 * every format from a file goes through here first:
 *
 *   fmt_check_format(text, len, &res);
 *   if (res.verdict == FMT_CHECK_OK)   parse text as it is
 *   else                               parse res.safe instead, then free it
 *
 * The checker is strict where the kernel's own formats never go: it accepts
 * the formats a kernel writes (the unit tests hold some; a statement
 * expression "({ ... })", which libtraceevent cannot evaluate anyway, is
 * refused), and anything it cannot show to be safe is "risky" as much as
 * wrong.  One check is left to the formatter: a __print_hex or
 * __print_array length given as a field alone (REC->len) is allowed here,
 * and fmt.c compares the field's value with each record's size.
 *
 * res.safe keeps the event's name, ID and every field line that is sound
 * (a field line that is not, e.g. one running past 64 KiB, is dropped), and
 * its print fmt is replaced by FMT_CHECK_MARK followed by the reason.  The
 * formatter (fmt.c) recognises the mark, warns once per event type with the
 * reason and prints the record's fields with its own bounds-checked printer.
 */
#ifndef TR_FMT_CHECK_H
#define TR_FMT_CHECK_H

#include <stddef.h>

enum fmt_check_verdict {
	FMT_CHECK_OK,		/* hand the text to libtraceevent as it is */
	FMT_CHECK_PRINT,	/* the fields are sound, the print fmt is not */
	FMT_CHECK_FIELDS,	/* some field lines are not: they are left out too */
};

/* The print fmt of a format the checker withheld starts with this. */
#define FMT_CHECK_MARK "tr withheld the print fmt: "

/* No field of a format lies past this (a record is at most a page). */
#define FMT_CHECK_MAX_RECORD 65536

struct fmt_check {
	enum fmt_check_verdict verdict;
	char why[160];		/* the first problem found, for the warning */
	char *safe;		/* malloc'ed, NUL-terminated; NULL when OK */
	size_t safe_len;
};

/* Check one event format text (need not be NUL-terminated); fills *res. */
void fmt_check_format(const char *text, size_t len, struct fmt_check *res);

/*
 * Check a print fmt alone (what follows "print fmt: "), against the fields
 * given as "name" strings with their sizes and signedness.  0 if safe, or
 * -EINVAL with the reason in why.  For the unit tests and fmt_check_format.
 */
struct fmt_check_field {
	const char *name;
	size_t name_len;
	int offset, size;
	int is_signed;
};
int fmt_check_print(const char *print, size_t len, const struct fmt_check_field *fields,
		    int nfields, char *why, size_t whylen);

/*
 * The fence before libtraceevent's filter parser (fmt-filter.c), whose
 * own parser crashes on some malformed strings: a filter as the user wrote
 * it, "EVENTS: EXPR", "EVENTS" or "EXPR", parsed in the kernel's grammar
 * (events.rst, "Event filtering") and rewritten for
 * tep_filter_add_filter_str.  The kernel's '~' glob becomes libtraceevent's
 * '=~' with an anchored regex, a bare word value a quoted string.
 * FMT_FILTER_EXPR: the text is an expression only (hist's -f, whose event
 * is known), a ':' in it is an error.  0 with out filled (events or expr may
 * be NULL; free with fmt_filter_free), or -EINVAL with a one-line reason
 * naming the bad token in why.  At most FMT_CHECK_MAX_FILTER bytes:
 * libtraceevent copies a filter into a 1 KB error buffer twice over.
 */
#define FMT_CHECK_MAX_FILTER 480
#define FMT_FILTER_EXPR 1u
struct fmt_filter {
	char *events;		/* "sys/name,name" or NULL */
	char *expr;		/* the canonical expression or NULL */
};
int fmt_filter_parse(const char *filter, unsigned flags, struct fmt_filter *out, char *why,
		     size_t whylen);
void fmt_filter_free(struct fmt_filter *f);
/* The string for tep_filter_add_filter_str, with events (if f names none) before the expression. */
char *fmt_filter_string(const struct fmt_filter *f, const char *events);
/*
 * The reason in tep_filter_strerror's text, which repeats the filter with a
 * caret line under it: its last line, lowercased, for a one-line error.
 */
const char *fmt_filter_reason(char *msg);
/*
 * filter parsed (flags as fmt_filter_parse), for the events given when it
 * names none, and handed to libtraceevent: 0 with *out (tep_filter_free
 * it), or -EINVAL with the error set (tr_fail): "bad filter 'F': reason".
 */
struct tep_handle;
struct tep_event_filter;
int fmt_filter_compile(struct tep_handle *tep, const char *filter, unsigned flags,
		       const char *events, struct tep_event_filter **out);
/* fmt_filter_parse for a yes or no (0 or -EINVAL with why). */
int fmt_check_filter(const char *expr, char *why, size_t whylen);

#endif
