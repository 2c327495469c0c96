// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The formatter on records built here: the text columns, JSON types, CSV
 * quoting, task names (saved_cmdlines, learned from events, saved_tgids),
 * filters, the merge order, and the fast printer against libtraceevent.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-local.h"
#include "fixtures.h"
#include "unit.h"

/* Every kind of field JSON must type. */
static const char fmt_kinds[] =
	"name: kinds\nID: 10\nformat:\n" FX_COMMON
	"\tfield:int neg;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long big;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:char name[8];\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u16 vals[3];\toffset:32;\tsize:6;\tsigned:0;\n"
	"\tfield:__data_loc char[] msg;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:short s;\toffset:44;\tsize:2;\tsigned:1;\n\n"
	"print fmt: \"neg=%d big=%lu name=%s msg=%s\", REC->neg, REC->big, REC->name, "
	"__get_str(msg)\n";

/* Names a task in its fields: sched_switch (names are learned from it). */
static const char fmt_switch[] =
	"name: sched_switch\nID: 11\nformat:\n" FX_COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", REC->prev_comm, "
	"REC->prev_pid, REC->next_comm, REC->next_pid\n";

/* Conversions the fast printer must render as libtraceevent does. */
static const char fmt_nums[] =
	"name: nums\nID: 12\nformat:\n" FX_COMMON
	"\tfield:int i;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int u;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:long l;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned char c;\toffset:24;\tsize:1;\tsigned:0;\n"
	"\tfield:short h;\toffset:26;\tsize:2;\tsigned:1;\n"
	"\tfield:char s[6];\toffset:28;\tsize:6;\tsigned:0;\n\n"
	"print fmt: \"i=%d %5d %-4d| u=%u %x %X %o %08x l=%ld %lu %lx %lld c=%u %02x h=%hd s=%s "
	"[%-8s] [%4s] i%%\", REC->i, REC->i, REC->i, REC->u, REC->u, REC->u, REC->u, REC->u, "
	"REC->l, REC->l, REC->l, REC->l, REC->c, REC->c, REC->h, REC->s, REC->s, REC->s\n";

/* A comm and a pid of two different tasks: the waiter's name, the waited-for pid. */
static const char fmt_wait[] =
	"name: sched_process_wait\nID: 13\nformat:\n" FX_COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio\n";

static struct tep_handle *make_tep(void)
{
	struct tep_handle *tep = fx_tep("test", fmt_kinds, "sched", fmt_switch, "sched", fmt_wait,
					"test", fmt_nums, NULL);

	CHECK(tep);
	return tep;
}

static void common(uint8_t *d, int id, int pid)
{
	uint16_t t = id;

	memcpy(d, &t, 2);
	memcpy(d + 4, &pid, 4);
}

static struct tfile_event kinds_event(uint8_t *d, int pid, uint64_t ts)
{
	int neg = -5;
	uint64_t big = 18446744073709551615ULL;
	uint16_t vals[3] = { 1, 2, 65535 };
	uint32_t loc = (6u << 16) | 48;
	int16_t sh = -2;

	memset(d, 0, 64);
	common(d, 10, pid);
	memcpy(d + 8, &neg, 4);
	memcpy(d + 16, &big, 8);
	memcpy(d + 24, "a\"b,c", 6);
	memcpy(d + 32, vals, 6);
	memcpy(d + 40, &loc, 4);
	memcpy(d + 44, &sh, 2);
	memcpy(d + 48, "hi\tx\n", 6);
	return (struct tfile_event){ .ts = ts, .data = d, .size = 56, .cpu = 1 };
}

static struct tfile_event switch_event(uint8_t *d, int pid, const char *prev, int prev_pid,
				       const char *next, int next_pid)
{
	memset(d, 0, 48);
	common(d, 11, pid);
	strncpy((char *)d + 8, prev, 16);
	memcpy(d + 24, &prev_pid, 4);
	strncpy((char *)d + 28, next, 16);
	memcpy(d + 44, &next_pid, 4);
	return (struct tfile_event){ .ts = 2000000000, .data = d, .size = 48, .cpu = 0 };
}

