// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's printer on records built here, one print-fmt construct at a
 * time: each expected string is what the kernel's trace file prints for
 * that record (its vsnprintf, its helpers, its output functions).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-kernel.h"
#include "fmt-kernel-local.h"	/* what a program compiled to: quick, memo, fast */
#include "fixtures.h"
#include "unit.h"

/*
 * libtraceevent 1.7.1 leaks a little when it refuses a format (maple_tree's,
 * kvm's below): not ours, as tests/lsan.supp says for the other tiers.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

/* ---- a kernel to print for: symbols, constants, strings ---- */

static const struct {
	uint64_t addr;
	const char *name, *mod;
} syms[] = {
	{ 0xffffffff81000000ULL, "_text", NULL },
	{ 0xffffffff81234560ULL, "getname_flags.part.0", NULL },
	{ 0xffffffff81234750ULL, "user_path_at", NULL },
	{ 0xffffffff81300000ULL, "tracing_mark_write", NULL },
	{ 0xffffffff81300200ULL, "vfs_read", NULL },
	{ 0xffffffff81300300ULL, "ksys_read", NULL },
	{ 0xffffffff81300400ULL, "arch_rethook_trampoline", NULL },
	{ 0xffffffff81300480ULL, "end_of_text", NULL },
	{ 0xffffffffc0001000ULL, "ext4_foo", "ext4" },
	{ 0xffffffffc0001040ULL, "ext4_bar", "ext4" },
};

static bool stub_sym(void *ctx, uint64_t addr, const char **name, uint64_t *start, uint64_t *size,
		     const char **mod)
{
	(void)ctx;
	for (size_t i = 0; i + 1 < sizeof(syms) / sizeof(syms[0]); i++)
		if (addr >= syms[i].addr && addr < syms[i + 1].addr) {
			*name = syms[i].name;
			*start = syms[i].addr;
			*size = syms[i + 1].addr - syms[i].addr;
			*mod = syms[i].mod;
			return true;
		}
	return false;
}

static bool stub_const(void *ctx, const char *name, uint64_t *v)
{
	(void)ctx;
	if (!strcmp(name, "HRTIMER_MODE_ABS"))
		return *v = 0, true;
	if (!strcmp(name, "HRTIMER_MODE_REL_HARD"))
		return *v = 9, true;
	return false;
}

static const char *stub_string(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == 0xffffffff82521880ULL ? "mt_find" : NULL;
}

static struct kenv env = {
	.long_size = 8, .hz = 250, .vmemmap = 0xffffea0000000000ULL, .page_struct = 64,
	.sym = stub_sym, .constant = stub_const, .string = stub_string,
};

/* ---- records ---- */

struct rec {
	uint8_t d[512];
	uint32_t size;
};

static void put(struct rec *r, int off, uint64_t v, int size)
{
	memcpy(r->d + off, &v, size);	/* little-endian hosts, as the tests run */
	if ((uint32_t)(off + size) > r->size)
		r->size = off + size;
}

static void put_bytes(struct rec *r, int off, const void *p, int n)
{
	memcpy(r->d + off, p, n);
	if ((uint32_t)(off + n) > r->size)
		r->size = off + n;
}

/* A __data_loc field at off pointing at data appended at the record's end. */
static void put_dyn(struct rec *r, int off, const void *p, int n)
{
	uint32_t at = (r->size + 3) & ~3u;

	if (at < 64)
		at = 64;
	put(r, off, (uint64_t)n << 16 | at, 4);
	put_bytes(r, at, p, n);
}

/* The records' timestamp (ns). */
static uint64_t rec_ts = 2000000000ULL;

/*
 * Print rec with the event described by text (parsed in system sys):
 * the output, or "FAIL" when the printer gives the record up.
 */
static char *print_ret(const char *sys, const char *text, struct rec *r, int *ret)
{
	struct tep_handle *tep = fx_tep_new();
	struct tep_event *e;
	struct kprog *p;
	struct fmt_line out = { 0 };
	char *s;
	int rc;

	if (tep_parse_event(tep, text, strlen(text), sys)) {
		/* libtraceevent cannot parse all formats: the printer does not need it to. */
	}
	e = tep_get_first_event(tep);
	if (!e) {
		tep_free(tep);
		return strdup("NO EVENT");
	}
	put(r, 0, e->id, 2);
	if (r->size < 8)
		r->size = 8;
	env.tep = tep;
	p = kprog_compile(&env, e, text);
	if (!p) {
		tep_free(tep);
		return strdup("NO PROG");
	}
	rc = kprog_run(p, &env, &(struct krec){ r->d, r->size, rec_ts, rec_ts }, &out);
	if (ret)
		*ret = rc;
	if (rc == KPROG_FAIL)
		s = strdup("FAIL");
	else
		s = strndup(out.p ? out.p : "", out.len);
	free(out.p);
	kprog_free(p);
	tep_free(tep);
	return s;
}

static char *print(const char *text, struct rec *r)
{
	return print_ret("test", text, r, NULL);
}

/* ---- numbers ---- */

static const char fmt_nums[] =
	"name: nums\nID: 100\nformat:\n" FX_COMMON
	"\tfield:int i;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int u;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:long l;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:u8 c;\toffset:24;\tsize:1;\tsigned:0;\n"
	"\tfield:short h;\toffset:26;\tsize:2;\tsigned:1;\n"
	"\tfield:s8 sc;\toffset:28;\tsize:1;\tsigned:1;\n"
	"\tfield:char ch;\toffset:29;\tsize:1;\tsigned:1;\n"
	"\tfield:unsigned long z;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"d=%d u=%u x=%x X=%X o=%o hx=%#x hx0=%#x o0=%#o w=%5d|%-5d|%05d p=%+d "
	"s=% d prec=%.3d p0=%.0d z=%zu ll=%llx hh=%hhu h=%hd c=%c neg_u=%u sc=%d lu=%lu "
	"xx=%#08x %%\", REC->i, REC->u, REC->u, REC->u, REC->c, REC->c, REC->z, REC->z, REC->i, "
	"REC->i, REC->i, REC->c, REC->c, REC->h, REC->z, REC->l, REC->l, REC->i, REC->u, REC->ch, "
	"REC->i, REC->sc, (unsigned long)REC->i, REC->c\n";

TEST(numbers)
{
	struct rec r = { 0 };

	put(&r, 8, (uint32_t)-5, 4);
	put(&r, 12, 0xdeadbeef, 4);
	put(&r, 16, (uint64_t)-2, 8);
	put(&r, 24, 200, 1);
	put(&r, 26, (uint16_t)-3, 2);
	put(&r, 28, 0xff, 1);
	put(&r, 29, 'A', 1);
	put(&r, 32, 0, 8);
	CHECK_OWNED(print(fmt_nums, &r),
		    "d=-5 u=3735928559 x=deadbeef X=DEADBEEF o=310 hx=0xc8 hx0=0x0 o0=0 "
		    "w=   -5|-5   |-0005 p=+200 s= 200 prec=-003 p0=0 z=18446744073709551614 "
		    "ll=fffffffffffffffe hh=251 h=-16657 c=A neg_u=4294967291 sc=-1 "
		    "lu=18446744073709551611 xx=0x0000c8 %");
}

TEST(kernel_number_rules)
{
	char b[64];

	/* The kernel's number(): "0x0", "0", at least one digit even with .0. */
	CHECK(kfmt_number(b, sizeof(b), "%#x", 0) == 3 && !strcmp(b, "0x0"));
	CHECK(kfmt_number(b, sizeof(b), "%#o", 0) == 1 && !strcmp(b, "0"));
	CHECK(kfmt_number(b, sizeof(b), "%#o", 8) == 3 && !strcmp(b, "010"));
	CHECK(kfmt_number(b, sizeof(b), "%.0d", 0) == 1 && !strcmp(b, "0"));
	CHECK(kfmt_number(b, sizeof(b), "%#06x", 0x1f) == 6 && !strcmp(b, "0x001f"));
	CHECK(kfmt_number(b, sizeof(b), "%-#6x", 0x1f) == 6 && !strcmp(b, "0x1f  "));
	/* Unlike C's printf, '0' still pads when there is a precision. */
	CHECK(kfmt_number(b, sizeof(b), "%08.3d", 7) == 8 && !strcmp(b, "00000007"));
	CHECK(kfmt_number(b, sizeof(b), "%lld", (uint64_t)INT64_MIN) > 0 &&
	      !strcmp(b, "-9223372036854775808"));
	CHECK(kfmt_number(b, sizeof(b), "%p", 0xffff888100dc0000ULL) > 0 &&
	      !strcmp(b, "ffff888100dc0000"));
	CHECK(kfmt_number(b, sizeof(b), "%p", 0) > 0 && !strcmp(b, "0000000000000000"));
}

/* ---- strings ---- */

static const char fmt_strs[] =
	"name: strs\nID: 101\nformat:\n" FX_COMMON
	"\tfield:char comm[8];\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] msg;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:const char * ks;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * nul;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"comm=%s [%-6s] [%6s] [%.2s] msg=%s ks=%s nul=%s star=%.*s tab\\tq\\\"\", "
	"REC->comm, REC->comm, REC->comm, REC->comm, __get_str(msg), REC->ks, REC->nul, 3, "
	"__get_str(msg)\n";

