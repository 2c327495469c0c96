// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The filter fence (fmt-filter.h, fmt-filter.c): filters in the kernel's
 * grammar are taken and rewritten in one spelling; everything else is
 * refused with a reason naming the bad token, before libtraceevent's parser
 * (which crashes on some of them) sees it.  The rewritten filters are then
 * compiled by libtraceevent against a real file's events (under ASan here).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-filter.h"
#include "tfile.h"
#include "tr.h"
#include "unit.h"

/*
 * libtraceevent 1.7.1 leaks on some of the filters it refuses: not ours, as
 * tests/lsan.supp says for the other tiers.  Its frames have no frame
 * pointers, so the slow unwinder is needed to see them.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

/* The canonical text of f ("events: expr", "events" or "expr"), or "!reason". */
static char *canon(const char *f, unsigned flags)
{
	struct fmt_filter ff;
	char why[160];
	char *s;

	if (fmt_filter_parse(f, flags, &ff, why, sizeof(why)))
		return xasprintf("!%s", why);
	s = fmt_filter_string(&ff, NULL);
	if (ff.events && ff.expr) {
		free(s);
		s = xasprintf("%s: %s", ff.events, ff.expr);
	}
	fmt_filter_free(&ff);
	return s;
}

TEST(kernel_grammar_taken)
{
	CHECK_OWNED(canon("prev_pid == 1", 0), "prev_pid == 1");
	CHECK_OWNED(canon("  prev_pid==1&&next_pid!=2 ", 0), "prev_pid == 1 && next_pid != 2");
	CHECK_OWNED(canon("((sig >= 10 && sig < 15) || sig == 17) && comm != bash", 0),
		    "((sig >= 10 && sig < 15) || sig == 17) && comm != \"bash\"");
	CHECK_OWNED(canon("common_preempt_count > 4", 0), "common_preempt_count > 4");
	CHECK_OWNED(canon("sched_switch: prev_pid > 0", 0), "sched_switch: prev_pid > 0");
	CHECK_OWNED(canon("sched/sched_switch , sched_wakeup :common_pid<=0x10", 0),
		    "sched/sched_switch,sched_wakeup: common_pid <= 0x10");
	CHECK_OWNED(canon("sched/.*", 0), "sched/.*");
	CHECK_OWNED(canon("sched_switch", 0), "sched_switch");
	CHECK_OWNED(canon("flags & 4", 0), "flags & 4");
	/* Negative numbers as libtraceevent compares them: 64 unsigned bits. */
	CHECK_OWNED(canon("prev_pid >= -9223372036854775808", 0),
		    "prev_pid >= 9223372036854775808");
	CHECK_OWNED(canon("prev_state == -1", 0), "prev_state == 18446744073709551615");
	CHECK_OWNED(canon("x != -0x10", 0), "x != 18446744073709551600");
	CHECK_OWNED(canon("x == 18446744073709551615", 0), "x == 18446744073709551615");
	CHECK_OWNED(canon("x == 017", 0), "x == 017");
	/* A '!' goes right before a comparison only (libtraceevent leaks on "!("). */
	CHECK_OWNED(canon("!(prev_pid == 0)", 0), "!prev_pid == 0");
	CHECK_OWNED(canon("!prev_pid == 0", 0), "!prev_pid == 0");
	CHECK_OWNED(canon("!!(a == 1)", 0), "a == 1");
	CHECK_OWNED(canon("!(a == 1 && b == 2)", 0), "!a == 1 || !b == 2");
	CHECK_OWNED(canon("!(a == 1 || !(b == 2 && c == 3))", 0), "!a == 1 && b == 2 && c == 3");
	CHECK_OWNED(canon("x == 1 && !(a == 1 && b == 2)", 0), "x == 1 && (!a == 1 || !b == 2)");
	CHECK_OWNED(canon("(((a == 1)))", 0), "a == 1");
	CHECK_OWNED(canon("a == 1 || b == 2 && c == 3", 0), "a == 1 || (b == 2 && c == 3)");
	CHECK_OWNED(canon("(a == 1 || b == 2) && c == 3", 0), "(a == 1 || b == 2) && c == 3");
	CHECK_OWNED(canon("comm == 'b\"sh'", 0), "comm == 'b\"sh'");
	CHECK_OWNED(canon("comm =~ \"^k.\\.x\"", 0), "comm =~ \"^k.\\.x\"");
	CHECK_OWNED(canon("comm !~ \"^k\"", 0), "comm !~ \"^k\"");
	/* A ':' inside a string is not the events' one. */
	CHECK_OWNED(canon("comm == \"a:b\"", 0), "comm == \"a:b\"");
	CHECK_OWNED(canon("comm == \"99999999999999999999999\"", 0),
		    "comm == \"99999999999999999999999\"");
	/* The kernel's globs, as anchored regexes. */
	CHECK_OWNED(canon("prev_comm ~ \"*sh\"", 0), "prev_comm =~ \"^.*sh$\"");
	CHECK_OWNED(canon("prev_comm ~ \"sh*\"", 0), "prev_comm =~ \"^sh.*$\"");
	CHECK_OWNED(canon("prev_comm ~ \"ba?h\"", 0), "prev_comm =~ \"^ba.h$\"");
	CHECK_OWNED(canon("prev_comm ~ \"[!a-c]x.y+\"", 0), "prev_comm =~ \"^[^a-c]x\\.y\\+$\"");
	CHECK_OWNED(canon("prev_comm ~ bash", 0), "prev_comm =~ \"^bash$\"");
	/* hist's -f: an expression only. */
	CHECK_OWNED(canon("prev_pid == 1", FMT_FILTER_EXPR), "prev_pid == 1");
}