/* Run body with a fmt writing to a memory buffer; returns what it wrote. */
static char *capture(struct fmt_opts o, struct tep_handle *tep,
		     void (*body)(struct fmt *, struct fmt_src *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct fmt *fm = fmt_new(f, &o);
	struct fmt_src *s = fmt_src_new(fm, tep);

	body(fm, s);
	CHECK(fmt_flush(fm) == 0);
	fmt_free(fm);
	fclose(f);
	return buf;
}

static void text_body(struct fmt *f, struct fmt_src *s)
{
	uint8_t d[64];
	struct tfile_event ev = kinds_event(d, 100, 1234567891499ULL);

	fmt_src_cmdlines(s, "100 worker\n");
	fmt_event(f, s, "", &ev);
	ev.missed = 12;
	ev.ts = 999;	/* under a second: trace-cmd prints it whole, the kernel as 0.000001 */
	fmt_event(f, s, "inst: ", &ev);
	ev.missed = -1;
	fmt_event(f, s, "", &ev);
}

TEST(text_columns)
{
	struct tep_handle *tep = make_tep();
	char *out = capture((struct fmt_opts){ 0 }, tep, text_body);

	CHECK_STR(out,
		  "          worker-100   [001]  1234.567891: kinds:                neg=-5 "
		  "big=18446744073709551615 name=a\"b,c msg=hi\tx\n"
		  "inst: CPU:1 [LOST 12 EVENTS]\n"
		  "inst:           worker-100   [001]     0.000001: kinds:                neg=-5 "
		  "big=18446744073709551615 name=a\"b,c msg=hi\tx\n"
		  "CPU:1 [LOST EVENTS]\n"
		  "          worker-100   [001]     0.000001: kinds:                neg=-5 "
		  "big=18446744073709551615 name=a\"b,c msg=hi\tx\n");
	free(out);
	/* trace-cmd 3.4's line: the latency flags after the CPU; 3.1's without. */
	out = capture((struct fmt_opts){ .lib = true }, tep, text_body);
	CHECK_STR(out,
		  "          worker-100   [001] .....  1234.567891: kinds:                neg=-5 "
		  "big=18446744073709551615 name=a\"b,c msg=hi\tx\n"
		  "inst: CPU:1 [LOST 12 EVENTS]\n"
		  "inst:           worker-100   [001] .....            1: kinds:                neg=-5 "
		  "big=18446744073709551615 name=a\"b,c msg=hi\tx\n"
		  "CPU:1 [LOST EVENTS]\n"
		  "          worker-100   [001] .....            1: kinds:                neg=-5 "
		  "big=18446744073709551615 name=a\"b,c msg=hi\tx\n");
	free(out);
	out = capture((struct fmt_opts){ .lib = true, .kopts = "noirq-info" }, tep, text_body);
	CHECK_STR(out,
		  "          worker-100   [001]  1234.567891: kinds:                neg=-5 "
		  "big=18446744073709551615 name=a\"b,c msg=hi\tx\n"
		  "inst: CPU:1 [LOST 12 EVENTS]\n"
		  "inst:           worker-100   [001]            1: kinds:                neg=-5 "
		  "big=18446744073709551615 name=a\"b,c msg=hi\tx\n"
		  "CPU:1 [LOST EVENTS]\n"
		  "          worker-100   [001]            1: kinds:                neg=-5 "
		  "big=18446744073709551615 name=a\"b,c msg=hi\tx\n");
	free(out);
	out = capture((struct fmt_opts){ .ns = true }, tep, text_body);
	CHECK(strstr(out, "[001]  1234.567891499: kinds:") != NULL);
	free(out);
	tep_free(tep);
}

static void irq_body(struct fmt *f, struct fmt_src *s)
{
	uint8_t d[64];
	struct tfile_event ev = kinds_event(d, 100, 1234567891499ULL);

	d[2] = 0x01 | 0x04 | 0x20 | 0x08;	/* irqs off, need-resched both ways, hardirq */
	d[3] = 0x23;				/* preempt depth 3, migrate-disable 2 */
	fmt_src_cmdlines(s, "100 worker\n");
	fmt_event(f, s, "", &ev);
}

TEST(irq_info)
{
	struct tep_handle *tep = make_tep();
	char *out = capture((struct fmt_opts){ .irq_info = true }, tep, irq_body);
	char c[6];

	CHECK_STR(out, "          worker-100   [001] dNh32  1234.567891: kinds:                neg=-5 "
		       "big=18446744073709551615 name=a\"b,c msg=hi\tx\n");
	free(out);
	tep_free(tep);
	/* Each column's cases, as trace_print_lat_fmt() has them. */
	fmt_irq_info(0, 0, 0, c);
	CHECK_STR(c, ".....");
	fmt_irq_info(0x81, 0xff, 0, c);
	CHECK_STR(c, "D..ff");
	fmt_irq_info(0x80, 0x10, 0, c);
	CHECK_STR(c, "b...1");
	fmt_irq_info(0x04 | 0x02 | 0x20, 0, 0, c);
	CHECK_STR(c, ".B...");
	fmt_irq_info(0x02 | 0x20, 0, 0, c);
	CHECK_STR(c, ".L...");
	fmt_irq_info(0x04 | 0x02, 0, 0, c);
	CHECK_STR(c, ".b...");
	fmt_irq_info(0x02, 0, 6 << 8 | 13, c);
	CHECK_STR(c, ".l...");
	fmt_irq_info(0x04, 0, 0, c);
	CHECK_STR(c, ".n...");
	fmt_irq_info(0x20, 0, 0, c);
	CHECK_STR(c, ".p...");
	fmt_irq_info(0x40 | 0x08, 0, 0, c);
	CHECK_STR(c, "..Z..");
	fmt_irq_info(0x40, 0, 0, c);
	CHECK_STR(c, "..z..");
	fmt_irq_info(0x08 | 0x10, 0, 0, c);
	CHECK_STR(c, "..H..");
	fmt_irq_info(0x10, 0, 0, c);
	CHECK_STR(c, "..s..");
	/* Before 6.13 bit 0x02 meant "no irq flags" (X), not lazy. */
	fmt_irq_info(0x02 | 0x04, 0, 6 << 8 | 12, c);
	CHECK_STR(c, "Xn...");
	fmt_irq_info(0x02 | 0x01, 0, 6 << 8 | 1, c);
	CHECK_STR(c, "d....");
}

static void json_body(struct fmt *f, struct fmt_src *s)
{
	uint8_t d[64];
	struct tfile_event ev = kinds_event(d, 7, 42);

	fmt_event(f, s, "b1: ", &ev);
	ev.missed = 3;
	fmt_event(f, s, "", &ev);
}

TEST(json_types)
{
	struct tep_handle *tep = make_tep();
	char *out = capture((struct fmt_opts){ .kind = FMT_JSON }, tep, json_body);

	CHECK_STR(out,
		  "{\"ts\":42,\"cpu\":1,\"pid\":7,\"comm\":\"<...>\",\"buffer\":\"b1\","
		  "\"system\":\"test\",\"event\":\"kinds\",\"fields\":{\"neg\":-5,"
		  "\"big\":18446744073709551615,\"name\":\"a\\\"b,c\",\"vals\":[1,2,65535],"
		  "\"msg\":\"hi\\tx\\n\",\"s\":-2}}\n"
		  "{\"cpu\":1,\"lost\":3}\n"
		  "{\"ts\":42,\"cpu\":1,\"pid\":7,\"comm\":\"<...>\",\"system\":\"test\","
		  "\"event\":\"kinds\",\"fields\":{\"neg\":-5,\"big\":18446744073709551615,"
		  "\"name\":\"a\\\"b,c\",\"vals\":[1,2,65535],\"msg\":\"hi\\tx\\n\",\"s\":-2}}\n");
	free(out);
	tep_free(tep);
}

static void csv_body(struct fmt *f, struct fmt_src *s)
{
	uint8_t d[64];
	struct tfile_event ev = kinds_event(d, 0, 1500000000);

	fmt_event(f, s, "", &ev);
}

TEST(csv_quoting)
{
	struct tep_handle *tep = make_tep();
	char *out = capture((struct fmt_opts){ .kind = FMT_CSV }, tep, csv_body);

	CHECK_STR(out, "timestamp,cpu,comm,pid,system,event,info\n"
		       "1.500000000,1,<idle>,0,test,kinds,\"neg=-5 big=18446744073709551615 "
		       "name=a\"\"b,c msg=hi\tx\"\n");
	free(out);
	tep_free(tep);
}

static void comm_body(struct fmt *f, struct fmt_src *s)
{
	uint8_t d[64], k[64];
	struct tfile_event ev;

	(void)f;
	fmt_src_cmdlines(s, "100 saved\n");
	/* A record that teaches nothing, twice (the second is passed over by id). */
	ev = kinds_event(k, 300, 5);
	fmt_src_learn(s, &ev);
	fmt_src_learn(s, &ev);
	CHECK_STR(fmt_src_comm(s, 300), "<...>");
	/* The trace says 100 is "other" and names 200 and 300. */
	ev = switch_event(d, 100, "other", 100, "newbie", 200);
	fmt_src_learn(s, &ev);
	CHECK_STR(fmt_src_comm(s, 200), "newbie");
	CHECK_STR(fmt_src_comm(s, 200), "newbie");	/* asked again: the kept answer */
	ev = switch_event(d, 200, "renamed", 200, "third", 300);
	fmt_src_learn(s, &ev);
	CHECK_STR(fmt_src_comm(s, 100), "saved");	/* saved_cmdlines win */
	CHECK_STR(fmt_src_comm(s, 200), "renamed");	/* the last name seen, not the kept one */
	CHECK_STR(fmt_src_comm(s, 300), "third");
	ev = kinds_event(k, 300, 5);
	fmt_src_learn(s, &ev);
	CHECK_STR(fmt_src_comm(s, 300), "third");
	CHECK_STR(fmt_src_comm(s, 0), "<idle>");
	CHECK_STR(fmt_src_comm(s, 400), "<...>");
	/* sched_process_wait's comm is the waiter's, not pid 400's: not learned. */
	memset(d, 0, 32);
	common(d, 13, 100);
	strcpy((char *)d + 8, "waiter");
	memcpy(d + 24, &(int){ 400 }, 4);
	ev = (struct tfile_event){ .ts = 1, .data = d, .size = 32 };
	fmt_src_learn(s, &ev);
	CHECK_STR(fmt_src_comm(s, 400), "<...>");
	/* A thread takes its process's name through saved_tgids. */
	fmt_src_tgids(s, "401 200\n");
	CHECK_STR(fmt_src_comm(s, 401), "renamed");
	fmt_src_tgids(s, "401 300\n402 402\n");	/* new tgids: the kept answer goes */
	CHECK_STR(fmt_src_comm(s, 401), "third");
	CHECK_STR(fmt_src_comm(s, 402), "<...>");
	/* Read again and again (tr stream does): each text is whole, none counts the last. */
	{
		char big[40 * 16] = "";

		for (int i = 0; i < 40; i++)
			snprintf(big + strlen(big), sizeof(big) - strlen(big), "%d %d\n", 1000 + i, 1000);
		for (int round = 0; round < 4; round++)
			fmt_src_tgids(s, big);
		CHECK(fmt_src_tgid(s, 1039) == 1000);
		CHECK(fmt_src_tgid(s, 1000) == 1000);
		CHECK(fmt_src_tgid(s, 401) == 0);
	}
	ev = kinds_event(k, 300, 5);
	CHECK(fmt_src_event_id(s, &ev) == 10);
	{
		const char *sys, *name = fmt_src_event_name(s, 11, &sys);

		CHECK_STR(name, "sched_switch");
		CHECK_STR(sys, "sched");
		CHECK(fmt_src_event_name(s, 999, &sys) == NULL);
	}
}

TEST(comm_resolution)
{
	struct tep_handle *tep = make_tep();

	free(capture((struct fmt_opts){ 0 }, tep, comm_body));
	tep_free(tep);
}

static void filter_body(struct fmt *f, struct fmt_src *s)
{
	uint8_t d[64], k[64];
	struct tfile_event sw = switch_event(d, 1, "a", 1, "b", 2);
	struct tfile_event kd = kinds_event(k, 1, 5);

	(void)f;
	CHECK(fmt_src_filter(s, "sched_switch: next_pid == 2") == 0);
	CHECK(fmt_src_match(s, &sw));
	CHECK(!fmt_src_match(s, &kd));		/* events no filter names are left out */
	CHECK(fmt_src_filter(s, "sched_switch: next_pid == 3") == 0);
	CHECK(fmt_src_match(s, &sw));		/* any filter of the event may match */
	fmt_src_filter_invert(s, true);
	CHECK(!fmt_src_match(s, &sw));
	CHECK(fmt_src_match(s, &kd));
	CHECK(fmt_src_filter(s, "no_such_event") == -EINVAL);
	CHECK(tr_failure() && strstr(tr_failure(), "bad filter 'no_such_event'"));
	CHECK(fmt_src_filter(s, "my_switch: ((") == -EINVAL);
}

TEST(filters)
{
	struct tep_handle *tep = make_tep();

	free(capture((struct fmt_opts){ 0 }, tep, filter_body));
	tep_free(tep);
}

/* A stream of timestamps from an array, ending at 0. */
struct seq {
	const uint64_t *ts;
	int i, id;
};

static int seq_next(void *ctx, struct tfile_event *ev)
{
	struct seq *s = ctx;

	if (!s->ts[s->i])
		return 0;
	if (s->ts[s->i] == UINT64_MAX)
		return -EBADMSG;
	*ev = (struct tfile_event){ .ts = s->ts[s->i++], .cpu = s->id };
	return 1;
}

TEST(merge_order)
{
	static const uint64_t a[] = { 1, 5, 5, 9, 0 }, b[] = { 2, 5, 8, 0 }, c[] = { 0 },
			      d[] = { 5, 0 }, bad[] = { 3, UINT64_MAX };
	struct seq sa = { a, 0, 0 }, sb = { b, 0, 1 }, sc = { c, 0, 2 }, sd = { d, 0, 3 };
	struct seq sbad = { bad, 0, 9 };
	struct fmt_merge *m = fmt_merge_new();
	struct tfile_event *ev;
	void *tag;
	char out[128] = "";

	CHECK(fmt_merge_add(m, seq_next, &sa, &sa) == 0);
	CHECK(fmt_merge_add(m, seq_next, &sb, &sb) == 0);
	CHECK(fmt_merge_add(m, seq_next, &sc, &sc) == 0);
	CHECK(fmt_merge_add(m, seq_next, &sd, &sd) == 0);
	while (fmt_merge_next(m, &ev, &tag) == 1)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%llu/%d ",
			 (unsigned long long)ev->ts, ev->cpu);
	/* Equal times keep the order the streams were added in. */
	CHECK_STR(out, "1/0 2/1 5/0 5/0 5/1 5/3 8/1 9/0 ");
	fmt_merge_free(m);

	m = fmt_merge_new();
	CHECK(fmt_merge_add(m, seq_next, &sbad, NULL) == 0);
	CHECK(fmt_merge_next(m, &ev, &tag) == 1 && ev->ts == 3);
	CHECK(fmt_merge_next(m, &ev, &tag) == -EBADMSG);
	fmt_merge_free(m);
}