TEST(strings)
{
	struct rec r = { 0 };

	put_bytes(&r, 8, "abc", 4);
	put(&r, 24, 0xffffffff82521880ULL, 8);
	put(&r, 32, 0, 8);
	put_dyn(&r, 16, "hello", 6);
	CHECK_OWNED(print(fmt_strs, &r),
		    "comm=abc [abc   ] [   abc] [ab] msg=hello ks=mt_find nul=(null) star=hel "
		    "tab\tq\"");
	/* A kernel string printk_formats does not hold: not ours to print. */
	put(&r, 24, 0xffffffff82521888ULL, 8);
	CHECK_OWNED(print(fmt_strs, &r), "FAIL");
	/* A string whose __data_loc points outside the record. */
	put(&r, 24, 0xffffffff82521880ULL, 8);
	put(&r, 16, (uint64_t)6 << 16 | 400, 4);
	CHECK_OWNED(print(fmt_strs, &r), "FAIL");
}

/* ---- pointers and symbols ---- */

static const char fmt_ptrs[] =
	"name: ptrs\nID: 102\nformat:\n" FX_COMMON
	"\tfield:void * ptr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:void * z;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ret;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long mod;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long nosym;\toffset:48;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long st;\toffset:56;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"p=%p z=%p px=%px pK=%pK S=%pS s=%ps B=%pB B0=%pB S0=%pS m=%pS ms=%ps "
	"n=%pS ns=%ps\", REC->ptr, REC->z, REC->ptr, REC->ptr, (void *)REC->ip, (void *)REC->ip, "
	"(void *)REC->ret, (void *)REC->st, (void *)REC->st, (void *)REC->mod, (void *)REC->mod, "
	"(void *)REC->nosym, (void *)REC->nosym\n";

TEST(pointers_and_symbols)
{
	struct rec r = { 0 };

	put(&r, 8, 0xffff888100dc0000ULL, 8);
	put(&r, 16, 0, 8);
	put(&r, 24, 0xffffffff81234560ULL + 0x24, 8);
	/* A return address just past a function's end: %pB says which function. */
	put(&r, 32, 0xffffffff81234750ULL, 8);
	put(&r, 40, 0xffffffffc0001008ULL, 8);
	put(&r, 48, 0xffffffff80000000ULL, 8);
	put(&r, 56, 0xffffffff81234560ULL, 8);
	CHECK_OWNED(print(fmt_ptrs, &r),
		    "p=ffff888100dc0000 z=0000000000000000 px=ffff888100dc0000 "
		    "pK=ffff888100dc0000 S=getname_flags.part.0+0x24/0x1f0 "
		    "s=getname_flags.part.0 B=getname_flags.part.0+0x1f0/0x1f0 "
		    "B0=_text+0x234560/0x234560 S0=getname_flags.part.0+0x0/0x1f0 "
		    "m=ext4_foo+0x8/0x40 [ext4] ms=ext4_foo [ext4] n=0xffffffff80000000 "
		    "ns=0xffffffff80000000");
}

/* ---- network addresses, uuids, macs ---- */

static const char fmt_net[] =
	"name: net\nID: 103\nformat:\n" FX_COMMON
	"\tfield:__u8 saddr[4];\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__u8 v6[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:__u8 mapped[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:__u8 sa4[28];\toffset:44;\tsize:28;\tsigned:0;\n"
	"\tfield:__u8 sa6[28];\toffset:72;\tsize:28;\tsigned:0;\n"
	"\tfield:__u8 uuid[16];\toffset:100;\tsize:16;\tsigned:0;\n"
	"\tfield:__u8 mac[6];\toffset:116;\tsize:6;\tsigned:0;\n"
	"\tfield:__u8 z6[16];\toffset:124;\tsize:16;\tsigned:0;\n"
	"\tfield:__u8 r6[16];\toffset:140;\tsize:16;\tsigned:0;\n"
	"\tfield:__be32 a32;\toffset:156;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%pI4 %pI6c %pI6 %pI6c %pISpc %pISpc %pU %pUB %pM %pMR %pI6c %pI6c %pi4 "
	"%pI4\", REC->saddr, REC->v6, REC->v6, REC->mapped, REC->sa4, REC->sa6, REC->uuid, "
	"REC->uuid, REC->mac, REC->mac, REC->z6, REC->r6, REC->saddr, &REC->a32\n";

TEST(network_and_ids)
{
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t mapped[16] = { [10] = 0xff, 0xff, 10, 1, 2, 3 };
	static const uint8_t sa4[28] = { 2, 0, 0x1f, 0x90, 192, 168, 1, 2 };
	static const uint8_t sa6[28] = { 10, 0, 0x01, 0xbb, [23] = 1 };
	static const uint8_t uuid[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
					  0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	static const uint8_t mac[6] = { 0x00, 0x11, 0x22, 0xaa, 0xbb, 0xcc };
	/* 1:0:0:2:0:0:0:3: the longer run of zeros is the one left out. */
	static const uint8_t r6[16] = { 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3 };
	struct rec r = { 0 };

	put_bytes(&r, 8, (uint8_t[]){ 127, 0, 0, 1 }, 4);
	put_bytes(&r, 12, v6, 16);
	put_bytes(&r, 28, mapped, 16);
	put_bytes(&r, 44, sa4, 28);
	put_bytes(&r, 72, sa6, 28);
	put_bytes(&r, 100, uuid, 16);
	put_bytes(&r, 116, mac, 6);
	put_bytes(&r, 124, (uint8_t[16]){ 0 }, 16);
	put_bytes(&r, 140, r6, 16);
	put_bytes(&r, 156, (uint8_t[]){ 10, 0, 0, 9 }, 4);
	CHECK_OWNED(print(fmt_net, &r),
		    "127.0.0.1 2001:db8::1 2001:0db8:0000:0000:0000:0000:0000:0001 "
		    "::ffff:10.1.2.3 192.168.1.2:8080 [::1]:443 "
		    "00112233-4455-6677-8899-aabbccddeeff 00112233-4455-6677-8899-AABBCCDDEEFF "
		    "00:11:22:aa:bb:cc cc:bb:aa:22:11:00 :: 1:0:0:2::3 127.000.000.001 10.0.0.9");
}

/* ---- flags and symbols ---- */

static const char fmt_flags[] =
	"name: flags\nID: 104\nformat:\n" FX_COMMON
	"\tfield:unsigned long flags;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int mode;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int state;\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"f=%s f0=[%s] f1=%s s=%s s2=%s mode=%s neg=%s\", "
	"__print_flags(REC->flags, \"|\", {1, \"A\"}, {2, \"B\"}, {0x10, \"C\"}), "
	"__print_flags(REC->state & 0, \"|\", {1, \"A\"}), "
	"__print_flags(REC->flags, \"\", {3, \"AB\"}, {1, \"A\"}), "
	"__print_symbolic(REC->mode, {0, \"zero\"}, {1, \"one\"}), "
	"__print_symbolic(REC->state, {1, \"x\"}), "
	"__print_symbolic(REC->mode, { HRTIMER_MODE_ABS, \"ABS\" }, "
	"{ HRTIMER_MODE_REL_HARD, \"REL|HARD\" }), "
	"__print_symbolic(REC->state - 8, { -1, \"minus one\" }, { 0, NULL })\n";

static const char fmt_unknown_const[] =
	"name: unk\nID: 105\nformat:\n" FX_COMMON
	"\tfield:int mode;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"mode=%s\", __print_symbolic(REC->mode, { 1, \"one\" }, "
	"{ NO_SUCH_CONSTANT, \"what\" })\n";

TEST(flags_and_symbols)
{
	struct rec r = { 0 };

	put(&r, 8, 0x113, 8);
	put(&r, 16, 9, 4);
	put(&r, 20, 7, 4);
	/*
	 * Unnamed bits as the kernel leaves them: 0x%lx after the names.  The
	 * unsigned int 7 - 8 is 0xffffffff as an unsigned long, not the
	 * table's -1.
	 */
	CHECK_OWNED(print(fmt_flags, &r),
		    "f=A|B|C|0x100 f0=[] f1=AB0x110 s=0x9 s2=0x7 mode=REL|HARD neg=0xffffffff");
	/* A name only the kernel knows: no guessing, the record fails. */
	r = (struct rec){ 0 };
	put(&r, 8, 2, 4);
	CHECK_OWNED(print(fmt_unknown_const, &r), "FAIL");
	put(&r, 8, 1, 4);
	CHECK_OWNED(print(fmt_unknown_const, &r), "mode=one");
}

/* ---- hex, arrays, bitmasks ---- */

static const char fmt_arrays[] =
	"name: arrays\nID: 106\nformat:\n" FX_COMMON
	"\tfield:__data_loc u8[] buf;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc u32[] arr;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] mask;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc cpumask_t[] cpus;\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"hex=%s hs=%s arr=%s len=%d mask=%s cpus=%s list=%*pbl bits=%*pb\", "
	"__print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf)), "
	"__print_hex_str(__get_dynamic_array(buf), __get_dynamic_array_len(buf)), "
	"__print_array(__get_dynamic_array(arr), __get_dynamic_array_len(arr) / sizeof(u32), "
	"sizeof(u32)), __get_dynamic_array_len(buf), __get_bitmask(mask), __get_cpumask(cpus), "
	"64, __get_dynamic_array(mask), 36, __get_dynamic_array(mask)\n";

TEST(hex_arrays_bitmasks)
{
	struct rec r = { .size = 64 };
	uint32_t arr[2] = { 1, 0xffffffff };
	uint64_t mask = 0x10000000fULL, cpus = 0x3;

	put_dyn(&r, 8, (uint8_t[]){ 0x01, 0x02, 0xab }, 3);
	put_dyn(&r, 12, arr, 8);
	put_dyn(&r, 16, &mask, 8);
	put_dyn(&r, 20, &cpus, 8);
	CHECK_OWNED(print(fmt_arrays, &r),
		    "hex=01 02 ab hs=0102ab arr={0x1,0xffffffff} len=3 mask=00000001,0000000f "
		    "cpus=00000000,00000003 list=0-3,32 bits=1,0000000f");
}

/* ---- expressions ---- */

static const char fmt_expr[] =
	"name: expr\nID: 108\nformat:\n" FX_COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int a;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long pfn;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long expires;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long now;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int j;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long addr;\toffset:48;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] msg;\toffset:56;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"dev %d,%d min=%d sz=%zu,%zu ms=%u page=%p left=%ld err=%s m=[%s] n=%d "
	"c=%c\", ((unsigned int) ((REC->dev) >> 20)), ((unsigned int) ((REC->dev) & ((1U << 20) "
	"- 1))), ({ int __UNIQUE_ID_x_1 = (REC->a); int __UNIQUE_ID_y_2 = (128); "
	"((__UNIQUE_ID_x_1) < (__UNIQUE_ID_y_2) ? (__UNIQUE_ID_x_1) : (__UNIQUE_ID_y_2)); }), "
	"sizeof(u64), sizeof(unsigned int), jiffies_to_msecs(REC->j), REC->pfn != -1UL ? "
	"(((struct page *)vmemmap_base) + (REC->pfn)) : ((void *)0), (long)REC->expires - "
	"REC->now, __builtin_expect(!!((unsigned long)(void *)(REC->addr) >= (unsigned "
	"long)-4095), 0) ? \"yes\" : \"no\", __get_str(msg)[0] ? \" \" : \"\", !!REC->a, "
	"'x'\n";

