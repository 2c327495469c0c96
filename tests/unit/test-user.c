// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User events without a kernel: the field-format parser (the kernel's rules,
 * the payload layout, the canonical text), user_events_status, values typed
 * on the command line laid out as the kernel reads them, and the printer
 * that formats user events as the kernel's trace file does.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-local.h"
#include "tfile.h"
#include "fixtures.h"
#include "unit.h"
#include "user.h"
#include "userfmt.h"

static char *canon(const char *fields)
{
	struct uf_format fmt;
	struct uf_error e;
	char buf[512];

	if (uf_parse(fields, &fmt, &e))
		return xasprintf("ERR %d '%.*s': %s", e.field, e.len, fields + e.off, e.why);
	uf_canonical(fields, &fmt, buf, sizeof(buf));
	return xstrdup(buf);
}

TEST(format_types_sizes_offsets)
{
	static const char f[] = "u32 a; char b;s16 c ; char[8] s; __rel_loc char[] m; "
				"__data_loc char[] d; struct pt p 8; unsigned  int u; s64 z; "
				"__rel_loc u8[] blob;";
	struct uf_format fmt;
	struct uf_error e;
	static const struct {
		uint8_t kind;
		uint32_t size, offset;
		bool sign;
	} want[] = {
		{ UF_INT, 4, 0, false },    { UF_INT, 1, 4, true },	{ UF_INT, 2, 5, true },
		{ UF_ARRAY, 8, 7, true },   { UF_DYN, 4, 15, true },	{ UF_DYN, 4, 19, true },
		{ UF_STRUCT, 8, 23, true }, { UF_INT, 4, 31, false },	{ UF_INT, 8, 35, true },
		{ UF_DYN, 4, 43, true },
	};

	CHECK(uf_parse(f, &fmt, &e) == 0);
	CHECK(fmt.n == 10 && fmt.size == 47);
	for (size_t i = 0; i < fmt.n && i < 10; i++) {
		CHECK(fmt.f[i].kind == want[i].kind);
		CHECK(fmt.f[i].size == want[i].size);
		CHECK(fmt.f[i].offset == want[i].offset);
		CHECK(fmt.f[i].is_signed == want[i].sign);
	}
	CHECK(fmt.f[4].rel && fmt.f[4].str && !fmt.f[5].rel && fmt.f[5].str);
	CHECK(fmt.f[9].rel && !fmt.f[9].str);
	CHECK(uf_find(f, &fmt, "blob") == 9 && uf_find(f, &fmt, "nope") == -1);
	/* What dynamic_events shows, and what the kernel matches a registration by. */
	CHECK_OWNED(canon(f), "u32 a; char b; s16 c; char[8] s; __rel_loc char[] m; "
			      "__data_loc char[] d; struct pt p 8; unsigned int u; s64 z; "
			      "__rel_loc u8[] blob");
	CHECK_OWNED(canon(""), "");
	CHECK_OWNED(canon(" ; ;"), "");
	CHECK_OWNED(canon("__data_loc unsigned char[] x"), "__data_loc unsigned char[] x");
}