/*
 * The look-ahead of the function_graph printer: the next record of the
 * stream just handed out, which comes out in its turn unless skipped.
 */
TEST(merge_peek_and_skip)
{
	static const uint64_t a[] = { 1, 4, 6, 0 }, b[] = { 2, 3, 0 };
	struct seq sa = { a, 0, 0 }, sb = { b, 0, 1 };
	struct fmt_merge *m = fmt_merge_new();
	struct tfile_event *ev, *next;
	char out[128] = "";

	CHECK(fmt_merge_add(m, seq_next, &sa, NULL) == 0);
	CHECK(fmt_merge_add(m, seq_next, &sb, NULL) == 0);
	CHECK(fmt_merge_peek(m, &next) == 0);	/* nothing handed out yet */
	while (fmt_merge_next(m, &ev, NULL) == 1) {
		uint64_t ts = ev->ts;

		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%llu ",
			 (unsigned long long)ts);
		/* After 1, stream a's next (4) is peeked and left; after 4, 6 is skipped. */
		if (ts == 1) {
			CHECK(fmt_merge_peek(m, &next) == 1 && next->ts == 4);
		} else if (ts == 4) {
			CHECK(fmt_merge_peek(m, &next) == 1 && next->ts == 6);
			fmt_merge_skip(m);
		} else if (ts == 3) {
			/* The end of stream b. */
			CHECK(fmt_merge_peek(m, &next) == 0);
		}
	}
	CHECK_STR(out, "1 2 3 4 ");
	fmt_merge_free(m);
}

