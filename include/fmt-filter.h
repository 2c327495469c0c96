/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Filters as the user writes them, for report, stream and hist: checked in
 * the kernel's grammar before libtraceevent's parser sees them, then
 * compiled for it (src/fmt/fmt-filter.c).  The formatter's layer, beside
 * fmt.h; the trace file's format checker (tfile-format.h) is below it.
 */
#ifndef TR_FMT_FILTER_H
#define TR_FMT_FILTER_H

#include <stddef.h>

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
