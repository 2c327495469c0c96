// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's trace options that change its trace file's lines (raw, hex,
 * bin, context-info, record-tgid, latency-format, verbose, fields,
 * printk-msg-only) on records built here; each expected text is what a
 * 6.18 kernel's trace file printed for the same record under the option
 * (tests/integration/t1109-report-kopts.sh compares with a live kernel).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-local.h"
#include "fixtures.h"
#include "unit.h"

static const char fmt_kinds[] =
	"name: kinds\nID: 10\nformat:\n" FX_COMMON
	"\tfield:int neg;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long big;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:char name[8];\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u16 vals[3];\toffset:32;\tsize:6;\tsigned:0;\n"
	"\tfield:__data_loc char[] msg;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:short s;\toffset:44;\tsize:2;\tsigned:1;\n"
	"\tfield:bool b;\toffset:46;\tsize:1;\tsigned:0;\n"
	"\tfield:char c;\toffset:47;\tsize:1;\tsigned:1;\n\n"
	"print fmt: \"neg=%d name=%s msg=%s\", REC->neg, REC->name, __get_str(msg)\n";

/* The function tracer's record (events/ftrace/function/format). */
static const char fmt_function[] =
	"name: function\nID: 1\nformat:\n" FX_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n";

static struct tep_handle *make_tep(void)
{
	struct tep_handle *tep = fx_tep("test", fmt_kinds, "ftrace", fmt_function, "ftrace", fx_print,
					NULL);

	CHECK(tep);
	return tep;
}

static uint8_t rec[2][64], frec[24], prec[40];

static struct tfile_event kinds_event(uint8_t *d, uint64_t ts)
{
	int neg = -5, pid = 100;
	uint64_t big = 18446744073709551615ULL;
	uint32_t loc = (6u << 16) | 48;
	int16_t sh = -2;
	uint16_t t = 10;

	memset(d, 0, 64);
	memcpy(d, &t, 2);
	memcpy(d + 4, &pid, 4);
	memcpy(d + 8, &neg, 4);
	memcpy(d + 16, &big, 8);
	memcpy(d + 24, "nm", 3);
	memcpy(d + 40, &loc, 4);
	memcpy(d + 44, &sh, 2);
	d[46] = 1;
	d[47] = 'x';
	memcpy(d + 48, "hi\tx\n", 6);
	return (struct tfile_event){ .ts = ts, .data = d, .size = 56, .cpu = 1 };
}

static void body(struct fmt *f, struct fmt_src *s, const char *opts)
{
	struct tfile_event a = kinds_event(rec[0], 1234567891499ULL);
	struct tfile_event b = kinds_event(rec[1], 1234568091499ULL);
	uint64_t ip = 0xffffffff81000010ULL, parent = 0xffffffff81000020ULL;
	uint16_t t;
	int pid = 100;

	fmt_src_graph_opts(s, opts);
	fmt_src_cmdlines(s, "100 worker\n");
	fmt_src_tgids(s, "100 90\n");
	fmt_event(f, s, "", &a);
	rec[1][2] = 0x01;	/* irqs off */
	fmt_event(f, s, "", &b);
	memset(frec, 0, sizeof(frec));
	t = 1;
	memcpy(frec, &t, 2);
	memcpy(frec + 4, &pid, 4);
	memcpy(frec + 8, &ip, 8);
	memcpy(frec + 16, &parent, 8);
	fmt_event(f, s, "", &(struct tfile_event){ .ts = 1234568091500ULL, .data = frec,
						 .size = 24, .cpu = 0 });
	memset(prec, 0, sizeof(prec));
	t = 5;
	memcpy(prec, &t, 2);
	memcpy(prec + 4, &pid, 4);
	memcpy(prec + 8, &ip, 8);
	memcpy(prec + 16, "hello mark\n", 12);
	fmt_event(f, s, "", &(struct tfile_event){ .ts = 1234568091501ULL, .data = prec,
						 .size = 28, .cpu = 0 });
}

static const char *cur_opts;

static void run_body(struct fmt *f, struct fmt_src *s)
{
	body(f, s, cur_opts);
}

/* The kernel the "file" came from (its uname release); NULL: not known. */
static const char *cur_release;

/* The text under the options the "file" stored (opts) and those of the user (o.kopts). */
static char *capture(struct fmt_opts o, struct tep_handle *tep, const char *opts, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	struct fmt *fm = fmt_new(fp, &o);
	struct fmt_src *s = fmt_src_new(fm, tep);

	cur_opts = opts;
	if (cur_release)
		fmt_src_kernel(s, cur_release);
	run_body(fm, s);
	CHECK(fmt_flush(fm) == 0);
	fmt_free(fm);
	fclose(fp);
	return buf;
}