/* f is refused with a reason that holds want. */
static void refused(const char *f, unsigned flags, const char *want)
{
	char *s = canon(f, flags);

	if (s[0] != '!' || !strstr(s, want)) {
		printf("#   '%s': got '%s', want a refusal with '%s'\n", f, s, want);
		unit_failed_checks++;
	}
	free(s);
}

TEST(bad_filters_refused_naming_the_token)
{
	char big[600];

	/* The three of issue 29: libtraceevent crashes or misbehaves on each. */
	refused("prev_comm == \"", 0, "unterminated string \"");
	refused("prev_pid == 1 && prev_pid * 1 prev_pid | \"x\"", 0, "unexpected '*'");
	refused("prev_pid == 1 , b", 0, "unexpected ','");

	refused("", 0, "no event name");
	refused("   ", 0, "no event name");
	refused("sched_switch:", 0, "no expression");
	refused(": a == 1", 0, "no event name before ':'");
	refused("sched_switch: a == 1", FMT_FILTER_EXPR, "unexpected ':'");
	refused("prev_pid = 1", 0, "unexpected '=' (a comparison is '==')");
	refused("prev_pid", FMT_FILTER_EXPR, "expected a comparison after 'prev_pid', not the end");
	refused("prev_pid 1", FMT_FILTER_EXPR, "expected a comparison after 'prev_pid', not '1'");
	refused("prev_pid 1", 0, "unexpected '1' after the event 'prev_pid'");
	refused("prev_pid ==", 0, "expected a value after '==', not the end");
	refused("prev_pid == )", 0, "expected a value after '==', not ')'");
	refused("== 1", 0, "expected a field name, not '=='");
	refused("1 == prev_pid", 0, "expected a field name, not '1'");
	refused("((prev_pid == 0)", 0, "expected ')' before the end");
	refused("prev_pid == 0)", 0, "unexpected ')' after the expression");
	refused("prev_pid == 0 prev_pid == 1", 0, "unexpected 'prev_pid' after the expression");
	refused("a == 1 &&", 0, "expected a field name, not the end");
	refused("a == 1 || || b == 2", 0, "expected a field name, not '||'");
	refused("a == 1 & & b == 2", 0, "unexpected '&' after the expression");
	refused("a + 1 == 2", 0, "unexpected '+'");
	refused("a == 1 | b == 2", 0, "unexpected '|'");
	refused("a == 12abc", 0, "bad number '12abc'");
	refused("a == 0x", 0, "bad number '0x'");
	refused("a == 09", 0, "bad number '09'");
	refused("a == 18446744073709551616", 0, "the number '18446744073709551616' is out of range");
	refused("a == -9223372036854775809", 0, "out of range");
	refused("prev_pid == -99999999999999999999999", 0, "out of range");
	refused("comm == 'bash", 0, "unterminated string 'bash");
	refused("comm == \"ba\\\"", 0, "a backslash");
	refused("comm == \"a\\\\b\"", 0, "a backslash");
	refused("comm == \"a\tb\"", 0, "byte 0x09 in the string");
	refused("comm == \"\xc3\xa9\"", 0, "byte 0xc3 in the string");
	refused("comm ~ 1", 0, "'~' takes a string, not '1'");
	refused("comm == \"a,b\"", 0, "a ',' in the string \"a,");
	refused("sig =~ 17", 0, "'=~' takes a string, not '17'");
	refused("sig !~ -1", 0, "'!~' takes a string, not '-1'");
	refused("comm < \"a\"", 0, "'<' takes a number, not '\"a\"'");
	refused("comm >= bash", 0, "'>=' takes a number, not 'bash'");
	refused("flags & \"x\"", 0, "'&' takes a number, not '\"x\"'");
	refused("comm ~ \"[ab\"", 0, "unterminated '[' in the glob");
	refused("a == 1 ; b", 0, "unexpected ';'");
	refused("a == $x", 0, "unexpected '$'");
	refused("a\x01 == 1", 0, "unexpected byte 0x01");
	refused("sched switch: a == 1", 0, "unexpected 's' after the event 'sched'");
	refused("sched_switch;x: a == 1", 0, "unexpected ';' after the event 'sched_switch'");
	refused("sched,: a == 1", 0, "no event name before ':'");
	refused("!", 0, "expected a field name, not the end");
	memset(big, '(', 40);
	strcpy(big + 40, "a == 1");
	memset(big + 46, ')', 40);
	big[86] = '\0';
	refused(big, 0, "nested deeper than 32");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	refused(big, 0, "599 bytes long");
	refused("comm == \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaa\"", 0, "longer than 255 bytes");
}