TEST(expressions)
{
	struct rec r = { 0 };

	put_bytes(&r, 8, "bash", 5);
	put(&r, 24, 1234, 4);
	put(&r, 28, 120, 4);
	put(&r, 32, 0, 8);
	put_bytes(&r, 40, "sleep", 6);
	put(&r, 56, 99, 4);
	put(&r, 60, 120, 4);
	CHECK_OWNED(print(fx_sched_switch, &r),
		    "prev_comm=bash prev_pid=1234 prev_prio=120 prev_state=R ==> next_comm=sleep "
		    "next_pid=99 next_prio=120");
	put(&r, 32, 0x100, 8);		/* TASK_REPORT_MAX: preempted */
	CHECK_OWNED(print(fx_sched_switch, &r),
		    "prev_comm=bash prev_pid=1234 prev_prio=120 prev_state=R+ ==> next_comm=sleep "
		    "next_pid=99 next_prio=120");
	put(&r, 32, 0x82, 8);
	CHECK_OWNED(print(fx_sched_switch, &r),
		    "prev_comm=bash prev_pid=1234 prev_prio=120 prev_state=D|I ==> next_comm=sleep "
		    "next_pid=99 next_prio=120");

	r = (struct rec){ 0 };
	put(&r, 8, 254 << 20 | 3, 4);
	put(&r, 12, 200, 4);
	put(&r, 16, 0x1c70ee, 8);
	put(&r, 24, 100, 8);
	put(&r, 32, 150, 8);
	put(&r, 40, 10, 4);
	put(&r, 48, (uint64_t)-12, 8);
	put_dyn(&r, 56, "x", 2);
	CHECK_OWNED(print(fmt_expr, &r),
		    "dev 254,3 min=128 sz=8,4 ms=40 page=ffffea00071c3b80 left=-50 err=yes m=[ ] "
		    "n=1 c=x");
	put(&r, 12, 5, 4);
	put(&r, 16, (uint64_t)-1, 8);
	put(&r, 48, 4096, 8);
	put_dyn(&r, 56, "", 1);
	CHECK_OWNED(print(fmt_expr, &r),
		    "dev 254,3 min=5 sz=8,4 ms=40 page=0000000000000000 left=-50 err=no m=[] n=1 "
		    "c=x");
}

/* ---- events the kernel prints with functions of their own ---- */

static const char fmt_sys_enter[] =
	"name: sys_enter_openat\nID: 200\nformat:\n" FX_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"dfd: 0x%08lx, filename: 0x%08lx, flags: 0x%08lx, mode: 0x%08lx\", "
	"((unsigned long)(REC->dfd)), ((unsigned long)(REC->filename)), "
	"((unsigned long)(REC->flags)), ((unsigned long)(REC->mode))\n";

static const char fmt_sys_exit[] =
	"name: sys_exit_openat\nID: 201\nformat:\n" FX_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"0x%lx\", REC->ret\n";

/* Argument types as the syscall metadata spells them (sys_execve's, sys_set_robust_list's). */
static const char fmt_sys_types[] =
	"name: sys_enter_typed\nID: 202\nformat:\n" FX_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:const char *const * argv;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:struct robust_list_head * * head;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int fd;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"argv: 0x%08lx, head: 0x%08lx, fd: 0x%08lx\", "
	"((unsigned long)(REC->argv)), ((unsigned long)(REC->head)), "
	"((unsigned long)(REC->fd))\n";

static const char fmt_raw[] =
	"name: raw_data\nID: 19\nformat:\n" FX_COMMON
	"\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:12;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"id:%04x %08x\", REC->id, (int)REC->buf[0]\n";

static const char fmt_stack[] =
	"name: kernel_stack\nID: 4\nformat:\n" FX_COMMON
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1]\n";

/*
 * 6.19+: the user memory an argument points to, in the record after the
 * arguments (kernel/trace/trace_syscalls.c), as 7.3's formats have it.
 */
static const char fmt_sys_openat_user[] =
	"name: sys_enter_openat\nID: 203\nformat:\n" FX_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] __filename_val;\toffset:48;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"dfd: 0x%08lx, filename: 0x%08lx \\\"%s\\\", flags: %s%s, mode: 0%03o\", "
	"((unsigned long)(REC->dfd)), ((unsigned long)(REC->filename)), __get_str(__filename_val), "
	"(REC->flags & ~3) && !(REC->flags & 3) ? \"O_RDONLY|\" : \"\",  REC->flags ? "
	"__print_flags(REC->flags, \"|\", { 0x1, \"O_WRONLY\" }, { 0x2, \"O_RDWR\" }, "
	"{ 0x40, \"O_CREAT\" }, { 0x80, \"O_EXCL\" }, { 0x100, \"O_NOCTTY\" }, "
	"{ 0x200, \"O_TRUNC\" }, { 0x400, \"O_APPEND\" }, { 0x800, \"O_NONBLOCK\" }, "
	"{ 0x1000, \"O_DSYNC\" }, { 0x4000, \"O_DIRECT\" }, { 0x8000, \"O_LARGEFILE\" }, "
	"{ 0x10000, \"O_DIRECTORY\" }, { 0x20000, \"O_NOFOLLOW\" }, { 0x40000, \"O_NOATIME\" }, "
	"{ 0x80000, \"O_CLOEXEC\" }) : \"O_RDONLY\",  ((unsigned long)(REC->mode))\n";

static const char fmt_sys_write_user[] =
	"name: sys_enter_write\nID: 204\nformat:\n" FX_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] __buf_val;\toffset:40;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx, buf: 0x%08lx (%s), count: 0x%08lx\", "
	"((unsigned long)(REC->fd)), ((unsigned long)(REC->buf)), "
	"__print_dynamic_array(__buf_val, 1), ((unsigned long)(REC->count))\n";

static const char fmt_sys_stat_user[] =
	"name: sys_enter_newfstatat\nID: 205\nformat:\n" FX_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:struct stat * statbuf;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:int flag;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] __filename_val;\toffset:48;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"dfd: 0x%08lx, filename: 0x%08lx \\\"%s\\\", statbuf: 0x%08lx, flag: 0x%08lx\", "
	"((unsigned long)(REC->dfd)), ((unsigned long)(REC->filename)), __get_str(__filename_val), "
	"((unsigned long)(REC->statbuf)), ((unsigned long)(REC->flag))\n";

