// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hist-bench: the userspace hist engine's throughput on one core.
 *
 *   make tr && bench/hist.sh            (builds this against build/obj/)
 *   build/hist-bench [EVENTS]
 *
 * Builds ring-buffer sub-buffers (4 KiB, the kernel's layout) full of
 * sched_switch records (64 bytes each, 600 tasks switching in a pseudo-
 * random order), then runs the same loop the live engine runs per page:
 * tfile_page_load/tfile_page_next and hist_user_event, for several specs,
 * and prints events/s for each.  No tracefs or root needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <traceevent/event-parse.h>

#include "hist.h"

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char format[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", "
	"REC->prev_comm, REC->prev_pid, REC->next_comm, REC->next_pid\n";

#define PAGE 4096
#define EV_SIZE 64
#define NTASKS 600

struct rec {
	unsigned short type;
	unsigned char flags, preempt;
	int pid;
	char prev_comm[16];
	int prev_pid, prev_prio;
	long prev_state;
	char next_comm[16];
	int next_pid, next_prio;
};

/* Pages of sched_switch records: [u64 ts][u64 commit][events: u32 header + 64 bytes]. */
static unsigned char *make_pages(size_t npages, size_t *nev)
{
	unsigned char *buf = calloc(npages, PAGE);
	unsigned seed = 1, prev = 0;

	*nev = 0;
	for (size_t p = 0; p < npages; p++) {
		unsigned char *pg = buf + p * PAGE;
		size_t off = 16;
		unsigned long long ts = 1000000ULL * p;

		memcpy(pg, &ts, 8);
		while (off + 4 + EV_SIZE <= PAGE) {
			struct rec r = { .type = 372, .pid = (int)prev, .prev_prio = 120,
					 .next_prio = 120 };
			unsigned next;
			/* type_len = 64/4 = 16, time delta 1000 */
			unsigned hdr = 16 | (1000u << 5);

			seed = seed * 1103515245 + 12345;
			next = (seed >> 8) % NTASKS;
			r.prev_pid = (int)prev + 1000;
			r.next_pid = (int)next + 1000;
			snprintf(r.prev_comm, 16, "task-%u", prev % 200);
			snprintf(r.next_comm, 16, "task-%u", next % 200);
			memcpy(pg + off, &hdr, 4);
			memcpy(pg + off + 4, &r, EV_SIZE);
			off += 4 + EV_SIZE;
			prev = next;
			(*nev)++;
		}
		unsigned long long commit = off - 16;

		memcpy(pg + 8, &commit, 8);
	}
	return buf;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int run(struct tep_handle *tep, const struct tfile_layout *l, const unsigned char *pages,
	       size_t npages, size_t nev, size_t rounds, const char *keys, const char *vals,
	       const char *filter)
{
	struct hist_spec s;
	struct hist_user *u;
	struct hist_result r;
	double t0, t;
	uint32_t bad;

	if (hist_spec_build(&s, "sched:sched_switch", keys, vals, NULL, filter, 0, NULL) ||
	    hist_user_new(tep, &s, &u)) {
		fprintf(stderr, "hist-bench: %s\n", tr_failure());
		return 1;
	}
	t0 = now();
	for (size_t k = 0; k < rounds; k++)
		for (size_t p = 0; p < npages; p++) {
			struct tfile_page pg;
			struct tfile_event ev;

			if (tfile_page_load(&pg, l, pages + p * PAGE, PAGE, &bad))
				return 1;
			while (tfile_page_next(&pg, &ev, &bad) == 1)
				hist_user_event(u, &ev);
		}
	hist_user_result(u, &r);
	t = now() - t0;
	printf("hist-bench: -k %-20s%s%-16s%s%-22s %9.0f events/s  (%zu events, %zu entries, "
	       "%.2f s)\n", keys, vals ? " -v " : "", vals ? vals : "", filter ? " -f " : "",
	       filter ? filter : "", nev * rounds / t, nev * rounds, r.nrows, t);
	hist_result_free(&r);
	hist_user_free(u);
	hist_spec_free(&s);
	return 0;
}

int main(int argc, char **argv)
{
	size_t events = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000, nev;
	size_t npages = 4096, rounds;
	struct tep_handle *tep = tep_alloc();
	struct tfile_layout l;
	unsigned char *pages;
	int rc = 0;

	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	if (tep_parse_event(tep, format, strlen(format), "sched") ||
	    tfile_layout_parse(&l, header_page, strlen(header_page), false, PAGE)) {
		fprintf(stderr, "hist-bench: cannot set up the format\n");
		return 1;
	}
	pages = make_pages(npages, &nev);
	rounds = events / nev + 1;
	rc |= run(tep, &l, pages, npages, nev, rounds, "next_comm", NULL, NULL);
	rc |= run(tep, &l, pages, npages, nev, rounds, "prev_pid,next_pid", "prev_prio", NULL);
	rc |= run(tep, &l, pages, npages, nev, rounds, "common_pid.execname", NULL, NULL);
	rc |= run(tep, &l, pages, npages, nev, rounds, "next_pid.log2", NULL, NULL);
	rc |= run(tep, &l, pages, npages, nev, rounds, "next_comm", NULL, "next_pid > 1100");
	free(pages);
	tep_free(tep);
	return rc;
}