/*
 * Through libtraceevent: each filter the fence takes compiles or fails
 * cleanly against a real file's events; the three of issue 29 (a crash, a
 * double free and a malloc of a negative size there) fail with the fence's
 * reason.  Then every prefix and many one-byte mutations of good filters:
 * what the fence takes, libtraceevent must compile without a sanitizer
 * finding.
 */
TEST(libtraceevent_gets_only_what_it_can_take)
{
	static const char *const good[] = {
		"prev_pid == 1", "sched_switch: prev_comm ~ \"*sh\"", "prev_comm == bash",
		"(prev_pid > 0 && next_pid < 100) || !(prev_prio == 120)", "common_pid & 1",
		"sched/.*", "COMM == \"bash\"", "CPU == 0", "prev_comm =~ \"^r\"",
		"sched_switch,sched_wakeup: common_pid >= 0",
		"((prev_pid < 15 && prev_pid > -1) || prev_pid == 1)",
	};
	static const char *const seeds[] = {
		"((sig >= 10 && sig < 15) || sig == 17) && comm != bash",
		"sched_switch: prev_comm ~ \"b[a-z]*\" && !(next_pid == 0x10)",
		"prev_pid == 1 && prev_pid * 1 prev_pid | \"x\"", "prev_pid == 1 , b",
	};
	static const char alphabet[] = " ()!&|=<>~\"'*,:-0x9aZ_/.[]\\";
	struct tep_event_filter *flt;
	struct tfile *tf;
	int r, n = 0;

	CHECK(tfile_open("tests/data/report-v7.dat", TFILE_NO_KALLSYMS, &tf) == 0);
	if (!tf)
		return;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		r = fmt_filter_compile(tfile_tep(tf), good[i], 0, ".*", &flt);
		if (r)
			printf("#   '%s': %s\n", good[i], tr_failure());
		CHECK(r == 0 && flt);
		if (flt)
			tep_filter_free(flt);
	}
	CHECK(fmt_filter_compile(tfile_tep(tf), "prev_comm == \"", 0, ".*", &flt) == -EINVAL);
	CHECK(!flt && strstr(tr_failure(), "unterminated string"));
	CHECK(fmt_filter_compile(tfile_tep(tf), "prev_pid == 1 , b", 0, ".*", &flt) == -EINVAL);
	CHECK(!flt && strstr(tr_failure(), "bad filter 'prev_pid == 1 , b': unexpected ','"));
	/* libtraceevent's own refusal, on one line. */
	CHECK(fmt_filter_compile(tfile_tep(tf), "sched_switch", 0, ".*", &flt) == 0);
	if (flt)
		tep_filter_free(flt);
	CHECK(fmt_filter_compile(tfile_tep(tf), "nosuch_event", 0, ".*", &flt) == -EINVAL);
	CHECK(!strchr(tr_failure(), '\n') && strstr(tr_failure(), "no event found"));
	tr_detail_clear();
	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		size_t len = strlen(seeds[s]);
		char buf[128];

		for (size_t cut = 0; cut <= len; cut++) {
			for (size_t m = 0; m <= sizeof(alphabet) - 1; m++) {
				snprintf(buf, sizeof(buf), "%s", seeds[s]);
				if (m < sizeof(alphabet) - 1 && cut < len)
					buf[cut] = alphabet[m];	/* one byte changed */
				else if (m == sizeof(alphabet) - 1)
					buf[cut] = '\0';	/* a prefix */
				else
					continue;
				if (getenv("TR_DEBUG_FILTER"))
					fprintf(stderr, "[%s]\n", buf);
				if (!fmt_filter_compile(tfile_tep(tf), buf, 0, ".*", &flt)) {
					tep_filter_free(flt);
					n++;
				}
				tr_detail_clear();
			}
		}
	}
	printf("#   %d of the mutated filters compiled\n", n);
	CHECK(n > 50);
	tfile_close(tf);
}

