// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event-format checker (tfile-format.h): what it accepts (the kernel's own
 * formats, from tracefs when this host has one) and what it refuses, with
 * the reason, before libtraceevent ever sees it; and the pieces of the
 * print fmt's reading that the kernel printer shares with it (conversions,
 * helpers).
 */
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "tfile-format.h"
#include "tr.h"
#include "fixtures.h"
#include "unit.h"

static const char common[] = FX_COMMON;
static const char fields[] =
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned short len;\toffset:28;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned int ulen;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc u32[] cpus;\toffset:40;\tsize:4;\tsigned:0;\n";

/* Check a whole format with this print fmt; the reason, or "" if it passes. */
static const char *verdict(const char *print, const char *more_fields)
{
	static char why[200];
	struct tfile_format_safe r;
	char *text;

	text = xasprintf("name: test\nID: 1000\nformat:\n%s%s%s\nprint fmt: %s\n", common, fields,
			 more_fields ? more_fields : "", print);
	tfile_format_sanitize(text, strlen(text), &r);
	snprintf(why, sizeof(why), "%s", r.verdict == TFILE_FORMAT_OK ? "" : r.why);
	if (r.verdict != TFILE_FORMAT_OK) {
		/* What libtraceevent gets instead must parse, with the mark as its print fmt. */
		struct tep_handle *tep = tep_alloc();
		struct tep_event *e;

		CHECK(r.safe && strstr(r.safe, TFILE_FORMAT_MARK));
		CHECK(tep_parse_event(tep, r.safe, r.safe_len, "test") == 0);
		e = tep_find_event(tep, 1000);
		CHECK(e && !strncmp(e->print_fmt.format, TFILE_FORMAT_MARK,
				    strlen(TFILE_FORMAT_MARK)));
		tep_free(tep);
	} else {
		CHECK(!r.safe);
	}
	free(r.safe);
	free(text);
	return why;
}

#define ACCEPTS(print) CHECK_STR(verdict(print, NULL), "")
#define REFUSES(print, reason) CHECK(strstr(verdict(print, NULL), reason) != NULL)

TEST(kernel_shapes_pass)
{
	ACCEPTS("\"comm=%s pid=%d\", REC->comm, REC->pid");
	ACCEPTS("\"%s\", __get_str(name)");
	ACCEPTS("\"%ps <-%ps\", (void *)REC->pid, (void *)(REC)->ulen");
	ACCEPTS("\"%s\", REC->pid ? __print_flags(REC->pid, \"|\", { 1, \"A\" }, "
		"{ ( unsigned long)((((1UL))) << (10)), \"B\" }) : \"none\"");
	ACCEPTS("\"%s\", __print_symbolic(REC->pid, { 0, \"#\" \"DE\" }, { -1, ((void *)0) })");
	ACCEPTS("\"%s\", __print_symbolic(REC->pid, { })");
	ACCEPTS("\"%s\", __print_hex(__get_dynamic_array(cpus), __get_dynamic_array_len(cpus))");
	ACCEPTS("\"%s\", __print_array(__get_dynamic_array(cpus), "
		"__get_dynamic_array_len(cpus) / sizeof(u32), sizeof(u32))");
	ACCEPTS("\"%s\", __print_hex(REC->comm, REC->len)");
	ACCEPTS("\"%s\", __print_hex(__get_dynamic_array(cpus), REC->ulen)");	/* checked per record */
	ACCEPTS("\"%d\", REC->pid / 1000");
	ACCEPTS("\"%d.%03d\", (int)(REC->pid / 1000000ULL), (int)(REC->pid % 1000)");
	ACCEPTS("\"%.*s\", REC->pid, __get_str(name)");	/* a precision only shortens */
	ACCEPTS("\"%*pbl\", (1 << 10), REC->comm");
	ACCEPTS("\"\\t=> %ps\\n\" \"\\t=> %ps\\n\", (void *)REC->pid, (void *)REC->ulen");
	ACCEPTS("\"%d%%\", REC->pid");
	ACCEPTS("\"no arguments\"");
}

TEST(fields_named_must_exist)
{
	REFUSES("\"%s\", __print_flags(REC->nonexistent, \"|\", { 1, \"A\" })", "nonexistent");
	REFUSES("\"%d\", REC->nosuch", "nosuch");
	REFUSES("\"%s\", __get_str(nosuch)", "nosuch");
	REFUSES("\"%s\", __get_cpumask(nosuch)", "nosuch");
	REFUSES("\"%d\", REC", "REC without a field");
}