/* The fast printer must print exactly what libtraceevent prints. */
TEST(fast_printer_matches_libtraceevent)
{
	struct tep_handle *tep = make_tep();
	struct tep_event *e = tep_find_event(tep, 12);
	struct fmt_prog *p = e ? fmt_prog_compile(tep, e) : NULL;
	static const struct {
		int i;
		unsigned u;
		long l;
		unsigned char c;
		short h;
		const char *s;
	} cases[] = {
		{ 0, 0, 0, 0, 0, "" },
		{ -1, 4294967295u, -1, 255, -1, "abcdef" },
		{ 2147483647, 3735928559u, 9223372036854775807L, 7, 32767, "xy" },
		{ -2147483647 - 1, 1, -9223372036854775807L - 1, 128, -32768, "a b" },
	};

	CHECK(p != NULL);
	for (size_t k = 0; p && k < ARRAY_SIZE(cases); k++) {
		uint8_t d[40] = { 0 };
		struct tep_record rec = { .data = d, .size = 40 };
		struct trace_seq s;
		struct fmt_line out = { 0 };

		common(d, 12, 1);
		memcpy(d + 8, &cases[k].i, 4);
		memcpy(d + 12, &cases[k].u, 4);
		memcpy(d + 16, &cases[k].l, 8);
		d[24] = cases[k].c;
		memcpy(d + 26, &cases[k].h, 2);
		memcpy(d + 28, cases[k].s, strlen(cases[k].s) < 6 ? strlen(cases[k].s) : 6);
		trace_seq_init(&s);
		tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
		CHECK(fmt_prog_run(p, tep, d, 40, &out));
		if (out.len != s.len || memcmp(out.p, s.buffer, s.len)) {
			printf("#   fast '%.*s'\n#   lib  '%.*s'\n", (int)out.len, out.p, (int)s.len,
			       s.buffer);
			CHECK(0);
		}
		trace_seq_destroy(&s);
		free(out.p);
	}
	fmt_prog_free(p);
	/* A print fmt with helpers it does not know is not compiled. */
	{
		static const char hex_fmt[] =
			"name: hexs\nID: 13\nformat:\n" FX_COMMON
			"\tfield:unsigned long f;\toffset:8;\tsize:8;\tsigned:0;\n\n"
			"print fmt: \"f=%s c=%c\", __print_hex(REC->f, 8), REC->f\n";
		struct fmt_prog *q;

		CHECK(tep_parse_event(tep, hex_fmt, strlen(hex_fmt), "test") == 0);
		q = fmt_prog_compile(tep, tep_find_event(tep, 13));
		CHECK(q == NULL);
		fmt_prog_free(q);
	}
	tep_free(tep);
}