TEST(format_errors_name_the_field)
{
	CHECK_OWNED(canon("u32 a; long b"),
		    "ERR 1 'long b': 'long' differs in size between user space and the kernel: "
		    "use s64 or u64");
	CHECK_OWNED(canon("u32 a; u24 b"),
		    "ERR 1 'u24 b': unknown type (u8..u64, s8..s64, char, short, int, char[N], "
		    "__data_loc/__rel_loc char[], struct NAME SIZE)");
	CHECK_OWNED(canon("u32"), "ERR 0 'u32': no field name after the type");
	CHECK_OWNED(canon("u32 a 4"), "ERR 0 'u32 a 4': too many words (a size is only for "
				      "'struct' types)");
	CHECK_OWNED(canon("struct pt p"), "ERR 0 'struct pt p': a struct field needs its size: "
					  "'struct TYPE name SIZE'");
	CHECK_OWNED(canon("struct pt p 0"), "ERR 0 'struct pt p 0': struct size must be a decimal "
					    "number 1..65535");
	CHECK_OWNED(canon("char[1025] s"), "ERR 0 'char[1025] s': array size must be a decimal "
					   "number 1..1024");
	CHECK_OWNED(canon("char[0] s"), "ERR 0 'char[0] s': array size must be a decimal number "
					"1..1024");
	CHECK_OWNED(canon("u32[4] s"), "ERR 0 'u32[4] s': only char arrays have a fixed size "
				       "(char[N]); use __rel_loc for others");
	CHECK_OWNED(canon("__rel_loc char m"), "ERR 0 '__rel_loc char m': a __data_loc or "
					       "__rel_loc field is an array of an integer type: "
					       "'__rel_loc char[] name'");
	CHECK_OWNED(canon("u32 a; u64 a"), "ERR 1 'u64 a': another field has this name");
	CHECK_OWNED(canon("u32 9a"), "ERR 0 'u32 9a': bad field name (letters, digits and '_', "
				     "not starting with a digit)");
	CHECK(uf_name_problem("build_log") == NULL);
	CHECK_STR(uf_name_problem("a b"), "bad name (letters, digits and '_', not starting with "
					  "a digit)");
	CHECK_STR(uf_name_problem(""), "empty name");
	char *longname = xmalloc(UF_NAME_MAX + 2);

	memset(longname, 'x', UF_NAME_MAX + 1);
	longname[UF_NAME_MAX + 1] = '\0';
	CHECK_STR(uf_name_problem(longname), "name too long (at most 238 bytes)");
	longname[UF_NAME_MAX] = '\0';
	CHECK(uf_name_problem(longname) == NULL);
	free(longname);
}

TEST(status_parse)
{
	struct uev_status st;

	CHECK(uev_status_parse("tt.1\ntt.0\ntt # Used by ftrace perf\nlog # Used by other\n\n"
			       "Active: 4\nBusy: 2\n", &st) == 0);
	CHECK(st.n == 4 && st.active == 4 && st.busy == 2);
	if (st.n == 4) {
		CHECK_STR(st.v[0].tracepoint, "tt.1");
		CHECK(st.v[0].used_by == 0);
		CHECK_STR(st.v[2].tracepoint, "tt");
		CHECK(st.v[2].used_by == (UEV_FTRACE | UEV_PERF));
		CHECK(st.v[3].used_by == UEV_OTHER);
	}
	CHECK_STR(uev_used_by_text(st.v[2].used_by), "ftrace, perf");
	uev_status_free(&st);
	CHECK(uev_status_parse("\nActive: 0\nBusy: 0\n", &st) == 0 && st.n == 0);
	uev_status_free(&st);
	CHECK(uev_status_parse("Active: 0\nBusy: 0\nlate\n", &st) == -EINVAL);
	CHECK_STR(tr_failure(), "unexpected line in user_events_status: 'late'");

	char name[64];

	CHECK(uev_multi_split("build.1f", name, sizeof(name)) && !strcmp(name, "build"));
	CHECK(!uev_multi_split("build", name, sizeof(name)) && !strcmp(name, "build"));
	CHECK(!uev_multi_split("build.x", name, sizeof(name)) && !strcmp(name, "build.x"));
}

/* Lay out values for fields; NULL on failure (tr_failure() says why). */
static struct uev_buf encode(const char *fields, size_t max, const char *const *vals, size_t n)
{
	struct uf_format fmt;
	struct uf_error e;
	struct strv sv = { 0 };
	struct uev_buf b = { 0 };

	CHECK(uf_parse(fields, &fmt, &e) == 0);
	for (size_t i = 0; i < n; i++)
		strv_push(&sv, vals[i]);
	if (uev_encode_values("ev", fields, &fmt, &sv, max, &b))
		b.p = NULL;
	strv_free(&sv);
	return b;
}

