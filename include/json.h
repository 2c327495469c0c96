/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one JSON string writer every JSON output uses (tr check --json,
 * report and stream --format json, hist --json, top's batch JSON), and the
 * one CSV field writer (report and stream --format csv, hist --csv).
 *
 * Rules: '"' and '\\' are escaped; control characters become \n, \t, \r,
 * \b, \f or \u00XX, and DEL \u007f; well-formed UTF-8 passes through as
 * it is; every byte that is not part of well-formed UTF-8 (a truncated or
 * overlong sequence, a surrogate, a stray continuation byte) becomes
 * \u00XX, its value read as Latin-1, so the output is always valid JSON
 * whatever the bytes of a task name or a string field.
 */
#ifndef TR_JSON_H
#define TR_JSON_H

#include <stddef.h>
#include <stdio.h>

/*
 * The length of the well-formed multi-byte UTF-8 sequence at p (at most n
 * bytes), or 0: ASCII, a stray continuation byte, an overlong form, a
 * surrogate or past U+10FFFF.
 */
size_t utf8_len(const unsigned char *p, size_t n);

/* The most bytes json_escape() writes for n input bytes, quotes included. */
#define JSON_ESCAPED_MAX(n) ((n) * 6 + 2)

/* Write p[0..n) as a quoted JSON string to dst (JSON_ESCAPED_MAX(n) bytes); returns the length. */
size_t json_escape(char *dst, const char *p, size_t n);
/* The same, to a stream; s may be NULL (written as ""). */
void json_fputs(FILE *f, const char *s);

/*
 * CSV (RFC 4180): a field with a comma, a double quote, a line feed or a
 * carriage return is quoted, its quotes doubled; any other goes as it is.
 */
#define CSV_QUOTED_MAX(n) ((n) * 2 + 2)
/* p[0..n) as a CSV field into dst (CSV_QUOTED_MAX(n) bytes); returns the length. */
size_t csv_quote(char *dst, const char *p, size_t n);
/* The same, to a stream; s may be NULL (an empty field). */
void csv_fputs(FILE *f, const char *s);

#endif
