// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Persistent ring buffers: last_boot_info's parser (hostile text too), the
 * kallsyms moved onto the previous boot's addresses, and the listing of
 * persistent instances from a tracefs stand-in (TR_TRACEFS).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tfs-persist.h"
#include "tfs.h"
#include "tr.h"
#include "unit.h"

static int parse(const char *s, struct tfs_last_boot *lb)
{
	return tfs_last_boot_parse(s, strlen(s), lb);
}

TEST(last_boot_info)
{
	struct tfs_last_boot lb;

	CHECK(parse("# Current\n", &lb) == 0);
	CHECK(lb.current && !lb.nmods);
	tfs_last_boot_free(&lb);

	CHECK(parse("ffffffff9a000000\t[kernel]\n", &lb) == 0);
	CHECK(!lb.current && lb.text == 0xffffffff9a000000ull && !lb.nmods);
	tfs_last_boot_free(&lb);

	/* Modules, given in any order, come out sorted by address. */
	CHECK(parse("ffffffff9a000000\t[kernel]\nffffffffc0a00000\tvirtio_net\n"
		    "ffffffffc0800000\tloop\n", &lb) == 0);
	CHECK(lb.nmods == 2);
	CHECK(lb.mods[0].addr == 0xffffffffc0800000ull);
	CHECK_STR(lb.mods[0].name, "loop");
	CHECK_STR(lb.mods[1].name, "virtio_net");
	tfs_last_boot_free(&lb);

	/* Without the final newline, as an option's text may come. */
	CHECK(parse("ffffffff81000000\t[kernel]", &lb) == 0 && lb.text == 0xffffffff81000000ull);
	tfs_last_boot_free(&lb);
}

TEST(last_boot_info_hostile)
{
	static const char *const bad[] = {
		"",
		"\n",
		"ffffffff81000000 [kernel]\n",			/* a space, not a tab */
		"ffffffff81000000\t[kernel] \n",
		"ffffffff81000000\tvmlinux\n",			/* the first line is the kernel's */
		"1ffffffff81000000\t[kernel]\n",		/* 17 digits */
		"\t[kernel]\n",
		"zz\t[kernel]\n",
		"# Current\nffffffff81000000\t[kernel]\n",	/* nothing after "# Current" */
		"ffffffff81000000\t[kernel]\nffffffffc0000000\t\n",
		"ffffffff81000000\t[kernel]\nffffffffc0000000\ta b\n",
		"ffffffff81000000\t[kernel]\nffffffffc0000000\t"
		"a_module_name_much_longer_than_the_kernel_allows_for_any_module_at_all\n",
		"ffffffff81000000\t[kernel]\nffffffffc0000000\n",
	};
	struct tfs_last_boot lb;
	char *many = xstrdup("ffffffff81000000\t[kernel]\n");
	char nul[] = "ffffffff81000000\t[kernel]\nffffffffc0000000\tab\0cd\n";

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECK(parse(bad[i], &lb) == -EINVAL);
		CHECK(!lb.mods && !lb.nmods && !lb.text);
	}
	CHECK(tfs_last_boot_parse(nul, sizeof(nul) - 1, &lb) == -EINVAL);
	/* More modules than any kernel keeps: refused, not grown without bound. */
	for (int i = 0; i <= TFS_LAST_BOOT_MAX_MODS; i++)
		xstrcatf(&many, "ffffffffc%07x\tm%d\n", i, i);
	CHECK(parse(many, &lb) == -EINVAL);
	CHECK(strstr(tr_failure(), "more than 4096 modules") != NULL);
	free(many);
}

/*
 * This boot's kallsyms moved onto the previous boot's addresses: kernel
 * symbols by the text delta, a module's by its own base (this boot's from
 * /proc/modules), modules of one boot only left out, absolute ones kept.
 */
TEST(rebase)
{
	const char *ks = "0000000000000000 A fixed_percpu_data\n"
			 "ffffffff9a000000 T _text\n"
			 "ffffffff9a123450 T vfs_read\n"
			 "ffffffff9b000000 D jiffies\n"
			 "ffffffffc0201010 t loop_queue_rq\t[loop]\n"
			 "ffffffffc0300000 t new_fn\t[newmod]\n"
			 "garbage line\n";
	const char *mods = "loop 32768 0 - Live 0xffffffffc0201000\n"
			   "newmod 4096 0 - Live 0xffffffffc0300000 (OE)\n";
	struct tfs_last_boot lb;
	int64_t delta = 0;
	char *out;

	CHECK(parse("ffffffff81000000\t[kernel]\nffffffffc0a00000\tloop\n", &lb) == 0);
	out = tfs_last_boot_rebase(ks, mods, &lb, &delta);
	CHECK(out != NULL);
	CHECK(delta == 0x19000000);
	CHECK_STR(out, "0000000000000000 A fixed_percpu_data\n"
		       "ffffffff81000000 T _text\n"
		       "ffffffff81123450 T vfs_read\n"
		       "ffffffff82000000 D jiffies\n"
		       "ffffffffc0a00010 t loop_queue_rq\t[loop]\n");
	free(out);
	/* Without /proc/modules no module symbol can be placed. */
	out = tfs_last_boot_rebase(ks, NULL, &lb, &delta);
	CHECK(out && !strstr(out, "[loop]") && strstr(out, "ffffffff81123450 T vfs_read\n"));
	free(out);
	/* Nothing to measure from: refused, with the reason. */
	CHECK(tfs_last_boot_rebase("ffffffff9a123450 T vfs_read\n", NULL, &lb, &delta) == NULL);
	CHECK(strstr(tr_failure(), "no _text") != NULL);
	/* Short addresses grow to 16 digits: the output has room for them. */
	out = tfs_last_boot_rebase("1 T _text\n2 t a\n3 t b\n4 t c\n", NULL, &lb, &delta);
	CHECK(out && strstr(out, "ffffffff81000001 t a\n"));
	free(out);
	tfs_last_boot_free(&lb);
}