TEST(divisors_are_positive_literals)
{
	REFUSES("\"%d\", REC->pid / 0", "divisor");
	REFUSES("\"%d\", REC->pid % 0", "divisor");
	REFUSES("\"%s\", __print_symbolic(REC->pid, { 1/0, \"A\" })", "divisor");
	REFUSES("\"%d\", REC->pid / -1", "divisor");
	REFUSES("\"%d\", REC->pid / REC->len", "divisor");
	REFUSES("\"%d\", REC->pid / (1 - 1)", "divisor");
}

TEST(lengths_bounded_by_the_record)
{
	REFUSES("\"%s\", __print_hex(REC->common_pid, 2147483647)", "past the record");
	REFUSES("\"%s\", __print_hex(REC->comm, REC->common_pid + 1)", "past the record");
	REFUSES("\"%s\", __print_hex_str(REC->comm, 70000)", "past the record");
	REFUSES("\"%s\", __print_array(REC->comm, 100000, 8)", "past the record");
	REFUSES("\"%s\", __print_array(REC->comm, 2, 3)", "element size");
	REFUSES("\"%s\", __print_hex(1, 2)", "neither a field");
	REFUSES("\"%999999999d\", REC->pid", "width");
	REFUSES("\"%*d\", REC->pid, REC->pid", "'*' width");
	REFUSES("\"%*d\", 2147483647, REC->pid", "'*' width");
}

/*
 * A print fmt is not NUL-terminated where tfile_format_check_print reads it (a v7
 * file's section): a reason quoting the text where it went wrong quotes no
 * more than is left (the convert fuzzer's first finding, under ASan).
 */
TEST(reasons_stay_inside_the_text)
{
	static const char *const prints[] = { "\"%d\", REC->pid x", "\"%d\", (REC->pid",
					       "\"%d\", REC->pid)" };
	struct tfile_format_field f = { .name = "pid", .name_len = 3, .offset = 24, .size = 4,
					.is_signed = 1 };
	char why[200];

	for (size_t i = 0; i < sizeof(prints) / sizeof(prints[0]); i++) {
		size_t n = strlen(prints[i]);
		char *p = malloc(n);

		memcpy(p, prints[i], n);	/* no NUL after it */
		CHECK(tfile_format_check_print(p, n, &f, 1, why, sizeof(why)) < 0);
		free(p);
	}
	CHECK(strstr(why, "unexpected ')' in the print fmt"));
	/* Nor does a field line's number, read where the text ends (the third finding). */
	{
		static const char fmt[] = "name: t\nID: 7\nformat:\n"
					  "\tfield:int a;\toffset:8;\tsize:4";
		char *p = malloc(sizeof(fmt) - 1);
		struct tfile_format_safe r;

		memcpy(p, fmt, sizeof(fmt) - 1);
		tfile_format_sanitize(p, sizeof(fmt) - 1, &r);
		CHECK(r.verdict != TFILE_FORMAT_OK);
		free(r.safe);
		free(p);
	}
}

/*
 * The one reader of '%' conversions (tfile_conv_scan): the sanitizer, the
 * kernel printer's compiler and the fast printer each take what it reads.
 */
static size_t conv(const char *s, struct tfile_conv *c)
{
	size_t n = strlen(s), len;
	char *p = malloc(n);

	memcpy(p, s, n);	/* no NUL after it: the reader stops at n */
	len = tfile_conv_scan(p, n, c);
	/* Pointers into the copy are checked against the original's offsets. */
	if (c->qual)
		c->qual = s + (c->qual - p);
	if (c->ext)
		c->ext = s + (c->ext - p);
	free(p);
	return len;
}