TEST(syscall_user_memory)
{
	struct rec r = { 0 };
	static const char line[] = "42 -7 200 named a string.\n";

	/* openat outside verbose: decimal, flags by name, the mode only when creating. */
	put(&r, 16, 0xffffff9c, 8);
	put(&r, 24, 93906695440856ULL, 8);
	put(&r, 32, 0, 8);
	put(&r, 40, 0, 8);
	put_dyn(&r, 48, "/dev/null", 10);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_openat_user, &r, NULL),
		    "sys_openat(dfd: 4294967196, filename: 93906695440856 \"/dev/null\", "
		    "flags: O_RDONLY)");
	put(&r, 32, 0x1 | 0x40 | 0x200 | 0x80000, 8);
	put(&r, 40, 0644, 8);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_openat_user, &r, NULL),
		    "sys_openat(dfd: 4294967196, filename: 93906695440856 \"/dev/null\", "
		    "flags: O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, mode: 0644)");
	/* O_TMPFILE is __O_TMPFILE | O_DIRECTORY; a bit no name has, in hex. */
	put(&r, 32, 0x2 | 0x410000 | 0x100000, 8);
	put(&r, 40, 0600, 8);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_openat_user, &r, NULL),
		    "sys_openat(dfd: 4294967196, filename: 93906695440856 \"/dev/null\", "
		    "flags: O_TMPFILE|O_RDWR|0x100000, mode: 0600)");
	/* (O_DIRECTORY is a bit of O_TMPFILE: the kernel shows the mode then too.) */
	put(&r, 32, 0x10000 | 0x80000, 8);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_openat_user, &r, NULL),
		    "sys_openat(dfd: 4294967196, filename: 93906695440856 \"/dev/null\", "
		    "flags: O_RDONLY|O_DIRECTORY|O_CLOEXEC, mode: 0600)");
	/* Under verbose, the common printer: types, hex, the string. */
	env.verbose = true;
	CHECK_OWNED(print_ret("syscalls", fmt_sys_openat_user, &r, NULL),
		    "sys_openat(int dfd: 0xffffff9c, const char * filename: 0x55685b3949d8 "
		    "\"/dev/null\", int flags: 0x90000, umode_t mode: 0x180)");
	env.verbose = false;

	/* A buffer: its bytes, and its text where any is printable. */
	r = (struct rec){ 0 };
	put(&r, 16, 1, 8);
	put(&r, 24, 0x55f0170172a0ULL, 8);
	put(&r, 32, sizeof(line) - 1, 8);
	put_dyn(&r, 40, line, sizeof(line) - 1);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_write_user, &r, NULL),
		    "sys_write(fd: 1, buf: 0x55f0170172a0 (34:32:20:2d:37:20:32:30:30:20:6e:61:6d:"
		    "65:64:20:61:20:73:74:72:69:6e:67:2e:0a) \"42 -7 200 named a string..\", "
		    "count: 0x1a)");
	/* Asked for more than was kept: "..." after both. */
	put(&r, 32, 4096, 8);
	put_dyn(&r, 40, "ab\001", 3);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_write_user, &r, NULL),
		    "sys_write(fd: 1, buf: 0x55f0170172a0 (61:62:01, ...) \"ab.\"..., count: 0x1000)");
	/* Nothing printable: the bytes alone. */
	put(&r, 32, 2, 8);
	put_dyn(&r, 40, "\001\377", 2);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_write_user, &r, NULL),
		    "sys_write(fd: 1, buf: 0x55f0170172a0 (01:ff), count: 2)");
	/* A fault kept nothing: an empty buffer. */
	put(&r, 40, 64, 4);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_write_user, &r, NULL),
		    "sys_write(fd: 1, buf: 0x55f0170172a0 (, ...), count: 2)");
	/* Memory outside the record is refused. */
	put(&r, 40, (uint64_t)16 << 16 | 0xff00, 4);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_write_user, &r, NULL), "FAIL");

	/* A string. */
	r = (struct rec){ 0 };
	put(&r, 16, 0xffffff9c, 8);
	put(&r, 24, 0x55685b395527ULL, 8);
	put(&r, 32, 0x7ffe5d32d2a0ULL, 8);
	put(&r, 40, 0, 8);
	put_dyn(&r, 48, ".", 2);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_stat_user, &r, NULL),
		    "sys_newfstatat(dfd: 0xffffff9c, filename: 0x55685b395527 \".\", "
		    "statbuf: 0x7ffe5d32d2a0, flag: 0)");
}

TEST(kernel_output_functions)
{
	struct rec r = { 0 };
	int ret;

	put(&r, 8, 257, 4);
	put(&r, 16, 0xffffff9c, 8);
	put(&r, 24, 0x5649df134200ULL, 8);
	put(&r, 32, 0, 8);
	put(&r, 40, 9, 8);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_enter, &r, &ret),
		    "sys_openat(dfd: 0xffffff9c, filename: 0x5649df134200, flags: 0, mode: 9)");
	CHECK(ret == KPROG_LINE);
	put(&r, 40, 10, 8);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_enter, &r, NULL),
		    "sys_openat(dfd: 0xffffff9c, filename: 0x5649df134200, flags: 0, mode: 0xa)");
	r = (struct rec){ 0 };
	put(&r, 16, (uint64_t)-2, 8);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_exit, &r, &ret),
		    "sys_openat -> 0xfffffffffffffffe");
	CHECK(ret == KPROG_LINE);
	/* The same formats in another system are ordinary events. */
	CHECK_OWNED(print_ret("other", fmt_sys_exit, &r, &ret), "0xfffffffffffffffe");
	CHECK(ret == KPROG_TEXT);

	r = (struct rec){ 0 };
	put(&r, 8, 0xffffffff81300000ULL + 0x40, 8);
	put_bytes(&r, 16, "hello\n\0\0", 8);
	/* The write's own newline ends the kernel's line: it is not the text's. */
	CHECK_OWNED(print_ret("ftrace", fx_print, &r, &ret), "tracing_mark_write: hello");
	CHECK(ret == KPROG_LINE);
	r = (struct rec){ 0 };
	put(&r, 8, 0x2a, 4);
	put_bytes(&r, 12, "raw\x01\x02\0\0\0", 8);
	CHECK_OWNED(print_ret("ftrace", fmt_raw, &r, NULL), "# 2a buf: 72 61 77 01 02 00 00 00");
	r = (struct rec){ 0 };
	put(&r, 8, 2, 4);
	put(&r, 16, 0xffffffff81300200ULL + 0x10, 8);
	put(&r, 24, 0xffffffff81300300ULL + 0x6a, 8);
	put(&r, 32, UINT64_MAX, 8);
	CHECK_OWNED(print_ret("ftrace", fmt_stack, &r, NULL),
		    "<stack trace>\n => vfs_read\n => ksys_read");
}

static const char fmt_uprobe[] =
	"name: args\nID: 300\nformat:\n" FX_COMMON
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:s32 x;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:s16 neg;\toffset:20;\tsize:2;\tsigned:1;\n"
	"\tfield:u32 hex;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:28;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"(%lx) x=%d neg=%d hex=0x%x name=\\\"%s\\\"\", REC->__probe_ip, REC->x, "
	"REC->neg, REC->hex, __get_str(name)\n";

static const char fmt_uretprobe[] =
	"name: ret\nID: 301\nformat:\n" FX_COMMON
	"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:s32 rv;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"(%lx <- %lx) rv=%d\", REC->__probe_func, REC->__probe_ret_ip, REC->rv\n";

TEST(probes)
{
	struct rec r = { 0 };
	int ret;

	put(&r, 8, 0x559fb947f139ULL, 8);
	put(&r, 16, 42, 4);
	put(&r, 20, (uint16_t)-7, 2);
	put(&r, 24, 42, 4);
	put_dyn(&r, 28, "named", 6);
	CHECK_OWNED(print_ret("grp", fmt_uprobe, &r, &ret),
		    "(0x559fb947f139) x=42 neg=-7 hex=0x2a name=\"named\"");
	CHECK(ret == KPROG_TEXT);
	/* A kernel address: a kprobe, by symbol. */
	put(&r, 8, 0xffffffff81300204ULL, 8);
	CHECK_OWNED(print_ret("grp", fmt_uprobe, &r, NULL),
		    "(vfs_read+0x4/0x100) x=42 neg=-7 hex=0x2a name=\"named\"");
	r = (struct rec){ 0 };
	put(&r, 8, 0x559fb947f139ULL, 8);
	put(&r, 16, 0x559fb947f1dfULL, 8);
	put(&r, 24, 0, 4);
	CHECK_OWNED(print_ret("grp", fmt_uretprobe, &r, NULL),
		    "(0x559fb947f1df <- 0x559fb947f139) rv=0");
	put(&r, 8, 0xffffffff81300200ULL, 8);
	put(&r, 16, 0xffffffff81300300ULL + 0x6a, 8);
	CHECK_OWNED(print_ret("grp", fmt_uretprobe, &r, NULL),
		    "(ksys_read+0x6a/0x100 <- vfs_read) rv=0");
	/*
	 * A second kretprobe on the function: the return address is the
	 * trampoline's, which the kernel does not name (kretprobed()); inside
	 * it, it does.
	 */
	put(&r, 16, 0xffffffff81300400ULL, 8);
	CHECK_OWNED(print_ret("grp", fmt_uretprobe, &r, NULL),
		    "([unknown/kretprobe'd] <- vfs_read) rv=0");
	put(&r, 16, 0xffffffff81300404ULL, 8);
	CHECK_OWNED(print_ret("grp", fmt_uretprobe, &r, NULL),
		    "(arch_rethook_trampoline+0x4/0x80 <- vfs_read) rv=0");
}

/* ---- the latency tracers' samples (trace_output.c's printers, not the print fmts) ---- */

static const char fmt_hwlat[] =
	"name: hwlat\nID: 13\nformat:\n" FX_COMMON
	"\tfield:u64 duration;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 outer_duration;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 nmi_total_ts;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 tv_sec;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:long tv_nsec;\toffset:40;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned int nmi_count;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int seqnum;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int count;\toffset:56;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"cnt:%u\tts:%010llu.%010lu\tinner:%llu\touter:%llu\tcount:%d\tnmi-ts:%llu\t"
	"nmi-count:%u\n\", REC->seqnum, REC->tv_sec, REC->tv_nsec, REC->duration, "
	"REC->outer_duration, REC->count, REC->nmi_total_ts, REC->nmi_count\n";