/* sched_switch's prev_state: arithmetic, __print_flags, "? :", plus a symbol table. */
static const char fmt_expr[] =
	"name: expr\nID: 14\nformat:\n" FX_COMMON
	"\tfield:long state;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned int mode;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 runtime;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"state=%s%s mode=%s m2=%u rt=%Lu\", "
	"(REC->state & ((((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) - 1)) ? "
	"__print_flags(REC->state & ((((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) - 1), "
	"\"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }) : \"R\", "
	"REC->state & (((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) ? \"+\" : \"\", "
	"__print_symbolic(REC->mode, { 0, \"zero\" }, { 1, \"one\" }, { 7, \"seven\" }), "
	"REC->mode * 2 + 1, (unsigned long long)REC->runtime\n";

TEST(fast_printer_expressions)
{
	struct tep_handle *tep = make_tep();
	struct tep_event *e;
	struct fmt_prog *p;
	static const struct {
		long state;
		unsigned mode;
		bool fast;	/* the fast printer takes it (else libtraceevent must) */
	} cases[] = {
		{ 0, 1, true }, { 1, 7, true }, { 2, 1, true }, { 3, 1, true }, { 8, 1, true },
		/* 4 is a bit the table does not name; 3 a mode it does not. */
		{ 9, 1, true }, { 4, 1, false }, { 5, 0, false }, { 1, 3, false }, { 16, 1, true },
	};

	CHECK(tep_parse_event(tep, fmt_expr, strlen(fmt_expr), "test") == 0);
	e = tep_find_event(tep, 14);
	p = e ? fmt_prog_compile(tep, e) : NULL;
	CHECK(p != NULL);
	for (size_t k = 0; p && k < ARRAY_SIZE(cases); k++) {
		uint8_t d[32] = { 0 };
		uint64_t rt = 123456789012ULL;
		struct tep_record rec = { .data = d, .size = 32 };
		struct trace_seq s;
		struct fmt_line out = { 0 };
		bool fast;

		common(d, 14, 1);
		memcpy(d + 8, &cases[k].state, 8);
		memcpy(d + 16, &cases[k].mode, 4);
		memcpy(d + 24, &rt, 8);
		trace_seq_init(&s);
		tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
		fast = fmt_prog_run(p, tep, d, 32, &out);
		CHECK(fast == cases[k].fast);
		if (fast && (out.len != s.len || memcmp(out.p, s.buffer, s.len))) {
			printf("#   fast '%.*s'\n#   lib  '%.*s'\n", (int)out.len, out.p, (int)s.len,
			       s.buffer);
			CHECK(0);
		}
		trace_seq_destroy(&s);
		free(out.p);
	}
	fmt_prog_free(p);
	tep_free(tep);
}