TEST(conversions_read_once)
{
	struct tfile_conv c;

	CHECK(conv("%d, x", &c) == 2);
	CHECK(c.conv == 'd' && !c.flags && c.width == -1 && c.prec == -1 && !c.qual_len);
	CHECK(conv("%-08.3lld", &c) == 9);
	CHECK(c.flags == (TFILE_CONV_LEFT | TFILE_CONV_ZEROPAD) && c.width == 8 && c.prec == 3);
	CHECK(c.qual_len == 2 && !memcmp(c.qual, "ll", 2) && c.conv == 'd');
	CHECK(conv("% #+x", &c) == 5);
	CHECK(c.flags == (TFILE_CONV_SPACE | TFILE_CONV_SPECIAL | TFILE_CONV_PLUS));
	CHECK(conv("%*.*s", &c) == 5);
	CHECK(c.width == TFILE_CONV_STAR && c.prec == TFILE_CONV_STAR && c.conv == 's');
	/* "%.d": a precision of 0, not none. */
	CHECK(conv("%.d", &c) == 3 && c.prec == 0 && c.width == -1);
	CHECK(conv("%%d", &c) == 2 && c.conv == '%');
	/* Any run of modifiers is read; which it takes is each printer's choice. */
	CHECK(conv("%qzhu", &c) == 5 && c.qual_len == 3 && c.conv == 'u');
	/* After a 'p' only: its extension, not counted in the length. */
	CHECK(conv("%pISpc: x", &c) == 2 && c.conv == 'p' && c.ext_len == 4 &&
	      !memcmp(c.ext, "ISpc", 4));
	CHECK(conv("%sab", &c) == 2 && c.ext_len == 0);
	/* A width past an int saturates (the sanitizer refuses anything above 4096). */
	CHECK(conv("%99999999999999999999d", &c) == 22 && c.width == INT_MAX);
	/* The text ends inside: 0, with what was read so far. */
	CHECK(conv("%", &c) == 0);
	CHECK(conv("%-12.", &c) == 0 && c.flags == TFILE_CONV_LEFT && c.width == 12 && c.prec == 0);
	CHECK(conv("%ll", &c) == 0 && c.qual_len == 2 && !c.conv);
	/* Whatever follows is the conversion character: the printers refuse what they lack. */
	CHECK(conv("%\"", &c) == 2 && c.conv == '"');
	REFUSES("\"%lq\", REC->pid", "conversion");
	REFUSES("\"%12.5000d\", REC->pid", "width");
}

/* One list of helpers for the sanitizer and the kernel printer (tfile_helper_find). */
TEST(helpers_named_once)
{
	bool rel;

	CHECK(tfile_helper_find("__get_str", 9, &rel) == TFILE_H_GET_STR && !rel);
	CHECK(tfile_helper_find("__get_rel_str", 13, &rel) == TFILE_H_GET_STR && rel);
	CHECK(tfile_helper_find("__get_rel_dynamic_array_len", 27, &rel) ==
		      TFILE_H_GET_DYNAMIC_ARRAY_LEN && rel);
	CHECK(tfile_helper_find("__print_flags_u64", 17, &rel) == TFILE_H_PRINT_FLAGS_U64);
	CHECK(tfile_helper_find("__print_hex_strx", 15, &rel) == TFILE_H_PRINT_HEX_STR);
	CHECK(tfile_helper_find("jiffies_to_msecs", 16, &rel) == TFILE_H_JIFFIES_TO_MSECS);
	/* The __get_ words are helpers only after __get_ (or __get_rel_). */
	CHECK(tfile_helper_find("str", 3, &rel) == TFILE_H_NONE);
	CHECK(tfile_helper_find("__get_rel_", 10, &rel) == TFILE_H_NONE && !rel);
	CHECK(tfile_helper_find("__get_rex_str", 13, &rel) == TFILE_H_NONE);
	CHECK(tfile_helper_find("__get_jiffies_to_msecs", 22, &rel) == TFILE_H_NONE);
	CHECK(tfile_helper_find("__print_flag", 12, &rel) == TFILE_H_NONE);
	/* Before the list was shared, "__get_re" and any two bytes passed for __get_rel_. */
	REFUSES("\"%s\", __get_rex_str(name)", "unknown helper");
	REFUSES("\"%s\", __get_foo(name)", "unknown helper");
	ACCEPTS("\"%s\", __get_rel_str(name)");
}

TEST(format_strings)
{
	REFUSES("\"%n\", REC->pid", "conversion");
	REFUSES("\"%Q\", REC->pid", "conversion");
	REFUSES("\"%d %d\", REC->pid", "arguments");
	REFUSES("\"%d, REC->pid", "unterminated");
	REFUSES("REC->pid", "does not start with a string");
	REFUSES("\"\xff%d\", REC->pid", "byte 0xff");
	REFUSES("\"%d\", ({ int x = REC->pid; x; })", "statement expression");
	REFUSES("\"%s\", __print_nothing(REC->pid)", "unknown helper");
}

TEST(nesting_and_size_bounded)
{
	char *deep = malloc(100000), *p = deep;

	p += sprintf(p, "\"%%d\", ");
	for (int i = 0; i < 20000; i++)
		*p++ = '(';
	p += sprintf(p, "REC->pid");
	for (int i = 0; i < 20000; i++)
		*p++ = ')';
	*p = '\0';
	REFUSES(deep, "nested");
	p = deep + sprintf(deep, "\"%%d\", REC->pid");
	for (int i = 0; i < 9000; i++)
		p += sprintf(p, " + 1");
	REFUSES(deep, "tokens");
	free(deep);
}