static const char fmt_osnoise[] =
	"name: osnoise\nID: 14\nformat:\n" FX_COMMON
	"\tfield:u64 noise;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 runtime;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 max_sample;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int hw_count;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int nmi_count;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int irq_count;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int softirq_count;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int thread_count;\toffset:48;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"noise:%llu\tmax_sample:%llu\thw:%u\tnmi:%u\tirq:%u\tsoftirq:%u\tthread:%u\n\", "
	"REC->noise, REC->max_sample, REC->hw_count, REC->nmi_count, REC->irq_count, "
	"REC->softirq_count, REC->thread_count\n";

static const char fmt_timerlat[] =
	"name: timerlat\nID: 15\nformat:\n" FX_COMMON
	"\tfield:unsigned int seqnum;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int context;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 timer_latency;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"seq:%u\tcontext:%d\ttimer_latency:%llu\n\", REC->seqnum, REC->context, "
	"REC->timer_latency\n";

TEST(latency_tracer_samples)
{
	struct rec r = { 0 };

	/* The kernel's lines, as the 6.12 VM's trace file printed them. */
	put(&r, 8, 9412, 8);
	put(&r, 16, 11712, 8);
	put(&r, 32, 1795420987, 8);
	put(&r, 40, 577681363, 8);
	put(&r, 52, 1, 4);
	put(&r, 56, 463, 4);
	CHECK_OWNED(print_ret("ftrace", fmt_hwlat, &r, NULL),
		    "#1     inner/outer(us): 9412/11712 ts:1795420987.577681363 count:463");
	put(&r, 8, 3345, 8);
	put(&r, 16, 3898, 8);
	put(&r, 40, 5, 8);
	put(&r, 48, 2, 4);
	put(&r, 24, 1234, 8);
	CHECK_OWNED(print_ret("ftrace", fmt_hwlat, &r, NULL),
		    "#1     inner/outer(us): 3345/3898  ts:1795420987.000000005 count:463 "
		    "nmi-total:1234 nmi-count:2");
	r = (struct rec){ 0 };
	put(&r, 8, 883573, 8);
	put(&r, 16, 1003036, 8);
	put(&r, 24, 43932, 8);
	put(&r, 32, 397, 4);
	put(&r, 40, 95, 4);
	put(&r, 44, 89, 4);
	put(&r, 48, 66, 4);
	CHECK_OWNED(print_ret("ftrace", fmt_osnoise, &r, NULL),
		    "1003036     883573  11.91014   43932    397      0     95     89     66");
	r = (struct rec){ 0 };
	put(&r, 8, 1, 4);
	put(&r, 16, 2441770, 8);
	CHECK_OWNED(print_ret("ftrace", fmt_timerlat, &r, NULL),
		    "#1     context    irq timer_latency   2441770 ns");
	put(&r, 12, 1, 4);
	CHECK_OWNED(print_ret("ftrace", fmt_timerlat, &r, NULL),
		    "#1     context thread timer_latency   2441770 ns");
}

/* ---- the branch tracer, mmiotrace and the blk tracer (their own printers) ---- */

static const char fmt_branch[] =
	"name: branch\nID: 9\nformat:\n" FX_COMMON
	"\tfield:unsigned int line;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:char func[31];\toffset:12;\tsize:31;\tsigned:0;\n"
	"\tfield:char file[21];\toffset:43;\tsize:21;\tsigned:0;\n"
	"\tfield:char correct;\toffset:64;\tsize:1;\tsigned:0;\n"
	"\tfield:char constant;\toffset:65;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"%u:%s:%s (%u)%s\", REC->line, REC->func, REC->file, REC->correct, "
	"REC->constant ? \" CONSTANT\" : \"\"\n";

static const char fmt_mmio_rw[] =
	"name: mmiotrace_rw\nID: 7\nformat:\n" FX_COMMON
	"\tfield:resource_size_t phys;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long value;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long pc;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int map_id;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned char opcode;\toffset:36;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char width;\toffset:37;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"%lx %lx %lx %d %x %x\", (unsigned long)REC->phys, REC->value, REC->pc, "
	"REC->map_id, REC->opcode, REC->width\n";

static const char fmt_mmio_map[] =
	"name: mmiotrace_map\nID: 8\nformat:\n" FX_COMMON
	"\tfield:resource_size_t phys;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long virt;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long len;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int map_id;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned char opcode;\toffset:36;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"%lx %lx %lx %d %x\", (unsigned long)REC->phys, REC->virt, REC->len, "
	"REC->map_id, REC->opcode\n";

TEST(branch_and_mmiotrace)
{
	struct rec r = { 0 };
	int ret;

	/* trace_branch_print(): the whole text after the time, no "branch:" before it. */
	put(&r, 8, 1234, 4);
	put_bytes(&r, 12, "sched_clock_cpu", 16);
	put_bytes(&r, 43, "sched/clock.c", 14);
	put(&r, 64, 1, 1);
	put(&r, 65, 0, 1);
	CHECK_OWNED(print_ret("ftrace", fmt_branch, &r, &ret),
		    "[  ok  ] sched_clock_cpu:sched/clock.c:1234");
	CHECK(ret == 1);
	put(&r, 64, 0, 1);
	/* A name that fills its array has no NUL: it ends with the array. */
	put_bytes(&r, 12, "a_function_name_of_31_bytes_xyz", 31);
	CHECK_OWNED(print_ret("ftrace", fmt_branch, &r, NULL),
		    "[ MISS ] a_function_name_of_31_bytes_xyz:sched/clock.c:1234");

	/* mmio_print_rw() and mmio_print_map(): the time in us, rounded as ns2usecs() does. */
	rec_ts = 1234567891500ULL;
	r = (struct rec){ 0 };
	put(&r, 8, 0xfebf0010, 8);
	put(&r, 16, 0xdeadbeef, 8);
	put(&r, 24, 0xffffffff81300210ULL, 8);
	put(&r, 32, 3, 4);
	put(&r, 36, 1, 1);
	put(&r, 37, 4, 1);
	CHECK_OWNED(print_ret("ftrace", fmt_mmio_rw, &r, &ret),
		    "R 4 1234.567892 3 0xfebf0010 0xdeadbeef 0xffffffff81300210 0");
	CHECK(ret == 1);
	put(&r, 36, 2, 1);
	put(&r, 37, 1, 1);
	CHECK_OWNED(print_ret("ftrace", fmt_mmio_rw, &r, NULL),
		    "W 1 1234.567892 3 0xfebf0010 0xdeadbeef 0xffffffff81300210 0");
	put(&r, 36, 5, 1);
	put(&r, 16, 0x123456, 8);
	CHECK_OWNED(print_ret("ftrace", fmt_mmio_rw, &r, NULL),
		    "UNKNOWN 1234.567892 3 0xfebf0010 12,34,56 0xffffffff81300210 0");
	put(&r, 36, 9, 1);
	CHECK_OWNED(print_ret("ftrace", fmt_mmio_rw, &r, NULL), "rw what?");
	r = (struct rec){ 0 };
	put(&r, 8, 0xfebf0000, 8);
	put(&r, 16, 0xffffc90000100000ULL, 8);
	put(&r, 24, 0x1000, 8);
	put(&r, 32, 7, 4);
	put(&r, 36, 3, 1);
	CHECK_OWNED(print_ret("ftrace", fmt_mmio_map, &r, NULL),
		    "MAP 1234.567892 7 0xfebf0000 0xffffc90000100000 0x1000 0x0 0");
	put(&r, 36, 4, 1);
	CHECK_OWNED(print_ret("ftrace", fmt_mmio_map, &r, NULL), "UNMAP 1234.567892 7 0x0 0");
	/* Under mmiotrace a marker is its "MARK" line (mmio_print_mark()), its newline dropped. */
	r = (struct rec){ 0 };
	put(&r, 8, 0xffffffff81300010ULL, 8);
	put_bytes(&r, 16, "hello\n", 7);
	env.mmiotrace = true;
	CHECK_OWNED(print_ret("ftrace", fx_print, &r, &ret), "MARK 1234.567892 hello");
	CHECK(ret == 1);
	env.mmiotrace = false;
	CHECK_OWNED(print_ret("ftrace", fx_print, &r, NULL), "tracing_mark_write: hello");
	rec_ts = 2000000000ULL;
}

static const char *stub_comm(void *ctx, int pid)
{
	(void)ctx;
	return pid == 1234 ? "dd" : pid ? "<...>" : "<idle>";
}

/* A blk_io_trace record (before 6.19) with pdu bytes after it. */
static char *blk(struct rec *r, unsigned kver, bool verbose)
{
	struct kenv e = env;
	struct fmt_line out = { 0 };
	char *s;
	int rc;

	e.comm = stub_comm;
	e.kver = kver;
	e.verbose = verbose;
	rc = kblk_run(&e, &(struct krec){ r->d, r->size, 0, 0 }, &out);
	s = rc == 1 ? strndup(out.p ? out.p : "", out.len) : strdup(rc < 0 ? "FAIL" : "TEXT");
	free(out.p);
	return s;
}