static void put(const char *dir, const char *file, const char *text)
{
	char *p = xasprintf("%s/%s", dir, file);
	FILE *f;

	if (!text) {
		CHECK(unlink(p) == 0);
	} else {
		f = fopen(p, "w");
		CHECK(f != NULL);
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

/* The listing: instances with last_boot_info, what each holds, a backup's mark. */
TEST(listing)
{
	static const char *const dirs[] = { "instances", "instances/boot_map", "instances/backup",
					    "instances/plain", "instances/bad", "instances/fresh",
					    "instances/boot_map/per_cpu", "instances/boot_map/per_cpu/cpu0",
					    "instances/boot_map/per_cpu/cpu1", "instances/backup/per_cpu",
					    "instances/backup/per_cpu/cpu0" };
	char dir[] = "/tmp/tr-test-persist.XXXXXX";
	struct tfs_persist *p;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *d = xasprintf("%s/%s", dir, dirs[i]);

		CHECK(mkdir(d, 0700) == 0);
		free(d);
	}
	put(dir, "tracing_on", "1\n");
	put(dir, "instances/boot_map/tracing_on", "0\n");
	put(dir, "instances/boot_map/last_boot_info", "ffffffff81000000\t[kernel]\n");
	put(dir, "instances/backup/last_boot_info", "ffffffff81000000\t[kernel]\n");
	put(dir, "instances/plain/tracing_on", "1\n");
	put(dir, "instances/bad/tracing_on", "1\n");
	put(dir, "instances/bad/last_boot_info", "what\n");
	put(dir, "instances/boot_map/per_cpu/cpu0/stats", "entries: 0\noverrun: 0\n");
	put(dir, "instances/boot_map/per_cpu/cpu1/stats", "entries: 7\noverrun: 0\n");
	put(dir, "instances/backup/per_cpu/cpu0/stats", "entries: 3\n");
	/* Memory no boot wrote passes the kernel's checks with its kernel at 0. */
	put(dir, "instances/fresh/tracing_on", "0\n");
	put(dir, "instances/fresh/last_boot_info", "0\t[kernel]\n");
	setenv("TR_TRACEFS", dir, 1);
	CHECK(tfs_open() == 0);
	CHECK(tfs_persist_list(&p, &n) == 0);
	CHECK(n == 4);
	if (n == 4) {
		CHECK_STR(p[0].name, "backup");
		CHECK(p[0].backup && p[0].last_boot);
		CHECK_STR(p[1].name, "bad");
		CHECK(!p[1].last_boot && p[1].bad && strstr(p[1].bad, "line 1"));
		CHECK_STR(p[2].name, "boot_map");
		CHECK(!p[2].backup && p[2].last_boot && p[2].lb.text == 0xffffffff81000000ull);
		CHECK_STR(p[3].name, "fresh");
		CHECK(!p[3].last_boot && p[3].empty);
	}
	tfs_persist_free(p, n);
	/* A previous boot that recorded nothing: nothing to keep either. */
	put(dir, "instances/boot_map/per_cpu/cpu1/stats", "entries: 0\n");
	{
		struct tfs_persist one;

		CHECK(tfs_persist_get("boot_map", &one) == 0);
		CHECK(!one.last_boot && one.empty);
		tfs_persist_clear(&one);
	}
	/* Read out, it holds this boot's data. */
	put(dir, "instances/boot_map/last_boot_info", "# Current\n");
	{
		struct tfs_persist one;

		CHECK(tfs_persist_get("boot_map", &one) == 0);
		CHECK(!one.last_boot && one.lb.current && !one.bad);
		tfs_persist_clear(&one);
		CHECK(tfs_persist_get("plain", &one) == -ENOENT);
	}
	unsetenv("TR_TRACEFS");
	put(dir, "instances/boot_map/last_boot_info", NULL);
	put(dir, "instances/boot_map/tracing_on", NULL);
	put(dir, "instances/backup/last_boot_info", NULL);
	put(dir, "instances/plain/tracing_on", NULL);
	put(dir, "instances/bad/tracing_on", NULL);
	put(dir, "instances/bad/last_boot_info", NULL);
	put(dir, "instances/boot_map/per_cpu/cpu0/stats", NULL);
	put(dir, "instances/boot_map/per_cpu/cpu1/stats", NULL);
	put(dir, "instances/backup/per_cpu/cpu0/stats", NULL);
	put(dir, "instances/fresh/tracing_on", NULL);
	put(dir, "instances/fresh/last_boot_info", NULL);
	put(dir, "tracing_on", NULL);
	for (size_t i = ARRAY_SIZE(dirs); i-- > 0;) {
		char *d = xasprintf("%s/%s", dir, dirs[i]);

		CHECK(rmdir(d) == 0);
		free(d);
	}
	CHECK(rmdir(dir) == 0);
}

UNIT_MAIN(T(last_boot_info), T(last_boot_info_hostile), T(rebase), T(listing))