static void hostile_body(struct fmt *f, struct fmt_src *s)
{
	/* Exactly as long as the record says, so ASan sees any read past it. */
	uint8_t *d = malloc(12);
	uint8_t k[64];
	struct tfile_event ev = kinds_event(k, 5, 1000);
	uint32_t loc = (0xffffu << 16) | 0xfff0;

	memcpy(d, k, 12);
	ev.data = d;
	ev.size = 12;		/* the format has fields up to byte 46 */
	fmt_event(f, s, "", &ev);
	ev.size = 2;		/* not even a pid */
	fmt_event(f, s, "", &ev);
	/* A whole record whose string points far outside it. */
	memcpy(k + 40, &loc, 4);
	ev = (struct tfile_event){ .ts = 1000, .data = k, .size = 56, .cpu = 0 };
	fmt_event(f, s, "", &ev);
	free(d);
}

TEST(hostile_records)
{
	struct tep_handle *tep = make_tep();

	/* Whatever it prints, it must not read outside the records (ASan). */
	for (int kind = FMT_TEXT; kind <= FMT_CSV; kind++)
		free(capture((struct fmt_opts){ .kind = kind }, tep, hostile_body));
	free(capture((struct fmt_opts){ .raw = true }, tep, hostile_body));
	tep_free(tep);
}