#define ENCODE(fields, max, ...) \
	encode(fields, max, (const char *const[]){ __VA_ARGS__ }, \
	       sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

TEST(encode_layout)
{
	/* u8 s16 char[4] __rel_loc char[] __data_loc char[] struct 2 u64 */
	static const char f[] = "u8 a; s16 b; char[4] s; __rel_loc char[] r; __data_loc char[] d; "
				"struct pt p 2; u64 z";
	struct uev_buf b = ENCODE(f, 4072, "a=255", "b=-2", "s=abc", "r=hi", "d=xyz", "p=0a0b",
				  "z=0x1122334455667788");
	static const uint8_t want_fixed[] = {
		0xff, 0xfe, 0xff, 'a', 'b', 'c', 0,
		/* r: from the end of its word (7 + 4) to its text at 25: 14, 3 bytes */
		14, 0, 3, 0,
		/* d: from the record's start, past the 8-byte header: 8 + 28, 4 bytes */
		36, 0, 4, 0,
		0x0a, 0x0b,
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	};

	CHECK(b.p && b.len == 25 + 3 + 4);
	if (b.p) {
		CHECK(!memcmp(b.p, want_fixed, sizeof(want_fixed)));
		CHECK(!memcmp(b.p + 25, "hi\0xyz\0", 7));
	}
	uev_buf_free(&b);
	/* Fields not named are zero, and an empty string is its NUL. */
	b = ENCODE("u32 a; __rel_loc char[] m", 4072, "a=7");
	CHECK(b.p && b.len == 9 && b.p[0] == 7 && b.p[4] == 0 && b.p[6] == 1 && b.p[8] == 0);
	uev_buf_free(&b);
	b = ENCODE("__rel_loc u8[] blob", 4072, "blob=01,02,ff");
	CHECK(b.p && b.len == 7 && b.p[2] == 3 && !memcmp(b.p + 4, "\x01\x02\xff", 3));
	uev_buf_free(&b);
}

TEST(encode_checks_before_writing)
{
	struct uev_buf b;

	b = ENCODE("u8 a", 4072, "a=256");
	CHECK(!b.p);
	CHECK_STR(tr_failure(), "value '256' of field 'a' is out of range for u8 (0..255)");
	b = ENCODE("s8 a", 4072, "a=-129");
	CHECK(!b.p);
	CHECK_STR(tr_failure(), "value '-129' of field 'a' is out of range for s8 (-128..127)");
	b = ENCODE("u32 a", 4072, "a=-1");
	CHECK(!b.p);
	b = ENCODE("u64 a", 4072, "a=18446744073709551616");
	CHECK(!b.p);
	CHECK_STR(tr_failure(), "value '18446744073709551616' of field 'a' is out of range for u64 "
				"(0..18446744073709551615)");
	b = ENCODE("s64 a", 4072, "a=-9223372036854775808");
	CHECK(b.p && !memcmp(b.p, "\0\0\0\0\0\0\0\x80", 8));
	uev_buf_free(&b);
	b = ENCODE("int a", 4072, "a=12abc");
	CHECK(!b.p);
	CHECK_STR(tr_failure(), "value '12abc' of field 'a' is not a number (int)");
	b = ENCODE("char[4] s", 4072, "s=abcd");
	CHECK(!b.p);
	CHECK_STR(tr_failure(), "string of 4 bytes is too long for field 's' (char[4]: at most 3)");
	b = ENCODE("__rel_loc char[] m", 64, "m=0123456789012345678901234567890123456789012345678901234567");
	CHECK(!b.p);
	CHECK_STR(tr_failure(), "value of field 'm' is too long: the event would be 71 bytes, the "
				"ring buffer takes at most 64");
	b = ENCODE("u32 a", 4072, "b=1");
	CHECK(!b.p);
	CHECK_STR(tr_failure(), "user event 'ev' has no field 'b'");
	b = ENCODE("u32 a", 4072, "a=1", "a=2");
	CHECK(!b.p);
	CHECK_STR(tr_failure(), "field 'a' of user event 'ev' is given twice");
	b = ENCODE("u32 a", 4072, "junk");
	CHECK(!b.p);
	CHECK_STR(tr_failure(), "bad value 'junk' for user event 'ev': FIELD=VALUE");
	b = ENCODE("struct pt p 2", 4072, "p=010203");
	CHECK(!b.p);
	CHECK_STR(tr_failure(), "3 bytes are too many for field 'p' (struct pt: 2 bytes)");
}

TEST(split_stdin_lines)
{
	struct strv sv = { 0 };

	CHECK(uev_split_line("  a=1 msg=\"two words\" q=\"say \\\"hi\\\"\"\t", &sv) == 0);
	CHECK(sv.n == 3);
	if (sv.n == 3) {
		CHECK_STR(sv.v[0], "a=1");
		CHECK_STR(sv.v[1], "msg=two words");
		CHECK_STR(sv.v[2], "q=say \"hi\"");
	}
	strv_free(&sv);
	CHECK(uev_split_line("a=\"open", &sv) == -EINVAL);
	strv_free(&sv);
}

/* The format file of a user event as the 6.12 kernel writes it. */
static const char user_fmt[] =
	"name: tt\nID: 1089\nformat:\n" FX_COMMON
	"\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:char b;\toffset:12;\tsize:1;\tsigned:1;\n"
	"\tfield:s16 c;\toffset:13;\tsize:2;\tsigned:1;\n"
	"\tfield:char s[];\toffset:15;\tsize:8;\tsigned:1;\n"
	"\tfield:__rel_loc char m[];\toffset:23;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] d;\toffset:27;\tsize:4;\tsigned:1;\n"
	"\tfield:struct pt p;\toffset:31;\tsize:8;\tsigned:1;\n"
	"\tfield:struct big q;\toffset:39;\tsize:3;\tsigned:1;\n"
	"\tfield:s64 z;\toffset:42;\tsize:8;\tsigned:1;\n"
	"\tfield:__rel_loc u8 blob[];\toffset:50;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"a=%u b=%d c=%d s=%s m=%s d=%s p=%llu q=%llu z=%lld blob=%llu\", REC->a, "
	"REC->b, REC->c, REC->s, __get_rel_str(m), __get_str(d), REC->p, REC->q, REC->z, "
	"REC->blob\n";

TEST(printer_says_what_the_kernel_says)
{
	static const char f[] = "u32 a; char b; s16 c; char[8] s; __rel_loc char[] m; "
				"__data_loc char[] d; struct pt p 8; struct big q 3; s64 z; "
				"__rel_loc u8[] blob";
	struct tep_handle *tep = fx_tep_new();
	struct tep_event *e;
	struct fmt_line out = { 0 };
	struct uev_buf b;
	uint8_t rec[256] = { 0 };

	CHECK(tep_parse_event(tep, user_fmt, strlen(user_fmt), "user_events") == 0);
	e = tep_find_event(tep, 1089);
	CHECK(e && fmt_user_event(e));
	/* The values of the first event in the VM test, laid out by tr user emit. */
	b = ENCODE(f, 4072, "a=5", "b=65", "c=-1", "s=hi", "m=hello", "d=world",
		   "p=0102030405060708", "q=aabbcc", "z=-5", "blob=01,02,03");
	CHECK(b.p != NULL);
	if (e && b.p) {
		memcpy(rec + 8, b.p, b.len);
		fmt_user_text(tep, e, rec, (uint32_t)(8 + b.len), 0, &out);
		fmt_line_grow(&out, 1);
		out.p[out.len] = '\0';
		/* Copied from the kernel's trace file. */
		CHECK_STR(out.p, "a=0x5 (5) b='A'(65) c=0xffff (65535) s=hi m=hello d=world "
				 "p=0x807060504030201 (578437695752307201) q=<INVALID-SIZE> "
				 "z=0xfffffffffffffffb (-5) blob=01,02,03");
		/* A record cut short: the kernel says <OVERFLOW> for what is past its end. */
		out.len = 0;
		fmt_user_text(tep, e, rec, 30, 0, &out);
		fmt_line_grow(&out, 1);
		out.p[out.len] = '\0';
		CHECK(strstr(out.p, "m=<OVERFLOW> d=<OVERFLOW> p=<OVERFLOW>") != NULL);
		/* A byte outside ASCII is printable to the kernel (Latin-1). */
		rec[12] = 200;
		rec[8 + 4] = 200;
		out.len = 0;
		fmt_user_text(tep, e, rec, (uint32_t)(8 + b.len), 0, &out);
		fmt_line_grow(&out, 1);
		out.p[out.len] = '\0';
		CHECK(strstr(out.p, "b='\xc8'(200)") != NULL);
	}
	/*
	 * A string with a byte that is not printable ASCII: since 6.19 each
	 * byte ('.' for those) and then all of them in hex, as the 7.3 guest's
	 * trace file shows them; before, the text up to its NUL as it is.
	 */
	{
		static const uint8_t tab[] = "tab\tand space";
		static const uint8_t hi[] = { 'a', 0xc8, 0 };

		out.len = 0;
		fmt_dyn_text(&out, tab, sizeof(tab), 7 << 8 | 3);
		fmt_dyn_text(&out, (const uint8_t *)"|", 1, 0);
		fmt_dyn_text(&out, tab, sizeof(tab), 6 << 8 | 18);
		fmt_dyn_text(&out, (const uint8_t *)"|", 1, 0);
		fmt_dyn_text(&out, hi, sizeof(hi), 0);
		fmt_dyn_text(&out, (const uint8_t *)"|", 1, 0);
		fmt_dyn_text(&out, (const uint8_t *)"plain\0", 6, 0);
		fmt_line_grow(&out, 1);
		out.p[out.len] = '\0';
		CHECK_STR(out.p, "tab.and space. (74:61:62:09:61:6e:64:20:73:70:61:63:65:00)|"
				 "tab\tand space|a.. (61:ffffffc8:00)|plain");
	}
	uev_buf_free(&b);
	free(out.p);
	tep_free(tep);
}

/* libtraceevent 1.7 cannot parse "name: tt.1"; tfile_parse_event() can, and keeps the name. */
TEST(multi_format_names_parse)
{
	static const char fmt[] =
		"name: tt.1f\nID: 1090\nformat:\n" FX_COMMON
		"\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"a=%u\", REC->a\n";
	struct tep_handle *tep = tep_alloc();
	struct tep_event *e;

	CHECK(tfile_parse_event(tep, fmt, strlen(fmt), "user_events_multi") == 0);
	e = tep_find_event(tep, 1090);
	CHECK(e && !strcmp(e->name, "tt.1f") && !strcmp(e->system, "user_events_multi"));
	CHECK(e && fmt_user_event(e));
	CHECK(tep_find_event_by_name(tep, "user_events_multi", "tt.1f") == e);
	tep_free(tep);
}

/* tr probe add's "u:" lines: what the kernel's dynamic_events takes, and why not. */
TEST(dynamic_events_lines)
{
	char *name, *fields;

	CHECK(uev_dyn_parse("u:req u32 id; __rel_loc char[] path", &name, &fields) == 0);
	CHECK_STR(name, "req");
	CHECK_STR(fields, "u32 id; __rel_loc char[] path");
	free(name);
	free(fields);
	CHECK(uev_dyn_parse("  u:  bare", &name, &fields) == 0);
	CHECK_STR(name, "bare");
	CHECK_STR(fields, "");
	free(name);
	free(fields);
	CHECK(uev_dyn_parse("u:x:BPF_ITER u8 a", &name, &fields) == -EINVAL);
	CHECK(!name && !fields);
	CHECK_STR(tr_failure(), "bad user event 'u:x:BPF_ITER u8 a': the kernel takes no flags "
		  "after the name (u:NAME FIELDS)");
	CHECK(uev_dyn_parse("u:grp/x u8 a", &name, &fields) == -EINVAL);
	CHECK_STR(tr_failure(), "bad user event 'u:grp/x u8 a': user events have no group (the "
		  "kernel puts them in user_events)");
	CHECK(uev_dyn_parse("u: ", &name, &fields) == -EINVAL);
	CHECK_STR(tr_failure(), "bad user event 'u: ': no name after u:");
	CHECK(uev_dyn_parse("p:x do_sys_open", &name, &fields) == -EINVAL);
}

UNIT_MAIN(T(format_types_sizes_offsets), T(format_errors_name_the_field), T(status_parse),
	  T(encode_layout), T(encode_checks_before_writing), T(split_stdin_lines),
	  T(printer_says_what_the_kernel_says), T(multi_format_names_parse), T(dynamic_events_lines))