TEST(field_lines)
{
	CHECK(strstr(verdict("\"%d\", REC->pid",
			     "\tfield:char big[4096];\toffset:8;\tsize:2147483647;\tsigned:0;\n"),
		     "runs past"));
	CHECK(strstr(verdict("\"%d\", REC->pid",
			     "\tfield:int far;\toffset:2147483647;\tsize:4;\tsigned:1;\n"),
		     "runs past"));
	CHECK(strstr(verdict("\"%d\", REC->pid", "\tfield:int neg;\toffset:-4;\tsize:4;\tsigned:1;\n"),
		     "runs past"));
	CHECK(strstr(verdict("\"%d\", REC->pid", "\tfield:char z[0];\toffset:8;\tsize:4;\tsigned:0;\n"),
		     "array length"));
	CHECK(strstr(verdict("\"%d\", REC->pid", "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"),
		     "twice"));
	/* A loc field's dimension is not a length: 6.12's user_events writes garbage there. */
	{
		const char *text = "name: t\nID: 8\nformat:\n"
				   "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
				   "\tfield:__rel_loc char line[1684631647];\toffset:8;\tsize:4;\tsigned:0;\n\n"
				   "print fmt: \"line=%s\", __get_rel_str(line)\n";
		unsigned char data[32] = { 8, 0 };
		struct tep_record rec = { .data = data, .size = 18 };
		struct tep_handle *tep = tep_alloc();
		struct tfile_format_safe r;
		struct trace_seq s;

		tfile_format_sanitize(text, strlen(text), &r);
		CHECK_STR(r.why, "");
		CHECK(r.verdict == TFILE_FORMAT_OK);
		/* The word: length 6 << 16 | offset 0 from the field's end (byte 12). */
		data[8] = 0, data[9] = 0, data[10] = 6, data[11] = 0;
		memcpy(data + 12, "hello", 6);
		CHECK(tep_parse_event(tep, text, strlen(text), "t") == 0);
		trace_seq_init(&s);
		tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		CHECK_STR(s.buffer, "line=hello");
		trace_seq_destroy(&s);
		tep_free(tep);
		free(r.safe);
	}
	/* A dropped field is gone from what libtraceevent gets; the sound ones stay. */
	{
		const char *text = "name: t\nID: 7\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n"
				   "\tfield:int b;\toffset:99999999;\tsize:4;\tsigned:1;\n\n"
				   "print fmt: \"%d\", REC->a\n";
		struct tfile_format_safe r;
		struct tep_handle *tep = tep_alloc();
		struct tep_event *e;

		tfile_format_sanitize(text, strlen(text), &r);
		CHECK(r.verdict == TFILE_FORMAT_FIELDS);
		CHECK(tep_parse_event(tep, r.safe, r.safe_len, "x") == 0);
		e = tep_find_event(tep, 7);
		CHECK(e && tep_find_any_field(e, "a") && !tep_find_any_field(e, "b"));
		tep_free(tep);
		free(r.safe);
	}
}

/* Every format this host's kernel has passes, but the ones libtraceevent cannot evaluate. */
TEST(this_kernels_formats)
{
	glob_t g;
	int refused = 0;

	if (glob("/sys/kernel/tracing/events/*/*/format", 0, NULL, &g)) {
		printf("#   no tracefs formats here: checked the built-in ones only\n");
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *text = NULL;
		size_t len;
		struct tfile_format_safe r;

		if (read_file(g.gl_pathv[i], &text, &len))
			continue;
		tfile_format_sanitize(text, len, &r);
		if (r.verdict != TFILE_FORMAT_OK && !strstr(r.why, "statement expression")) {
			printf("#   %s: %s\n", g.gl_pathv[i], r.why);
			refused++;
		}
		free(r.safe);
		free(text);
	}
	globfree(&g);
	CHECK(refused == 0);
}

UNIT_MAIN(T(kernel_shapes_pass), T(fields_named_must_exist), T(divisors_are_positive_literals),
	  T(lengths_bounded_by_the_record), T(format_strings), T(conversions_read_once),
	  T(helpers_named_once), T(nesting_and_size_bounded), T(field_lines),
	  T(this_kernels_formats), T(reasons_stay_inside_the_text))
