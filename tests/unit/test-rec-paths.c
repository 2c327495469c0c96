// SPDX-License-Identifier: GPL-2.0-or-later
/* Where tr record writes: the output, the temp directory, the spool, the guests' files. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec-paths.h"
#include "tr.h"
#include "unit.h"

/* decide() into a string "OUTPUT|TMP_DIR|SPOOL", for one CHECK each. */
static char *decide(const char *output, const char *temp_dir)
{
	struct rec_paths p;
	char *s;

	rec_paths_decide(&p, output, temp_dir);
	s = xasprintf("%s|%s|%s", p.output, p.tmp_dir, p.spool);
	CHECK(p.fd == -1 && !p.created);
	rec_paths_free(&p);
	return s;
}

TEST(names_beside_the_output)
{
	CHECK_OWNED(decide(NULL, NULL), "trace.dat|.|trace.dat.spool");
	CHECK_OWNED(decide("x.dat", NULL), "x.dat|.|x.dat.spool");
	CHECK_OWNED(decide("out/run1.dat", NULL), "out/run1.dat|out|out/run1.dat.spool");
	CHECK_OWNED(decide("/v/a/b.dat", NULL), "/v/a/b.dat|/v/a|/v/a/b.dat.spool");
	CHECK_OWNED(decide("/b.dat", NULL), "/b.dat|/|/b.dat.spool");
}

/* --temp moves the per-CPU data, and so the spool that holds it, off the output's file system. */
TEST(names_under_temp)
{
	CHECK_OWNED(decide(NULL, "/scratch"), "trace.dat|/scratch|/scratch/trace.dat.spool");
	CHECK_OWNED(decide("out/run1.dat", "/scratch"),
		    "out/run1.dat|/scratch|/scratch/run1.dat.spool");
	CHECK_OWNED(decide("/a/b/c.dat", "tmp"), "/a/b/c.dat|tmp|tmp/c.dat.spool");
}

/* trace-cmd's: "-NAME" before the extension of the last component, else at the end. */
TEST(guest_names)
{
	CHECK_OWNED(rec_guest_path("trace.dat", "vm1"), "trace-vm1.dat");
	CHECK_OWNED(rec_guest_path("out/run.1.dat", "g"), "out/run.1-g.dat");
	CHECK_OWNED(rec_guest_path("noext", "g"), "noext-g");
	CHECK_OWNED(rec_guest_path("a.d/noext", "g"), "a.d/noext-g");
	CHECK_OWNED(rec_guest_path(".hidden", "g"), ".hidden-g");
	CHECK_OWNED(rec_guest_path("dir/.hidden", "g"), "dir/.hidden-g");
}

/* Made, reopened without emptying, refused with the reason; discard removes only what it made. */
TEST(open_close_discard)
{
	char dir[] = "/tmp/tr-unit-paths-XXXXXX";
	struct rec_paths p;
	char *out, *bad;
	struct stat st;
	int fd;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	out = xasprintf("%s/t.dat", dir);
	rec_paths_decide(&p, out, NULL);
	CHECK_STR(p.tmp_dir, dir);
	CHECK(rec_paths_open(&p) == 0 && p.fd >= 0 && p.created);
	CHECK(write(p.fd, "old", 3) == 3);
	CHECK(rec_paths_close(&p) == 0 && p.fd == -1);
	CHECK(rec_paths_close(&p) == 0);	/* twice is harmless */
	rec_paths_free(&p);

	/* An old file is kept as it is: the recording empties it when it starts. */
	rec_paths_decide(&p, out, NULL);
	CHECK(rec_paths_open(&p) == 0 && !p.created);
	CHECK(fstat(p.fd, &st) == 0 && st.st_size == 3);
	rec_paths_discard(&p);
	CHECK(access(out, F_OK) == 0);
	CHECK(rec_paths_close(&p) == 0);
	rec_paths_free(&p);
	CHECK(unlink(out) == 0);

	rec_paths_decide(&p, out, NULL);
	CHECK(rec_paths_open(&p) == 0 && p.created);
	rec_paths_discard(&p);
	CHECK(access(out, F_OK) == -1 && errno == ENOENT);
	CHECK(rec_paths_close(&p) == 0);
	rec_paths_free(&p);

	bad = xasprintf("%s/nosuch/t.dat", dir);
	fd = rec_output_open(bad, &(bool){ false });
	CHECK(fd == -ENOENT);
	CHECK(tr_failure() && strstr(tr_failure(), "cannot write '") &&
	      strstr(tr_failure(), "nosuch/t.dat': No such file or directory"));
	free(bad);
	free(out);
	CHECK(rmdir(dir) == 0);
}

UNIT_MAIN(T(names_beside_the_output), T(names_under_temp), T(guest_names), T(open_close_discard))