static void blk_rec(struct rec *r, int pid, uint64_t sector, uint32_t bytes, uint32_t action,
		    uint32_t dev, uint16_t error, const void *pdu, uint16_t pdu_len)
{
	*r = (struct rec){ 0 };
	put(r, 0, 14, 2);
	put(r, 4, pid, 4);
	put(r, 16, sector, 8);
	put(r, 24, bytes, 4);
	put(r, 28, action, 4);
	put(r, 32, pid, 4);
	put(r, 36, dev, 4);
	put(r, 40, 1, 4);
	put(r, 44, error, 2);
	put(r, 46, pdu_len, 2);
	if (pdu_len)
		put_bytes(r, 48, pdu, pdu_len);
	r->size = (48 + pdu_len + 3) & ~3u;
}

TEST(blk_tracer_records)
{
	struct rec r;
	/* BLK_TC_ACT(x) is x << 16; loop0 is 7,0; nvme0n1 259,0 (dev_t: major << 20). */
	const uint32_t loop0 = 7 << 20, nvme = 259 << 20 | 0, WRITE = 2 << 16, SYNC = 8 << 16,
		       QUEUE = 16 << 16, ISSUE = 64 << 16, COMPLETE = 128 << 16, PC = 512 << 16;
	uint8_t unplug[8] = { 0, 0, 0, 0, 0, 0, 0, 3 };
	uint8_t remap[16] = { 0x00, 0x70, 0x00, 0x01, 0x00, 0x70, 0x00, 0x00,
			      0, 0, 0, 0, 0, 0, 0x10, 0x00 };
	uint8_t cdb[6] = { 0x28, 0, 0x12, 0, 0, 0 };

	blk_rec(&r, 1234, 2048, 4096, 1 | QUEUE | WRITE | SYNC, nvme, 0, NULL, 0);
	CHECK_OWNED(blk(&r, 0, false), "259,0    Q  WS 2048 + 8 [dd]");
	CHECK_OWNED(blk(&r, 6 << 8 | 18, true), "259,0   queue  WS 2048 + 8 [dd]");
	blk_rec(&r, 0, 2048, 4096, 8 | COMPLETE | WRITE, loop0, 0, NULL, 0);
	CHECK_OWNED(blk(&r, 0, false), "  7,0    C   W 2048 + 8 [0]");
	blk_rec(&r, 1234, 0, 0, 8 | COMPLETE, loop0, 5, NULL, 0);
	CHECK_OWNED(blk(&r, 0, false), "  7,0    C   N 0 [5]");
	blk_rec(&r, 1234, 0, 0, 9 | QUEUE, loop0, 0, NULL, 0);
	CHECK_OWNED(blk(&r, 0, false), "  7,0    P   N [dd]");
	blk_rec(&r, 1234, 0, 0, 10 | QUEUE, loop0, 0, unplug, 8);
	CHECK_OWNED(blk(&r, 0, false), "  7,0    U   N [dd] 3");
	CHECK_OWNED(blk(&r, 0, true), "  7,0   unplug_io   N [dd] 3");
	blk_rec(&r, 1234, 64, 4096, 15 | QUEUE, 7 << 20 | 1, 0, remap, 16);
	CHECK_OWNED(blk(&r, 0, false), "  7,1    A   R 64 + 8 <- (7,1) 4096");
	blk_rec(&r, 1234, 64, 1024, 13, loop0, 0, unplug, 8);
	CHECK_OWNED(blk(&r, 0, false), "  7,0    X   R 64 / 3 [dd]");
	/* A pc request: its bytes, then the command's up to one past the last non-zero one. */
	blk_rec(&r, 77, 0, 36, 7 | ISSUE | PC, loop0, 0, cdb, 6);
	CHECK_OWNED(blk(&r, 0, false), "  7,0    D   R 36 (28 00 12 00 ..) [<...>]");
	/* A message (BLK_TN_MESSAGE) and a cgroup's id before the pdu. */
	{
		uint8_t msg[8 + 5] = { 0x21, 0, 0, 0, 0x01, 0, 0, 0, 'h', 'e', 'l', 'l', 'o' };

		blk_rec(&r, 1234, 0, 0, 2 | 1 << 10 << 16 | 1 << 8, loop0, 0, msg, 13);
		CHECK_OWNED(blk(&r, 0, false), "  7,0   21,1  m   N hello");
		CHECK_OWNED(blk(&r, 0, true), "  7,0   21,1 message   N hello");
	}
	blk_rec(&r, 1234, 0, 0, 17, loop0, 0, NULL, 0);
	CHECK_OWNED(blk(&r, 0, false), "Unknown action 11");
	/* Cut short: no read past the record (ASan), no text. */
	blk_rec(&r, 1234, 0, 0, 10 | QUEUE, loop0, 0, unplug, 8);
	r.size = 50;
	CHECK_OWNED(blk(&r, 6 << 8 | 1, false), "FAIL");
	r.size = 40;
	CHECK_OWNED(blk(&r, 0, false), "FAIL");
}

/* ---- what libtraceevent cannot parse ---- */

static const char fmt_maple[] =
	"name: ma_read\nID: 400\nformat:\n" FX_COMMON
	"\tfield:const char * fn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long min;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:void * node;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"%s\tNode: %p (%lu)\", REC->fn, (void *) REC->node, (unsigned long) REC->min\n";

static const char fmt_kvm[] =
	"name: kvm_inj_exception\nID: 401\nformat:\n" FX_COMMON
	"\tfield:u8 exception;\toffset:8;\tsize:1;\tsigned:0;\n"
	"\tfield:bool has_error;\toffset:9;\tsize:1;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s%s%s%s\", __print_symbolic(REC->exception, { 0, \"#\" \"DE\" }, { 14, "
	"\"#\" \"PF\" }), !REC->has_error ? \"\" : \" (\", !REC->has_error ? \"\" : "
	"__print_symbolic(REC->error_code, { }), !REC->has_error ? \"\" : \")\"\n";

/* 6.1 writes a format's "\n" as a newline: the line goes on after it. */
static const char fmt_newline[] =
	"name: exit_mmap\nID: 402\nformat:\n" FX_COMMON
	"\tfield:void * mt;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"mt_mod %p, DESTROY\n\", REC->mt\n";

TEST(formats_with_newlines)
{
	struct rec r = { 0 };

	put(&r, 8, 0xff39f10181057600ULL, 8);
	/* The kernel prints the text, its newline, then the line's: an empty line. */
	CHECK_OWNED(print(fmt_newline, &r), "mt_mod ff39f10181057600, DESTROY\n");
}

static const char fmt_mc[] =
	"name: mc_event\nID: 403\nformat:\n" FX_COMMON
	"\tfield:unsigned int error_type;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u16 error_count;\toffset:12;\tsize:2;\tsigned:0;\n\n"
	"print fmt: \"%d %s error%s\", REC->error_count, mc_event_error_type(REC->error_type), "
	"REC->error_count > 1 ? \"s\" : \"\"\n";

TEST(formats_libtraceevent_refuses)
{
	struct rec r = { 0 };

	put(&r, 8, 0xffffffff82521880ULL, 8);
	put(&r, 16, 18446744073709551615ULL, 8);
	put(&r, 24, 0, 8);
	CHECK_OWNED(print(fmt_maple, &r), "mt_find\tNode: 0000000000000000 (18446744073709551615)");
	r = (struct rec){ 0 };
	put(&r, 8, 14, 1);
	put(&r, 9, 1, 1);
	put(&r, 12, 6, 4);
	CHECK_OWNED(print(fmt_kvm, &r), "#PF (0x6)");
	/* A helper of the kernel's own: mc_event_error_type(). */
	r = (struct rec){ 0 };
	put(&r, 8, 1, 4);
	put(&r, 12, 2, 2);
	CHECK_OWNED(print(fmt_mc, &r), "2 Uncorrected errors");
	put(&r, 8, 9, 4);
	put(&r, 12, 1, 2);
	CHECK_OWNED(print(fmt_mc, &r), "1 Info error");
}

/* ---- hostile input ---- */

TEST(deep_nesting_refused)
{
	/*
	 * 100,000 parentheses or minus signs: no program (the fallback prints), no
	 * stack overflow.  libtraceevent gets the shallow format (tfile-format.c keeps
	 * deep ones from it); the printer compiles the deep one.
	 */
	static const char head[] = "name: deep\nID: 100\nformat:\n" FX_COMMON
				   "\tfield:int i;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"%d\", ";
	enum { N = 100000 };
	char *text = malloc(sizeof(head) + 2 * N + 16), *p;
	struct tep_handle *tep = tep_alloc();
	struct tep_event *e;
	struct kprog *prog;

	p = stpcpy(stpcpy(text, head), "REC->i\n");
	CHECK(!tep_parse_event(tep, text, strlen(text), "test"));
	e = tep_get_first_event(tep);
	env.tep = tep;
	for (int k = 0; e && k < 3; k++) {
		int n = k == 2 ? 150 : N;	/* 150 levels, more than any kernel format, compile */

		p = stpcpy(text, head);
		for (int i = 0; i < n; i++)
			*p++ = k == 1 ? '-' : '(';
		p = stpcpy(p, "REC->i");
		for (int i = 0; k != 1 && i < n; i++)
			*p++ = ')';
		strcpy(p, "\n");
		prog = kprog_compile(&env, e, text);
		CHECK(k == 2 ? prog != NULL : prog == NULL);
		kprog_free(prog);
	}
	tep_free(tep);
	free(text);
}

