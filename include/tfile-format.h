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
 *   tfile_format_sanitize(text, len, &res);
 *   if (res.verdict == TFILE_FORMAT_OK)   parse text as it is
 *   else                               parse res.safe instead, then free it
 *
 * The checker is strict where the kernel's own formats never go: it accepts
 * the formats a kernel writes (the unit tests hold some; a statement
 * expression "({ ... })", which libtraceevent cannot evaluate anyway, is
 * refused), and anything it cannot show to be safe is "risky" as much as
 * wrong.  One check is left to the formatter: a __print_hex or
 * __print_array length given as a field alone (REC->len) is allowed here,
 * and fmt-src.c compares the field's value with each record's size.
 *
 * res.safe keeps the event's name, ID and every field line that is sound
 * (a field line that is not, e.g. one running past 64 KiB, is dropped), and
 * its print fmt is replaced by TFILE_FORMAT_MARK followed by the reason.  The
 * formatter (fmt-src.c) recognises the mark, warns once per event type with the
 * reason and prints the record's fields with its own bounds-checked printer.
 */
#ifndef TR_TFILE_FORMAT_H
#define TR_TFILE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tfile_format_verdict {
	TFILE_FORMAT_OK,	/* hand the text to libtraceevent as it is */
	TFILE_FORMAT_PRINT,	/* the fields are sound, the print fmt is not */
	TFILE_FORMAT_FIELDS,	/* some field lines are not: they are left out too */
};

/* The print fmt of a format the checker withheld starts with this. */
#define TFILE_FORMAT_MARK "tr withheld the print fmt: "

/* No field of a format lies past this (a record is at most a page). */
#define TFILE_FORMAT_MAX_RECORD 65536

struct tfile_format_safe {
	enum tfile_format_verdict verdict;
	char why[160];		/* the first problem found, for the warning */
	char *safe;		/* malloc'ed, NUL-terminated; NULL when OK */
	size_t safe_len;
};

/* Check one event format text (need not be NUL-terminated); fills *res. */
void tfile_format_sanitize(const char *text, size_t len, struct tfile_format_safe *res);

/*
 * One field of a format: its name and its type as the field line spells
 * them (pointing into the line), its offset, size and signedness.
 */
struct tfile_format_field {
	const char *name;
	size_t name_len;
	int offset, size;
	int is_signed;
	const char *type;	/* "const char *", "__data_loc char[]": up to the name */
	size_t type_len;
	bool array;		/* a dimension follows the name ("comm[16]") */
};

/*
 * Parse one "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:X;" line (n
 * bytes from "field:", need not be NUL-terminated): 0 and *f, or -EINVAL
 * with the reason in why.  Refused: characters no C declaration of the
 * kernel's has, a name missing or over 128 bytes, an array dimension or an
 * offset plus size past TFILE_FORMAT_MAX_RECORD.  The sanitizer's and the
 * kernel printer's (a syscall's argument types) reading of field lines.
 */
int tfile_format_parse_field(const char *line, size_t n, struct tfile_format_field *f, char *why,
			     size_t whylen);

/*
 * Check a print fmt alone (what follows "print fmt: "), against the fields
 * given as "name" strings with their sizes and signedness.  0 if safe, or
 * -EINVAL with the reason in why.  For the unit tests and tfile_format_sanitize.
 */
int tfile_format_check_print(const char *print, size_t len,
			     const struct tfile_format_field *fields, int nfields, char *why,
			     size_t whylen);

/*
 * The print fmt's tokens: C's, as the kernel writes them, read from a text
 * that need not end in NUL (tfile-expr.c).  The tokenizer of the one
 * parser of print fmts (tfile_print_parse(), tfile-expr.h), and of the
 * readers of what that parser keeps as written (type names, sizeof's
 * parentheses) in the sanitizer and the kernel printer.  A byte no C expression of the
 * kernel's has outside a string, an unterminated string or character
 * constant, a number run into letters, or (max_tokens, 0: no limit) too
 * many tokens fail the text: failed is set, the reason is in why and the
 * token is TFILE_TOK_END from then on.
 *
 *   struct tfile_lex l = { .p = text, .end = text + len };
 *   for (tfile_lex_next(&l); l.t != TFILE_TOK_END; tfile_lex_next(&l))
 *           ... l.t, l.s, l.n ...
 */
enum tfile_tok {
	TFILE_TOK_END, TFILE_TOK_NUM, TFILE_TOK_STR, TFILE_TOK_CHAR, TFILE_TOK_IDENT,
	TFILE_TOK_OP,
};