static char *text(const char *opts)
{
	struct tep_handle *tep = make_tep();
	size_t len;
	char *out = capture((struct fmt_opts){ 0 }, tep, opts, &len);

	tep_free(tep);
	return out;
}

TEST(raw_hex)
{
	char *out = text("raw\nirq-info");

	CHECK_STR(out, "100 1 1234567891499 type: 10\n"
		       "100 1 1234568091499 type: 10\n"
		       "100 0 1234568091500 ffffffff81000010 ffffffff81000020\n"
		       "100 0 1234568091501 # ffffffff81000010 hello mark\n");
	free(out);
	out = text("hex");
	CHECK_STR(out, "00000064 00000001 0000011f71fb0a2b type: 10\n\n"
		       "00000064 00000001 0000011f71fe176b type: 10\n\n"
		       "00000064 00000000 0000011f71fe176c ffffffff81000010 ffffffff81000020 \n"
		       "00000064 00000000 0000011f71fe176d type: 5\n\n");
	free(out);
	/* hex wins over raw, as in print_trace_line(); no context: the event part alone. */
	out = text("raw\nhex\nnocontext-info");
	CHECK_STR(out, "type: 10\n\ntype: 10\n\nffffffff81000010 ffffffff81000020 \ntype: 5\n\n");
	free(out);
}

TEST(bin)
{
	struct tep_handle *tep = make_tep();
	size_t len;
	char *out = capture((struct fmt_opts){ 0 }, tep, "bin", &len);
	uint64_t ts;
	int v;

	/* pid, cpu, ts in the machine's bytes, then "type: N\n" or the function's two words. */
	CHECK(len == 2 * (16 + 9) + 16 + 16 + 16 + 8);
	memcpy(&v, out, 4);
	CHECK(v == 100);
	memcpy(&v, out + 4, 4);
	CHECK(v == 1);
	memcpy(&ts, out + 8, 8);
	CHECK(ts == 1234567891499ULL);
	CHECK(!memcmp(out + 16, "type: 10\n", 9));
	CHECK(!memcmp(out + 50 + 16, "\x10\x00\x00\x81\xff\xff\xff\xff", 8) || tep_is_bigendian());
	CHECK(!memcmp(out + len - 8, "type: 5\n", 8));
	free(out);
	tep_free(tep);
}

TEST(context_tgid_fields_msg_only)
{
	char *out = text("nocontext-info");

	CHECK_STR(out, "kinds: neg=-5 name=nm msg=hi\tx\n"
		       "kinds: neg=-5 name=nm msg=hi\tx\n"
		       "function:  0xffffffff81000010 <-- 0xffffffff81000020\n"
		       "print: 0xffffffff81000010: hello mark\n");
	free(out);
	out = text("record-tgid\nirq-info\nprintk-msg-only");
	CHECK_STR(out, "          worker-100     (     90) [001] .....  1234.567891: kinds: neg=-5 "
		       "name=nm msg=hi\tx\n"
		       "          worker-100     (     90) [001] d....  1234.568091: kinds: neg=-5 "
		       "name=nm msg=hi\tx\n"
		       "          worker-100     (     90) [000] .....  1234.568092: function:  "
		       "0xffffffff81000010 <-- 0xffffffff81000020\n"
		       "hello mark\n");
	free(out);
	/* print_fields(): by filter type; the kernel's own ftrace events are "UNKNOWN TYPE". */
	cur_release = "6.18.44";
	out = text("fields\nnocontext-info");
	CHECK_STR(out, "kinds: neg=0xfffffffb (-5) big=0xffffffffffffffff (-1) name=nm "
		       "vals=<INVALID-SIZE> msg=hi\tx\n s=0xfffe (65534) b=(1) c='x'(120)\n"
		       "kinds: neg=0xfffffffb (-5) big=0xffffffffffffffff (-1) name=nm "
		       "vals=<INVALID-SIZE> msg=hi\tx\n s=0xfffe (65534) b=(1) c='x'(120)\n"
		       "UNKNOWN TYPE 1\nUNKNOWN TYPE 5\n");
	free(out);
	/* Since 6.19 a string with a byte that is not printable ASCII: dots, then hex. */
	cur_release = "7.3.4";
	out = text("fields\nnocontext-info");
	CHECK(strstr(out, " msg=hi.x.. (68:69:09:78:0a:00) s=0xfffe") != NULL);
	free(out);
	cur_release = NULL;
}