/* ---- one program, many records: the quick ways and the memos ---- */

/*
 * An older kernel's sched_switch: its flags table has no "P" (0x40) though
 * the mask lets the bit through, so that bit prints as a number, and the
 * "+" bit is TASK_REPORT_MAX's (0x100) by the same arithmetic.
 */
static const char fmt_switch_old[] =
	"name: sched_switch\nID: 110\nformat:\n" FX_COMMON FX_SWITCH_FIELDS
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & ((((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | "
	"0x0040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x0000 | 0x0001 | 0x0002 | "
	"0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1) - 1), \"|\", { 0x0001, \"S\" }, "
	"{ 0x0002, \"D\" }, { 0x0004, \"T\" }, { 0x0008, \"t\" }, { 0x0010, \"X\" }, { 0x0020, "
	"\"Z\" }, { 0x0080, \"I\" }) : \"R\", REC->prev_state & (((0x0000 | 0x0001 | 0x0002 | "
	"0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

/*
 * Not the shape a memo takes: the state's text depends on two fields (the
 * mask is another field), and the cpu's width comes from the record.
 */
static const char fmt_switch_odd[] =
	"name: sched_switch\nID: 111\nformat:\n" FX_COMMON
	"\tfield:long prev_state;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:int mask;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:int cpu;\toffset:20;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_state=%s cpu=%0*d\", (REC->prev_state & REC->mask) ? "
	"__print_flags(REC->prev_state & REC->mask, \"|\", { 1, \"S\" }, { 2, \"D\" }) : \"R\", "
	"REC->mask, REC->cpu\n";

static const char fmt_wakeup[] =
	"name: sched_wakeup\nID: 112\nformat:\n" FX_COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
	"REC->target_cpu\n";

static const char fmt_high_flags[] =
	"name: high_flags\nID: 114\nformat:\n" FX_COMMON
	"\tfield:unsigned long flags;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"flags=%s\", __print_flags(REC->flags, \"|\", { 2, \"TWO\" })\n";

static const char fmt_runtime[] =
	"name: sched_stat_runtime\nID: 113\nformat:\n" FX_COMMON
	"\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 runtime;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"comm=%s pid=%d runtime=%Lu [ns]\", __get_str(comm), REC->pid, "
	"(unsigned long long)REC->runtime\n";

/* A program compiled once, for records run through it one after another. */
struct prog {
	struct tep_handle *tep;
	struct kprog *p;
	int id;
};

static bool prog_open(struct prog *g, const char *text)
{
	struct tep_event *e;

	g->tep = fx_tep_new();
	tep_parse_event(g->tep, text, strlen(text), "sched");
	e = tep_get_first_event(g->tep);
	env.tep = g->tep;
	g->p = e ? kprog_compile(&env, e, text) : NULL;
	g->id = e ? e->id : 0;
	return g->p;
}

static char *prog_run(struct prog *g, const struct kenv *k, struct rec *r)
{
	struct fmt_line out = { 0 };
	char *s;

	put(r, 0, g->id, 2);
	if (r->size < 8)
		r->size = 8;
	if (kprog_run(g->p, k, &(struct krec){ r->d, r->size, rec_ts, rec_ts }, &out) ==
	    KPROG_FAIL)
		s = strdup("FAIL");
	else
		s = strndup(out.p ? out.p : "", out.len);
	free(out.p);
	return s;
}

static void prog_close(struct prog *g)
{
	kprog_free(g->p);
	tep_free(g->tep);
}

static void switch_rec(struct rec *r, const char *prev, int pid, uint64_t state, const char *next)
{
	*r = (struct rec){ 0 };
	put_bytes(r, 8, prev, strlen(prev) + 1);
	put(r, 24, pid, 4);
	put(r, 28, 120, 4);
	put(r, 32, state, 8);
	put_bytes(r, 40, next, strlen(next) + 1);
	put(r, 56, 99, 4);
	put(r, 60, 120, 4);
}

TEST(memos_and_quick_lines)
{
	/* prev_state, what this kernel's table prints for it; every one twice (a memo's hit). */
	static const struct {
		uint64_t state;
		const char *text;
	} states[] = {
		{ 0, "R" }, { 1, "S" }, { 0x100, "R+" }, { 2, "D" }, { 0x82, "D|I" }, { 0x101, "S+" },
		{ 0x40, "P" }, { 0x7f, "S|D|T|t|X|Z|P" }, { 0x200, "R" }, { 0x1ff, "S|D|T|t|X|Z|P|I+" },
		{ (uint64_t)-1, "S|D|T|t|X|Z|P|I+" },
	};
	struct prog g;
	struct rec r;
	char want[256];

	CHECK(prog_open(&g, fx_sched_switch));
	if (!g.p)
		return;
	/* The comms and numbers quick, both state conversions with a memo: a line in place. */
	CHECK(g.p->fast && g.p->nmemos == 2);
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
			switch_rec(&r, i & 1 ? "kworker/0:1" : "a-sixteen-chars", 1000 + i,
				   states[i].state, "sleep");
			snprintf(want, sizeof(want),
				 "prev_comm=%s prev_pid=%zu prev_prio=120 prev_state=%s ==> "
				 "next_comm=sleep next_pid=99 next_prio=120",
				 i & 1 ? "kworker/0:1" : "a-sixteen-chars", 1000 + i, states[i].text);
			CHECK_OWNED(prog_run(&g, &env, &r), want);
		}
	/* A comm of all 16 bytes, no NUL in the field; and an empty one. */
	switch_rec(&r, "bash", 1, 0, "");
	put_bytes(&r, 8, "0123456789abcdef", 16);
	CHECK_OWNED(prog_run(&g, &env, &r),
		    "prev_comm=0123456789abcdef prev_pid=1 prev_prio=120 prev_state=R ==> "
		    "next_comm= next_pid=99 next_prio=120");
	/* Each length, bytes above 0x7f (UTF-8) before the NUL and others after it. */
	for (int len = 0; len <= 16; len++) {
		char comm[17];

		switch_rec(&r, "x", 1, 0, "y");
		for (int i = 0; i < 16; i++)
			r.d[8 + i] = i < len ? (i & 1 ? 0x80 + i : '1' + i) : i == len ? 0 : 0x01;
		memcpy(comm, r.d + 8, len);
		comm[len] = '\0';
		snprintf(want, sizeof(want),
			 "prev_comm=%s prev_pid=1 prev_prio=120 prev_state=R ==> next_comm=y "
			 "next_pid=99 next_prio=120", comm);
		CHECK_OWNED(prog_run(&g, &env, &r), want);
	}
	/* Cut short in the state: no text, from the memo or not. */
	switch_rec(&r, "bash", 1, 0, "sleep");
	r.size = 36;
	CHECK_OWNED(prog_run(&g, &env, &r), "FAIL");
	prog_close(&g);

	/* A bit the table lacks prints as a number after the names, as __print_flags does. */
	CHECK(prog_open(&g, fmt_switch_old));
	if (g.p) {
		for (int round = 0; round < 2; round++) {
			switch_rec(&r, "bash", 7, 0x41, "sleep");
			CHECK_OWNED(prog_run(&g, &env, &r),
				    "prev_comm=bash prev_pid=7 prev_prio=120 prev_state=S|0x40 ==> "
				    "next_comm=sleep next_pid=99 next_prio=120");
			switch_rec(&r, "bash", 7, 0x140, "sleep");
			CHECK_OWNED(prog_run(&g, &env, &r),
				    "prev_comm=bash prev_pid=7 prev_prio=120 prev_state=0x40+ ==> "
				    "next_comm=sleep next_pid=99 next_prio=120");
		}
		prog_close(&g);
	}

	/* Not a memo's shape: the generic printer, the same text each time. */
	CHECK(prog_open(&g, fmt_switch_odd));
	if (g.p) {
		CHECK(!g.p->fast && g.p->nmemos == 0);
		for (int round = 0; round < 3; round++) {
			r = (struct rec){ 0 };
			put(&r, 8, 3, 8);
			put(&r, 16, round ? 2 : 1, 4);
			put(&r, 20, 5, 4);
			CHECK_OWNED(prog_run(&g, &env, &r), round ? "prev_state=D cpu=05" :
								   "prev_state=S cpu=5");
		}
		prog_close(&g);
	}
}

TEST(memo_turns_off_and_follows_env)
{
	struct prog g;
	struct rec r;
	char want[128];
	struct kenv env4 = env;

	/* %03d of a cpu: a memo; 3000 values that never repeat turn it off, the text unchanged. */
	CHECK(prog_open(&g, fmt_wakeup));
	if (!g.p)
		return;
	CHECK(g.p->fast && g.p->nmemos == 1);
	for (int i = -1500; i < 1500; i++) {
		r = (struct rec){ 0 };
		put_bytes(&r, 8, "cc1", 4);
		put(&r, 24, 4242, 4);
		put(&r, 28, 130, 4);
		put(&r, 32, (uint64_t)(int64_t)i, 4);
		snprintf(want, sizeof(want), "comm=cc1 pid=4242 prio=130 target_cpu=%03d", i);
		CHECK_OWNED(prog_run(&g, &env, &r), want);
	}
	CHECK(g.p->memos[0].disabled);
	prog_close(&g);

	/*
	 * The texts are the environment's: __print_flags takes a long's low 32
	 * bits on a 32-bit kernel, so the same bytes print otherwise there, as
	 * a program compiled afresh prints them.
	 */
	env4.long_size = 4;
	CHECK(prog_open(&g, fmt_high_flags));
	if (g.p) {
		char *fresh;

		r = (struct rec){ 0 };
		put(&r, 8, 0x100000002ULL, 8);
		CHECK_OWNED(prog_run(&g, &env, &r), "flags=TWO|0x100000000");
		CHECK_OWNED(prog_run(&g, &env4, &r), "flags=TWO");
		CHECK_OWNED(prog_run(&g, &env, &r), "flags=TWO|0x100000000");
		env.long_size = 4;
		fresh = print(fmt_high_flags, &r);
		env.long_size = 8;
		CHECK_STR(fresh, "flags=TWO");
		free(fresh);
		prog_close(&g);
	}

	/* __get_str and a cast %Lu: quick, and a string past the record fails. */
	CHECK(prog_open(&g, fmt_runtime));
	if (g.p) {
		CHECK(g.p->fast && g.p->nmemos == 0);
		r = (struct rec){ 0 };
		put(&r, 12, (uint64_t)-5, 4);
		put(&r, 16, 18446744073709551615ULL, 8);
		put_dyn(&r, 8, "sched-pipe", 11);
		CHECK_OWNED(prog_run(&g, &env, &r),
			    "comm=sched-pipe pid=-5 runtime=18446744073709551615 [ns]");
		put_dyn(&r, 8, "", 1);
		put(&r, 16, 0, 8);
		CHECK_OWNED(prog_run(&g, &env, &r), "comm= pid=-5 runtime=0 [ns]");
		r.size = 30;
		CHECK_OWNED(prog_run(&g, &env, &r), "FAIL");
		prog_close(&g);
	}
}

TEST(short_records_fail_cleanly)
{
	/* Each record is cut short: no read past it (ASan), and no output. */
	const char *fmts[] = { fmt_nums, fmt_strs, fmt_ptrs, fmt_net, fmt_flags, fmt_arrays,
			       fx_sched_switch, fmt_expr, fmt_hwlat, fmt_osnoise, fmt_timerlat,
			       fmt_branch, fmt_mmio_rw, fmt_mmio_map };

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct rec r = { 0 };
		char *s;

		r.size = 12;
		s = print(fmts[i], &r);
		CHECK(!strcmp(s, "FAIL") || !strcmp(s, "NO PROG"));
		if (strcmp(s, "FAIL") && strcmp(s, "NO PROG"))
			printf("#   %s: %s\n", fmts[i] + 6, s);
		free(s);
	}
}

/*
 * verbose: the kernel's print_syscall_enter() names each argument's type,
 * the format file's spelling of it ("const char *const *", not the spacing
 * libtraceevent rebuilds); an exit prints as it does without.
 */
TEST(syscall_types_under_verbose)
{
	struct rec r = { 0 };

	put(&r, 8, 257, 4);
	put(&r, 16, 0xffffff9c, 8);
	put(&r, 24, 0x5649df134200ULL, 8);
	put(&r, 32, 0, 8);
	put(&r, 40, 9, 8);
	env.verbose = true;
	CHECK_OWNED(print_ret("syscalls", fmt_sys_enter, &r, NULL),
		    "sys_openat(int dfd: 0xffffff9c, const char * filename: 0x5649df134200, "
		    "int flags: 0, umode_t mode: 9)");
	r = (struct rec){ 0 };
	put(&r, 16, 0x7ffd019852f0ULL, 8);
	put(&r, 24, 0x7fcce7761a20ULL, 8);
	put(&r, 32, 4, 8);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_types, &r, NULL),
		    "sys_typed(const char *const * argv: 0x7ffd019852f0, "
		    "struct robust_list_head * * head: 0x7fcce7761a20, unsigned int fd: 4)");
	r = (struct rec){ 0 };
	put(&r, 16, (uint64_t)-2, 8);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_exit, &r, NULL),
		    "sys_openat -> 0xfffffffffffffffe");
	env.verbose = false;
	r = (struct rec){ 0 };
	put(&r, 32, 4, 8);
	CHECK_OWNED(print_ret("syscalls", fmt_sys_types, &r, NULL),
		    "sys_typed(argv: 0, head: 0, fd: 4)");
}

