// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The PROCMAPS option (tfile-procmaps.c): the text trace-cmd's --proc-map
 * writes and its reader takes ("%x %x %s\n" then "%llx %llx %s\n" lines,
 * a NUL at the end), made and read back here; every malformed text is
 * refused with the line it stops at, nothing kept; the kernel's find_vma()
 * rule for lookups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tfile.h"
#include "tfw.h"
#include "unit.h"

static struct tfile_vma vmas[] = {
	{ 0x400000, 0x401000, "/usr/bin/prog" },
	{ 0x401000, 0x402000, "/usr/bin/prog" },
	{ 0x1000000, 0x1021000, "[heap]" },
	{ 0x7f0000000000, 0x7f0000028000, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
	{ 0x7f0000028000, 0x7f00001bd000, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
	{ 0x7f0000300000, 0x7f0000301000, "/tmp/my lib.so (deleted)" },
};

TEST(encode_is_trace_cmds_text)
{
	struct tfile_procmap m = { 1234, "/usr/bin/prog", 6, vmas };
	const char *want = "4d2 6 /usr/bin/prog\n"
			   "400000 401000 /usr/bin/prog\n"
			   "401000 402000 /usr/bin/prog\n"
			   "1000000 1021000 [heap]\n"
			   "7f0000000000 7f0000028000 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
			   "7f0000028000 7f00001bd000 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
			   "7f0000300000 7f0000301000 /tmp/my lib.so (deleted)\n";
	struct tfile_procmap back;
	struct tfw_opt o;
	char why[96];

	tfw_opt_procmap(&o, &m);
	CHECK(o.id == 10);
	CHECK(o.data.len == strlen(want) + 1);
	CHECK_STR(o.data.data, want);
	CHECK(!tfile_procmap_parse(o.data.data, o.data.len, &back, why, sizeof(why)));
	CHECK(back.pid == 1234 && back.n == 6);
	CHECK_STR(back.exe, "/usr/bin/prog");
	for (size_t i = 0; i < 6; i++) {
		CHECK(back.vmas[i].start == vmas[i].start && back.vmas[i].end == vmas[i].end);
		CHECK_STR(back.vmas[i].name, vmas[i].name);
	}
	tfile_procmap_free(&back);
	free(o.data.data);
}

TEST(find_is_find_vma)
{
	struct tfile_procmap m = { 1, "/usr/bin/prog", 6, vmas };

	CHECK(tfile_procmap_find(&m, 0x400000) == &vmas[0]);
	CHECK(tfile_procmap_find(&m, 0x400fff) == &vmas[0]);
	CHECK(tfile_procmap_find(&m, 0x401000) == &vmas[1]);
	/* Below every mapping or in a gap: the one after, as the kernel's. */
	CHECK(tfile_procmap_find(&m, 0x10) == &vmas[0]);
	CHECK(tfile_procmap_find(&m, 0x500000) == &vmas[2]);
	CHECK(tfile_procmap_find(&m, 0x7f0000028123) == &vmas[4]);
	CHECK(tfile_procmap_find(&m, 0x7f0000301000) == NULL);
	m.n = 0;
	CHECK(tfile_procmap_find(&m, 0x400000) == NULL);
}

static void refused(const char *text, size_t n, const char *why_want)
{
	struct tfile_procmap m;
	char why[96] = "";

	CHECK(tfile_procmap_parse(text, n, &m, why, sizeof(why)) == -EBADMSG);
	CHECK(m.exe == NULL && m.vmas == NULL && m.n == 0);
	if (strcmp(why, why_want))
		fprintf(stderr, "  text %.40s: why '%s', want '%s'\n", text, why, why_want);
	CHECK_STR(why, why_want);
}

#define REFUSED(lit, why) refused(lit, sizeof(lit), why)

TEST(malformed_is_refused)
{
	static const char no_nul[] = { '1', ' ', '0', ' ', 'x', '\n' };

	refused(no_nul, sizeof(no_nul), "the text does not end with a NUL");
	refused("", 0, "the text does not end with a NUL");
	REFUSED("", "line 1 is not 'PID COUNT EXE'");
	REFUSED("1 0 /bin/x", "line 1 is not 'PID COUNT EXE'");
	REFUSED("1 0\n", "line 1 is not 'PID COUNT EXE'");
	REFUSED("1 0 \n", "line 1 is not 'PID COUNT EXE'");
	REFUSED("0 0 /bin/x\n", "line 1 is not 'PID COUNT EXE'");
	REFUSED("80000000 0 /bin/x\n", "line 1 is not 'PID COUNT EXE'");
	REFUSED("-1 0 /bin/x\n", "line 1 is not 'PID COUNT EXE'");
	REFUSED("0x1 0 /bin/x\n", "line 1 is not 'PID COUNT EXE'");
	REFUSED("1  0 /bin/x\n", "line 1 is not 'PID COUNT EXE'");
	REFUSED("1 fffffffff /bin/x\n", "line 1 counts too many mappings");
	REFUSED("1 2 /bin/x\n1000 2000 /bin/x\n", "the text ends before line 3");
	REFUSED("1 1 /bin/x\n1000 2000 /bin/x", "the text ends before line 2");
	REFUSED("1 1 /bin/x\n1000 2000\n", "line 2 is not 'START END NAME'");
	REFUSED("1 1 /bin/x\n1000 2000 \n", "line 2 is not 'START END NAME'");
	REFUSED("1 1 /bin/x\n1000-2000 /bin/x\n", "line 2 is not 'START END NAME'");
	REFUSED("1 1 /bin/x\n10000000000000000 20000000000000000 /x\n",
		"line 2 is not 'START END NAME'");
	REFUSED("1 1 /bin/x\ng000 2000 /bin/x\n", "line 2 is not 'START END NAME'");
	REFUSED("1 1 /bin/x\n2000 2000 /bin/x\n", "line 2 overlaps or precedes the one before");
	REFUSED("1 2 /bin/x\n1000 3000 /a\n2000 4000 /b\n",
		"line 3 overlaps or precedes the one before");
	REFUSED("1 1 /bin/x\n1000 2000 /a\nextra\n", "text follows line 2");
	REFUSED("1 0 /bin/x\n\n", "text follows line 1");
}

TEST(limits_and_edges)
{
	struct tfile_procmap m;
	char why[96];
	char *big;
	/* No mappings, upper-case hex, text past the NUL ignored (the option's size is trace-cmd's). */
	static const char upper[] = "7FFFFFFF 0 /bin/x\n\0junk";

	CHECK(!tfile_procmap_parse(upper, sizeof(upper), &m, why, sizeof(why)));
	CHECK(m.pid == 0x7fffffff && m.n == 0);
	tfile_procmap_free(&m);
	CHECK(!tfile_procmap_parse("1 1 /x\nffffffffffff0000 ffffffffffffffff /y\n",
				   sizeof("1 1 /x\nffffffffffff0000 ffffffffffffffff /y\n"), &m, why,
				   sizeof(why)));
	CHECK(m.n == 1 && m.vmas[0].end == UINT64_MAX);
	tfile_procmap_free(&m);
	/* A name longer than trace-cmd's line limit is refused. */
	big = malloc(8192);
	memcpy(big, "1 1 /x\n1000 2000 /", 18);
	memset(big + 18, 'a', 5000);
	memcpy(big + 5018, "\n", 2);
	CHECK(tfile_procmap_parse(big, 5020, &m, why, sizeof(why)) == -EBADMSG);
	CHECK_STR(why, "line 2 is not 'START END NAME'");
	free(big);
	tfile_procmap_free(NULL);
}

TEST(read_own_maps)
{
	struct tfile_procmap m;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	bool self = false;

	CHECK(n > 0);
	exe[n] = '\0';
	CHECK(!tfw_procmap_read(getpid(), &m));
	CHECK(m.pid == getpid());
	CHECK_STR(m.exe, exe);
	CHECK(m.n > 2);
	for (size_t i = 0; i < m.n; i++) {
		CHECK(m.vmas[i].start < m.vmas[i].end && m.vmas[i].name[0]);
		CHECK(!i || m.vmas[i].start >= m.vmas[i - 1].end);
		self |= !strcmp(m.vmas[i].name, exe);
	}
	/* The code that runs is in one of them, by the kernel's rule. */
	CHECK(self);
	CHECK(!strcmp(tfile_procmap_find(&m, (uint64_t)(uintptr_t)&read_own_maps)->name, exe));
	tfile_procmap_free(&m);
	CHECK(tfw_procmap_read(0x3fffff, &m) < 0 && !m.exe);
}

/*
 * The spool's log of maps: the last well-formed one of each pid, in the
 * order the pids came; a malformed one in the middle and a last one cut
 * short (no NUL: a crash mid-append) are passed over.
 */
TEST(log_keeps_the_last_of_each_pid)
{
	static const char log[] = "a 1 /bin/sh\n400000 401000 /bin/sh\n"
				  "\0b 1 /usr/bin/w\n400000 401000 /usr/bin/w\n"
				  "\0a 1 /usr/bin/python3\n500000 501000 /usr/bin/python3\n"
				  "\0c 1 /bad\n500000 400000 /bad\n"
				  "\0a 1 /usr/bin/cut\n600000 6";
	struct tfile_procmap *m = NULL;
	size_t n = tfile_procmap_log_parse(log, sizeof(log) - 1, &m);

	CHECK(n == 2);
	CHECK(m[0].pid == 10 && m[1].pid == 11);
	CHECK_STR(m[0].exe, "/usr/bin/python3");
	CHECK(m[0].n == 1 && m[0].vmas[0].start == 0x500000);
	CHECK_STR(m[1].exe, "/usr/bin/w");
	for (size_t i = 0; i < n; i++)
		tfile_procmap_free(&m[i]);
	free(m);
	/* Nothing, or nothing whole, is no map. */
	CHECK(tfile_procmap_log_parse("", 0, &m) == 0);
	free(m);
	CHECK(tfile_procmap_log_parse("a 1 /bin/sh\n4", 13, &m) == 0);
	free(m);
}

UNIT_MAIN(T(encode_is_trace_cmds_text), T(find_is_find_vma), T(malformed_is_refused),
	  T(limits_and_edges), T(read_own_maps), T(log_keeps_the_last_of_each_pid))