/*
 * The funcgraph records of 6.13+ kernels, from their format files as the
 * kernel writes them (kernel/trace/trace_entries.h on x86_64: funcgraph_entry
 * with 6.15's args[] after func and depth; fgraph_retaddr_entry of 6.13 with
 * its retaddr field, and of later kernels with the return address in
 * args[0]; funcgraph_exit with retval).
 */
#define FG_COMMON FX_COMMON
static const char fmt_fg_entry[] =
	"name: funcgraph_entry\nID: 11\nformat:\n" FG_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->depth\n";
static const char fmt_fg_retaddr_613[] =
	"name: fgraph_retaddr_entry\nID: 12\nformat:\n" FG_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long retaddr;\toffset:20;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"--> %ps (%d) <- %ps\", (void *)REC->func, REC->depth, "
	"(void *)REC->retaddr\n";
static const char fmt_fg_retaddr_args[] =
	"name: fgraph_retaddr_entry\nID: 12\nformat:\n" FG_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"--> %ps (%u) <- %ps\", (void *)REC->func, REC->depth, "
	"(void *)REC->args[0]\n";
static const char fmt_fg_exit[] =
	"name: funcgraph_exit\nID: 10\nformat:\n" FG_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"<-- %ps (%d) (start: %llx  end: %llx) over: %d retval: %lx\", "
	"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth, REC->retval\n";

static struct tep_handle *fg_tep(bool later_retaddr)
{
	const char *ra = later_retaddr ? fmt_fg_retaddr_args : fmt_fg_retaddr_613;
	struct tep_handle *tep = fx_tep("ftrace", fmt_fg_entry, "ftrace", ra, "ftrace", fmt_fg_exit,
					NULL);

	CHECK(tep);
	return tep;
}

#define KADDR(lo) (0xffffffff81000000ULL | (lo))

/* An entry: func, depth, then the words that follow (args[], or retaddr at 20). */
static struct tfile_event fg_ent(uint8_t *d, int id, uint64_t func, unsigned depth,
				 const uint64_t *words, int n, bool at20, uint64_t ts)
{
	memset(d, 0, 128);
	common(d, id, 77);
	memcpy(d + 8, &func, 8);
	memcpy(d + 16, &depth, 4);
	memcpy(d + (at20 ? 20 : 24), words, n * 8);
	return (struct tfile_event){ .ts = ts, .data = d, .size = (at20 ? 20 : 24) + n * 8,
				     .cpu = 0 };
}

static struct tfile_event fg_exit(uint8_t *d, uint64_t func, int depth, uint64_t retval,
				  uint64_t ts)
{
	uint64_t call = 1000, ret = 1000 + 2500;

	memset(d, 0, 48);
	common(d, 10, 77);
	memcpy(d + 8, &func, 8);
	memcpy(d + 16, &retval, 8);
	memcpy(d + 24, &depth, 4);
	memcpy(d + 32, &call, 8);
	memcpy(d + 40, &ret, 8);
	return (struct tfile_event){ .ts = ts, .data = d, .size = 48, .cpu = 0 };
}

static const char *fg_release = "6.15.0";