/* An hrtimer_start record and a syscall's with a string pointer, for the fields option. */
static const char fmt_timer_fields[] =
	"name: hrtimer_start\nID: 300\nformat:\n" FX_COMMON
	"\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 expires;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\tfield:enum hrtimer_mode mode;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:char c;\toffset:36;\tsize:1;\tsigned:1;\n\n"
	"print fmt: \"hrtimer=%p function=%ps\", REC->hrtimer, REC->function\n";

static const char fmt_str_fields[] =
	"name: sys_enter_mkdir\nID: 301\nformat:\n" FX_COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:const char * pathname;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:char * ks;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"pathname: 0x%08lx\", ((unsigned long)(REC->pathname))\n";

/* fmt_kfields() on rec, under the event of text (system sys). */
static char *fields_text(const char *sys, const char *text, struct rec *r)
{
	struct tep_handle *tep = fx_tep_new();
	struct tep_event *e;
	struct fmt_line out = { 0 };
	char *s;

	CHECK(tep_parse_event(tep, text, strlen(text), sys) == 0);
	e = tep_get_first_event(tep);
	env.tep = tep;
	fmt_kfields(&out, &env, e, e->id, r->d, r->size);
	s = strndup(out.p ? out.p : "", out.len);
	free(out.p);
	tep_free(tep);
	return s;
}

/*
 * The fields option, print_fields(): since 6.16 a pointer-sized field
 * prints through %pS (a function where kallsyms has one, the same hex
 * elsewhere), before it as hex; a string pointer as the pointer itself,
 * as many digits as a pointer has, with the kernel string printk_formats
 * gives it (tr's stand-in for the ring-buffer address 6.16 prints); a
 * Latin-1 letter is printable to the kernel's isprint().
 */
TEST(fields_symbols_and_string_pointers)
{
	struct rec r = { .size = 40 };

	put(&r, 8, 0xffff8881a5112ba8ULL, 8);
	put(&r, 16, 0xffffffff81300200ULL, 8);
	put(&r, 24, 74610154012557ULL, 8);
	put(&r, 32, 9, 4);
	put(&r, 36, 0xe9, 1);
	env.kver = 6 << 8 | 18;
	CHECK_OWNED(fields_text("timer", fmt_timer_fields, &r),
		    "hrtimer_start: hrtimer=0xffff8881a5112ba8 (-131384575186008) "
		    "function=vfs_read+0x0/0x100 (-2127560192) "
		    "expires=0x43db87b9ff8d (74610154012557) mode=0x9 (9) c='\xe9'(233)\n");
	/* A module's function names its module, as %pS does. */
	put(&r, 16, 0xffffffffc0001004ULL, 8);
	put(&r, 36, 0x7f, 1);
	CHECK_OWNED(fields_text("timer", fmt_timer_fields, &r),
		    "hrtimer_start: hrtimer=0xffff8881a5112ba8 (-131384575186008) "
		    "function=ext4_foo+0x4/0x40 [ext4] (-1073737724) "
		    "expires=0x43db87b9ff8d (74610154012557) mode=0x9 (9) c=(127)\n");
	env.kver = 6 << 8 | 15;
	put(&r, 16, 0xffffffff81300200ULL, 8);
	CHECK_OWNED(fields_text("timer", fmt_timer_fields, &r),
		    "hrtimer_start: hrtimer=0xffff8881a5112ba8 (-131384575186008) "
		    "function=0xffffffff81300200 (-2127560192) "
		    "expires=0x43db87b9ff8d (74610154012557) mode=0x9 (9) c=(127)\n");
	env.kver = 6 << 8 | 18;

	r = (struct rec){ .size = 32 };
	put(&r, 8, 83, 4);
	put(&r, 16, 0x55fe89e4ad70ULL, 8);
	put(&r, 24, 0xffffffff82521880ULL, 8);
	CHECK_OWNED(fields_text("syscalls", fmt_str_fields, &r),
		    "sys_enter_mkdir: __syscall_nr=0x53 (83) pathname=(0x000055fe89e4ad70) "
		    "ks=(0xffffffff82521880:mt_find)\n");
	env.kver = 0;
}

UNIT_MAIN(T(numbers), T(kernel_number_rules), T(strings), T(pointers_and_symbols),
	  T(network_and_ids), T(flags_and_symbols), T(hex_arrays_bitmasks), T(expressions),
	  T(kernel_output_functions), T(syscall_user_memory), T(probes), T(latency_tracer_samples), T(branch_and_mmiotrace),
	  T(blk_tracer_records), T(formats_with_newlines),
	  T(formats_libtraceevent_refuses), T(deep_nesting_refused),
	  T(short_records_fail_cleanly), T(syscall_types_under_verbose),
	  T(fields_symbols_and_string_pointers), T(memos_and_quick_lines),
	  T(memo_turns_off_and_follows_env))