/* fmt_check_filter: numbers out of range and overlong filters refused. */
TEST(filters_checked)
{
	char why[128], *big = malloc(100001);

	CHECK(fmt_check_filter("sched_switch: prev_pid == 1 && next_comm ~ \"ba*\"", why,
			       sizeof(why)) == 0);
	CHECK(fmt_check_filter("prev_pid == -9223372036854775808", why, sizeof(why)) == 0);
	CHECK(fmt_check_filter("cpu0 == 18446744073709551615", why, sizeof(why)) == 0);
	CHECK(fmt_check_filter("prev_pid == -99999999999999999999999", why, sizeof(why)) < 0);
	CHECK(strstr(why, "out of range"));
	CHECK(fmt_check_filter("x == 18446744073709551616", why, sizeof(why)) < 0);
	/* Inside a string, digits are text. */
	CHECK(fmt_check_filter("comm == \"99999999999999999999999\"", why, sizeof(why)) == 0);
	memset(big, 'a', 100000);
	big[100000] = '\0';
	CHECK(fmt_check_filter(big, why, sizeof(why)) < 0);
	CHECK(strstr(why, "100000 bytes"));
	free(big);
}

UNIT_MAIN(T(kernel_grammar_taken), T(filters_checked), T(bad_filters_refused_naming_the_token),
	  T(libtraceevent_gets_only_what_it_can_take))