/* A timer record (events/timer/timer_start's shape) for the fields option's %pS. */
static const char fmt_timer[] =
	"name: timer_start\nID: 20\nformat:\n" FX_COMMON
	"\tfield:void * timer;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"timer=%p function=%ps\", REC->timer, REC->function\n";

/* The fields text of one timer_start record under these kallsyms and this kernel. */
static char *timer_fields(const char *kallsyms, const char *release)
{
	struct tep_handle *tep = fx_tep_new();
	uint8_t d[24] = { 0 };
	uint64_t timer = 0xffffffff82000010ULL, fn = 0xffffffff81000100ULL;
	uint16_t t = 20;
	char *buf = NULL;
	size_t len;
	FILE *fp = open_memstream(&buf, &len);
	struct fmt *fm = fmt_new(fp, &(struct fmt_opts){ 0 });
	struct fmt_src *s;

	CHECK(tep_parse_event(tep, fmt_timer, strlen(fmt_timer), "timer") == 0);
	s = fmt_src_new(fm, tep);
	fmt_src_kernel(s, release);
	fmt_src_kallsyms(s, kallsyms);
	fmt_src_graph_opts(s, "fields\nnocontext-info");
	memcpy(d, &t, 2);
	memcpy(d + 8, &timer, 8);
	memcpy(d + 16, &fn, 8);
	fmt_event(fm, s, "", &(struct tfile_event){ .ts = 1, .data = d, .size = 24, .cpu = 0 });
	CHECK(fmt_flush(fm) == 0);
	fmt_free(fm);
	fclose(fp);
	tep_free(tep);
	return buf;
}

/*
 * Since 6.16 the kernel prints a pointer-sized field through %pS: a
 * function by name; an address in the kernel's data (a static timer) by
 * name only where kallsyms lists data (CONFIG_KALLSYMS_ALL), else bare, as
 * its kallsyms_lookup() names nothing outside the text then.  Before 6.16,
 * hex.
 */
TEST(fields_pointer_sized_symbols)
{
	static const char text_only[] = "ffffffff81000000 T _stext\n"
					"ffffffff81000100 T hrtimer_wakeup\n"
					"ffffffff81000200 T _etext\n"
					"ffffffff82000000 D __start_rodata\n"
					"ffffffff82001000 R __stop_runtime_ptr\n";
	static const char with_data[] = "ffffffff81000000 T _stext\n"
					"ffffffff81000100 T hrtimer_wakeup\n"
					"ffffffff81000200 T _etext\n"
					"ffffffff82000000 D __start_rodata\n"
					"ffffffff82000008 d static_timer\n"
					"ffffffff82001000 R __stop_runtime_ptr\n";
	char *out = timer_fields(text_only, "6.18.0");

	CHECK_STR(out, "timer_start: timer=0xffffffff82000010 (-2113929200) "
		       "function=hrtimer_wakeup+0x0/0x100 (-2130706176)\n");
	free(out);
	out = timer_fields(with_data, "6.18.0");
	CHECK_STR(out, "timer_start: timer=static_timer+0x8/0xff8 (-2113929200) "
		       "function=hrtimer_wakeup+0x0/0x100 (-2130706176)\n");
	free(out);
	out = timer_fields(with_data, "6.15.0");
	CHECK_STR(out, "timer_start: timer=0xffffffff82000010 (-2113929200) "
		       "function=0xffffffff81000100 (-2130706176)\n");
	free(out);
}

TEST(latency_format)
{
	char *out = text("latency-format");

	/* The time since the next record decides the mark: 200 us is '!'. */
	CHECK_STR(out, "  worker-100       1..... 1234567891us!: kinds: neg=-5 name=nm msg=hi\tx\n"
		       "  worker-100       1d.... 1234568091us : kinds: neg=-5 name=nm msg=hi\tx\n"
		       "  worker-100       0..... 1234568092us : function:  0xffffffff81000010 <-- "
		       "0xffffffff81000020\n"
		       "  worker-100       0..... 1234568092us : print: 0xffffffff81000010: "
		       "hello mark\n");
	free(out);
	out = text("latency-format\nverbose");
	CHECK_STR(out, "          worker     100   1 0 00000000 00000000 [499602d3] "
		       "1234567.891ms (+0.200ms): kinds: neg=-5 name=nm msg=hi\tx\n"
		       "          worker     100   1 1 00000000 00000001 [4996039b] "
		       "1234568.091ms (+0.000ms): kinds: neg=-5 name=nm msg=hi\tx\n"
		       "          worker     100   0 0 00000000 00000002 [4996039c] "
		       "1234568.092ms (+0.000ms): function:  0xffffffff81000010 <-- "
		       "0xffffffff81000020\n"
		       "          worker     100   0 0 00000000 00000003 [4996039c] "
		       "1234568.092ms (+0.000ms): print: 0xffffffff81000010: hello mark\n");
	free(out);
}