static void fg_body(struct fmt *f, struct fmt_src *s)
{
	uint8_t d[128];
	static const uint64_t args[6] = { 3, 0xffff888100a0b000ULL, 0x80, 0, 0, 0 };
	uint64_t w[7] = { KADDR(0x31c) };
	bool later = !strcmp(fg_release, "6.18.0");
	struct tfile_event ev;

	fmt_src_kernel(s, fg_release);
	fmt_src_kallsyms(s, "ffffffff81000100 T vfs_read\nffffffff81000200 T ksys_read\n"
			    "ffffffff81000300 T x64_sys_call\nffffffff81000400 T _etext\n");
	fmt_src_graph_opts(s, "funcgraph-retaddr\nfuncgraph-retval\nfuncgraph-args\n");
	memcpy(w + 1, args, sizeof(args));
	/* retaddr entry: 6.13's field at 20, or a later one's args[0] (and the args after it) */
	ev = later ? fg_ent(d, 12, KADDR(0x200), 0, w, 7, false, 1000)
		   : fg_ent(d, 12, KADDR(0x200), 0, w, 1, true, 1000);
	fmt_event(f, s, "", &ev);
	/* funcgraph-args: all six words there; a shorter record has none */
	ev = fg_ent(d, 11, KADDR(0x100), 1, args, 6, false, 2000);
	fmt_event(f, s, "", &ev);
	ev = fg_ent(d, 11, KADDR(0x100), 2, args, 0, false, 2500);
	fmt_event(f, s, "", &ev);
	ev = fg_exit(d, KADDR(0x100), 2, 0xfffffff2, 3000);
	fmt_event(f, s, "", &ev);
	ev = fg_exit(d, KADDR(0x100), 1, 0x340, 3500);
	fmt_event(f, s, "", &ev);
}

/*
 * As trace_functions_graph.c prints them: print_graph_entry_nested()
 * writes the arguments (print_function_args(); tr, without the kernel's
 * BTF, writes the values plain) and the caller after the brace
 * (print_graph_retaddr(): a comment " <-%pS"); print_graph_retval() writes
 * "ret=" since 6.13, "= " before.
 */
TEST(graph_args_and_retaddr)
{
	struct fmt_opts o = { .kind = FMT_TEXT, .graph = true };
	struct tep_handle *tep = fg_tep(false);

	fg_release = "6.15.0";
	CHECK_OWNED(capture(o, tep, fg_body),
		    " 0)               |  ksys_read() { /* <-x64_sys_call+0x1c/0x100 */\n"
		    " 0)               |    vfs_read(0x3, 0xffff888100a0b000, 0x80, 0x0, 0x0, 0x0) {\n"
		    " 0)               |      vfs_read() {\n"
		    " 0)   2.500 us    |      } /* vfs_read ret=-14 */\n"
		    " 0)   2.500 us    |    } /* vfs_read ret=0x340 */\n");
	o.graph_opts = "noretaddr,noretval";
	CHECK_OWNED(capture(o, tep, fg_body),
		    " 0)               |  ksys_read() {\n"
		    " 0)               |    vfs_read(0x3, 0xffff888100a0b000, 0x80, 0x0, 0x0, 0x0) {\n"
		    " 0)               |      vfs_read() {\n"
		    " 0)   2.500 us    |      }\n"
		    " 0)   2.500 us    |    }\n");
	tep_free(tep);
	/* A later kernel: the return address in args[0], the arguments after it. */
	tep = fg_tep(true);
	fg_release = "6.18.0";
	o.graph_opts = NULL;
	CHECK_OWNED(capture(o, tep, fg_body),
		    " 0)               |  ksys_read(0x3, 0xffff888100a0b000, 0x80, 0x0, 0x0, 0x0) {"
		    " /* <-x64_sys_call+0x1c/0x100 */\n"
		    " 0)               |    vfs_read(0x3, 0xffff888100a0b000, 0x80, 0x0, 0x0, 0x0) {\n"
		    " 0)               |      vfs_read() {\n"
		    " 0)   2.500 us    |      } /* vfs_read ret=-14 */\n"
		    " 0)   2.500 us    |    } /* vfs_read ret=0x340 */\n");
	tep_free(tep);
}

UNIT_MAIN(T(text_columns), T(irq_info), T(json_types), T(csv_quoting), T(comm_resolution), T(filters),
	  T(merge_order), T(merge_peek_and_skip), T(fast_printer_matches_libtraceevent), T(fast_printer_expressions),
	  T(hostile_records), T(graph_args_and_retaddr))