struct tfile_lex {
	const char *p, *end;	/* what is left of the text */
	enum tfile_tok t;
	const char *s;		/* the token as written: a string's with its quotes */
	size_t n;
	uint64_t num;		/* TFILE_TOK_NUM: its value, UINT64_MAX past 64 bits */
	bool num_u, num_l;	/* TFILE_TOK_NUM: a 'u', an 'l' in its suffix */
	int ntokens, max_tokens;
	bool failed;
	char *why;		/* the first failure's reason (whylen 0: none kept) */
	size_t whylen;
};

/* Read the next token into l (nothing once failed). */
void tfile_lex_next(struct tfile_lex *l);
/* Is the token the operator op ("->", "(", ...)? */
bool tfile_lex_is(const struct tfile_lex *l, const char *op);
/* Fail the text with this reason, unless it failed already. */
void tfile_lex_fail(struct tfile_lex *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The helpers a print fmt calls, by name (tfile-expr.c): one list, which
 * the parser names each call by, for the sanitizer and the kernel
 * printer's compiler, each of which takes the ones it can check or
 * evaluate.  tfile_helper_find() gives TFILE_H_NONE for any other
 * name, and *rel whether it is the __get_rel_ form (a __rel_loc field's).
 */
enum tfile_helper {
	TFILE_H_NONE,
	TFILE_H_PRINT_FLAGS, TFILE_H_PRINT_FLAGS_U64, TFILE_H_PRINT_SYMBOLIC,
	TFILE_H_PRINT_SYMBOLIC_U64, TFILE_H_PRINT_HEX, TFILE_H_PRINT_HEX_STR, TFILE_H_PRINT_ARRAY,
	TFILE_H_PRINT_DYNAMIC_ARRAY,
	TFILE_H_GET_STR, TFILE_H_GET_BITMASK, TFILE_H_GET_CPUMASK, TFILE_H_GET_DYNAMIC_ARRAY,
	TFILE_H_GET_DYNAMIC_ARRAY_LEN, TFILE_H_GET_SOCKADDR,
	TFILE_H_JIFFIES_TO_MSECS, TFILE_H_MC_EVENT_ERROR_TYPE, TFILE_H_BUILTIN_EXPECT,
};

enum tfile_helper tfile_helper_find(const char *name, size_t n, bool *rel);

/*
 * One '%' conversion of a print fmt's format string, read as the kernel's
 * format_decode() reads one: flags, width, precision, length modifiers,
 * the conversion character and, after a 'p', the letters and digits of
 * its extension.  One reader for the sanitizer (on the string as written),
 * the kernel printer's compiler (fmt-kernel.c, on the decoded string) and
 * the libtraceevent-text fast path (fmt-print.c); what each accepts of it
 * is its own.
 *
 *   struct tfile_conv cv;
 *   size_t len = tfile_conv_scan(s + i, n - i, &cv);   (s[i] is the '%')
 *   if (!len)  the text ends inside the conversion
 *   else if (cv.conv == '%' && len == 2)  "%%", a '%' printed as it is
 */
enum {
	TFILE_CONV_LEFT = 1,	/* '-' */
	TFILE_CONV_PLUS = 2,	/* '+' */
	TFILE_CONV_SPACE = 4,	/* ' ' */
	TFILE_CONV_SPECIAL = 8,	/* '#' */
	TFILE_CONV_ZEROPAD = 16,	/* '0' */
};

/* A width or precision given by an argument ('*'). */
#define TFILE_CONV_STAR (-2)

struct tfile_conv {
	unsigned flags;		/* TFILE_CONV_* */
	int width, prec;	/* -1: none; TFILE_CONV_STAR; else the digits' value (INT_MAX past it) */
	const char *qual;	/* the length modifiers as written: any run of "hlLqjzZt" */
	size_t qual_len;
	char conv;		/* the conversion character (0 if the text ends before it) */
	const char *ext;	/* conv 'p': the letters and digits after it ("S", "ISpc") */
	size_t ext_len;
};

/*
 * Read the conversion at s (s[0] is '%', n bytes, need not end in NUL)
 * into *c: its length from the '%' through the conversion character (the
 * extension not counted), or 0 if the text ends first (*c then holds what
 * was read of it).
 */
size_t tfile_conv_scan(const char *s, size_t n, struct tfile_conv *c);

#endif