TEST(options_and_header)
{
	struct fmt_kopts o;
	struct fmt_line l = { 0 };
	char bad[32], why[512];

	fmt_kopts_default(&o);
	CHECK(o.context && o.printk && !o.irq && !o.raw);
	CHECK(fmt_kopts_word(&o, "noirq-info", 10) == 1 && !o.irq && o.irq_said);
	CHECK(fmt_kopts_word(&o, "tracer:nop", 10) == 1 && !strcmp(o.tracer, "nop"));
	CHECK(fmt_kopts_word(&o, "funcgraph-cpu", 13) == 0);
	CHECK(fmt_kopts_check("raw,nocontext-info fields", bad, sizeof(bad)) == 0);
	CHECK(fmt_kopts_check("raw,bogus", bad, sizeof(bad)) < 0 && !strcmp(bad, "bogus"));
	CHECK(fmt_kopts_check("tracer:nop", bad, sizeof(bad)) < 0);
	fmt_kopts_missing(&o, why, sizeof(why));
	CHECK_STR(why, "");
	o.userstack = o.userobj = true;
	fmt_kopts_missing(&o, why, sizeof(why));
	CHECK(!strncmp(why, "sym-userobj (", 13));

	/* The 6.18 kernel's own header text for each legend. */
	fmt_kopts_default(&o);
	o.irq = true;
	fmt_kheader(&l, &o, "6.18.0", 4, 7, 2);
	fmt_line_printf(&l, "%c", 0);
	CHECK_STR(l.p, "# tracer: nop\n#\n"
		       "# entries-in-buffer/entries-written: 4/7   #P:2\n#\n"
		       "#                                _-----=> irqs-off/BH-disabled\n"
		       "#                               / _----=> need-resched\n"
		       "#                              | / _---=> hardirq/softirq\n"
		       "#                              || / _--=> preempt-depth\n"
		       "#                              ||| / _-=> migrate-disable\n"
		       "#                              |||| /     delay\n"
		       "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		       "#              | |         |   |||||     |         |\n");
	l.len = 0;
	o.tgid = true;
	fmt_kheader(&l, &o, "6.18.0", 4, 4, 2);
	fmt_line_printf(&l, "%c", 0);
	CHECK(strstr(l.p, "#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
			  "#              | |           |       |   |||||     |         |\n"));
	CHECK(strstr(l.p, "\n#                                          _-----=> irqs-off"));
	l.len = 0;
	o.irq = false;
	fmt_kheader(&l, &o, "6.18.0", 4, 4, 2);
	fmt_line_printf(&l, "%c", 0);
	CHECK(strstr(l.p, "#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n"
			  "#              | |           |       |         |         |\n"));
	l.len = 0;
	o.tgid = false;
	fmt_kheader(&l, &o, "6.18.0", 4, 4, 2);
	fmt_line_printf(&l, "%c", 0);
	CHECK(strstr(l.p, "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
			  "#              | |         |         |         |\n"));
	l.len = 0;
	o.context = false;
	fmt_kheader(&l, &o, "6.18.0", 4, 4, 2);
	fmt_line_printf(&l, "%c", 0);
	CHECK_STR(l.p, "# tracer: nop\n#\n");
	l.len = 0;
	o.context = o.lat = true;
	fmt_kheader(&l, &o, "6.18.0", 4, 4, 2);
	fmt_line_printf(&l, "%c", 0);
	CHECK(!strncmp(l.p, "# tracer: nop\n#\n# nop latency trace v1.1.5 on 6.18.0\n", 51));
	CHECK(strstr(l.p, "#  cmd     pid     |||||| time  |   caller     \n"));
	free(l.p);
}

UNIT_MAIN(T(raw_hex), T(bin), T(context_tgid_fields_msg_only), T(latency_format),
	  T(options_and_header), T(fields_pointer_sized_symbols))
