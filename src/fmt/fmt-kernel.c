// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's printer: see fmt-kernel.h.
 *
 * A print fmt is compiled once into segments -- literal text and
 * conversions -- each conversion holding the expression tree of its
 * argument.  Trees are evaluated per record with C's rules (integer
 * promotion, the usual arithmetic conversions, casts, pointer arithmetic),
 * and each conversion is formatted as the kernel's vsnprintf does (number()
 * and its flags, string(), pointer() and its extensions).  Constant
 * subtrees (the flag tables' masks, sched_switch's state arithmetic) are
 * folded when compiling, so the per-record work is reading fields and
 * writing digits, with no allocation.
 *
 * What cannot be known outside the running kernel makes a record fail
 * (KPROG_FAIL), so the caller prints it another way: an identifier no one
 * could resolve, a kernel string that printk_formats does not hold, a
 * helper or a %p extension not implemented here.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-kernel-local.h"
#include "tfile-expr.h"
#include "tfile.h"
#include "tfile-format.h"

void *kprog_mem(struct kprog *p, size_t n)
{
	void *m = xcalloc(1, n ? n : 1);

	if (p->nmem == p->capmem) {
		p->capmem = p->capmem ? p->capmem * 2 : 64;
		p->mem = xrealloc(p->mem, p->capmem * sizeof(*p->mem));
	}
	p->mem[p->nmem++] = m;
	return m;
}

void kprog_free(struct kprog *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nmem; i++)
		free(p->mem[i]);
	free(p->mem);
	free(p->segs);
	free(p->lit);
	free(p->text);
	free(p->fields);
	free(p->scratch.p);
	free(p->memos);
	free(p->fops);
	free(p);
}

/* ---- compiling a print fmt ---- */

/* The format string: literal text and conversions, as the kernel's format_decode() reads it. */
static bool parse_format(struct kprog *p, const char *f, size_t flen, struct conv **convs,
			 int *nconv)
{
	size_t cap = flen * 2 + 2, lit = 0;
	int segcap = flen + 2;

	p->lit = xmalloc(cap);
	p->segs = xcalloc(segcap, sizeof(*p->segs));
	*convs = NULL;
	*nconv = 0;
	for (size_t i = 0; i < flen;) {
		struct conv cv = { .width = -1, .prec = -1 };
		struct tfile_conv tc;
		size_t j, len;

		if (f[i] != '%' || (i + 1 < flen && f[i + 1] == '%')) {
			size_t start = lit;

			if (f[i] == '%')
				i++;
			p->lit[lit++] = f[i++];
			while (i < flen && f[i] != '%')
				p->lit[lit++] = f[i++];
			if (p->nseg && p->segs[p->nseg - 1].kind == S_LIT &&
			    p->segs[p->nseg - 1].off + p->segs[p->nseg - 1].len == start) {
				p->segs[p->nseg - 1].len += lit - start;
			} else {
				p->segs[p->nseg++] = (struct seg){ .kind = S_LIT, .off = start,
								   .len = lit - start };
			}
			continue;
		}
		len = tfile_conv_scan(f + i, flen - i, &tc);
		if (!len)
			return false;
		cv.flags = (tc.flags & TFILE_CONV_LEFT ? F_LEFT : 0) |
			   (tc.flags & TFILE_CONV_PLUS ? F_PLUS : 0) |
			   (tc.flags & TFILE_CONV_SPACE ? F_SPACE : 0) |
			   (tc.flags & TFILE_CONV_SPECIAL ? F_SPECIAL : 0) |
			   (tc.flags & TFILE_CONV_ZEROPAD ? F_ZEROPAD : 0);
		cv.width = tc.width;
		cv.prec = tc.prec;
		/* The kernel's modifiers: h, hh, l, ll, L, z (Z), t. */
		if (tc.qual_len == 2 && tc.qual[0] == tc.qual[1] &&
		    (tc.qual[0] == 'h' || tc.qual[0] == 'l'))
			cv.qual = tc.qual[0] == 'l' ? 'L' : 'H';
		else if (tc.qual_len == 1 && strchr("hlLzZt", tc.qual[0]))
			cv.qual = tc.qual[0] == 'Z' ? 'z' : tc.qual[0];
		else if (tc.qual_len)
			return false;
		cv.conv = tc.conv;
		if (!strchr("diuxXocsp", cv.conv))
			return false;
		if (cv.conv == 'p')
			memcpy(cv.ext, tc.ext, tc.ext_len < 7 ? tc.ext_len : 7);
		j = i + len + tc.ext_len;
		*convs = xrealloc(*convs, (*nconv + 1) * sizeof(**convs));
		(*convs)[(*nconv)++] = cv;
		p->segs[p->nseg++] = (struct seg){ .kind = S_CONV, .c = cv };
		i = j;
	}
	return true;
}

/* The "print fmt:" line of a format file, or the text itself. */
static const char *print_fmt_line(const char *text)
{
	const char *s = strstr(text, "print fmt:");

	if (s)
		return s + 10;
	return text;
}

static struct kprog *compile_special(const struct kenv *env, struct tep_event *e);
static struct tep_format_field *pf(const struct kprog *p, const char *name);

/*
 * Is n's value a function of the bytes of one numeric field alone (*off
 * and *size: that field; *off -1 before the first one is met)?  Numbers,
 * string literals, operators and the flag and symbol tables are; anything
 * that reads more of the record, a local, a symbol or a kernel string is
 * not.
 */
static bool one_field(const struct knode *n, int *off, int *size)
{
	if (!n)
		return true;
	switch (n->op) {
	case N_CONST:
	case N_STR:
		return true;
	case N_FIELD:
		if (n->t.ptr || (*off >= 0 && (n->off != *off || n->size != *size)))
			return false;
		*off = n->off;
		*size = n->size;
		return true;
	case N_CAST: case N_NEG: case N_BNOT: case N_LNOT: case N_BIN: case N_COND:
		return one_field(n->a, off, size) && one_field(n->b, off, size) &&
		       one_field(n->c, off, size);
	case N_CALL:
		if (n->sub != H_FLAGS && n->sub != H_FLAGS_U64 && n->sub != H_SYMBOLIC &&
		    n->sub != H_SYMBOLIC_U64)
			return false;
		for (int i = 0; i < n->nargs; i++)
			if (!one_field(n->args[i], off, size))
				return false;
		for (int i = 0; i < n->nent; i++)
			if (!one_field(n->ent[i].val, off, size))
				return false;
		return true;
	default:
		return false;
	}
}

/* Give a conversion its quick way (kconv_quick()) or its memo, where one fits. */
static void quicken(struct kprog *p, struct conv *cv)
{
	const struct knode *a = cv->arg;
	bool dec = cv->conv == 'd' || cv->conv == 'i' || cv->conv == 'u';
	int off = -1, size = 0;

	if (!cv->flags && cv->width < 0 && cv->prec < 0) {
		if (cv->conv == 's' && a->op == N_FIELD && a->t.ptr && a->elsize) {
			cv->quick = KQ_STR;
			return;
		}
		if (cv->conv == 's' && a->op == N_DYN) {
			cv->quick = KQ_DYN_STR;
			return;
		}
		if (dec && a->op == N_FIELD && !a->t.ptr) {
			cv->quick = KQ_DEC;
			return;
		}
		if (dec && a->op == N_CAST && !a->t.ptr && a->a->op == N_FIELD && !a->a->t.ptr) {
			cv->quick = KQ_CAST_DEC;
			return;
		}
	}
	/* Addresses print by symbol or as pointers: their values seldom repeat. */
	if (cv->conv == 'p' || !one_field(a, &off, &size) || off < 0 || p->nmemos >= 64)
		return;
	p->memos = xrealloc(p->memos, (p->nmemos + 1) * sizeof(*p->memos));
	p->memos[p->nmemos] = (struct kmemo){ .off = off, .size = size };
	cv->memo = ++p->nmemos;
}

/* run_fast()'s steps from the segments (every conversion quick or a memo). */
static void fast_ops(struct kprog *p)
{
	struct kfop *op;

	p->fops = xcalloc(p->nseg + 1, sizeof(*p->fops));
	op = p->fops;
	for (int i = 0; i < p->nseg; i++) {
		const struct seg *sg = &p->segs[i];
		const struct conv *cv = &sg->c;
		const struct knode *f = cv->arg;

		if (sg->kind == S_LIT) {
			op->lit_off = sg->off;
			op->lit_len = sg->len;
			op->kind = KF_END;	/* until a conversion follows */
			continue;
		}
		op->cv = cv;
		op->kind = cv->memo ? KF_MEMO : cv->quick;
		if (op->kind == KQ_CAST_DEC)
			f = f->a;
		op->off = f->off;
		op->size = f->size;
		op->rd_sign = f->t.sign && !f->t.ptr;
		op->dec_sign = cv->conv != 'u';
		op->qual = cv->qual;
		op++;
	}
	if (op->kind == KF_END)
		op++;
	p->nfops = op - p->fops;
}

/*
 * The print fmt's format string and arguments, read by the trace file
 * layer's parser (tfile-expr.h): the segments, each conversion with the
 * trees of its argument and of its '*' width and precision.
 */
static bool compile_args(struct kprog *p, const struct kenv *env, struct tep_event *e,
			 struct conv **convs, int *nconv)
{
	struct kbuild b = { .p = p, .env = env, .e = e };
	struct tfile_expr_opts o;
	struct tfile_print pr;
	const char *fmt;
	size_t flen;
	int ai = 0, ci = 0;
	bool ok = false;

	kbuild_opts(&b, &o);
	if (tfile_print_parse(p->text, strlen(p->text), &o, &pr))
		goto out;
	/* The format: one string literal, or several side by side. */
	fmt = kbuild_str(&b, pr.fmt, pr.fmt_len, &flen);
	if (!parse_format(p, fmt, flen, convs, nconv))
		goto out;
	for (int i = 0; i < p->nseg && !b.err; i++) {
		struct seg *sg = &p->segs[i];

		if (sg->kind != S_CONV)
			continue;
		if (sg->c.width == -2) {
			if (ai >= pr.nargs)
				break;
			sg->c.warg = kbuild_arg(&b, pr.args[ai++]);
			sg->c.width = -1;
		}
		if (sg->c.prec == -2) {
			if (ai >= pr.nargs)
				break;
			sg->c.parg = kbuild_arg(&b, pr.args[ai++]);
			sg->c.prec = -1;
		}
		if (ai >= pr.nargs)
			break;
		sg->c.arg = kbuild_arg(&b, pr.args[ai++]);
		ci++;
	}
	ok = !b.err && ai == pr.nargs && ci == *nconv;
out:
	tfile_print_free(&pr);
	return ok;
}

struct kprog *kprog_compile(const struct kenv *env, struct tep_event *e, const char *text)
{
	struct kprog *p;
	struct conv *convs = NULL;
	int nconv = 0;
	const char *s;

	p = compile_special(env, e);
	if (p && p->sp == SP_FTRACE_OTHER) {
		kprog_free(p);
		return NULL;
	}
	if (p && p->sp == SP_SYS_ENTER)
		ksys_compile(p, e, text);
	if (p && p->sp != SP_KPROBE && p->sp != SP_KRETPROBE)
		return p;
	if (!text) {
		kprog_free(p);
		return NULL;
	}
	if (!p)
		p = xcalloc(1, sizeof(*p));
	s = print_fmt_line(text);
	/*
	 * The line ends at a newline outside the string literals: some kernels
	 * (6.1) write a "\n" in a format's string as a newline.
	 */
	{
		const char *e = s;
		bool quoted = false;
		size_t n;

		for (; *e && (quoted || *e != '\n'); e++) {
			if (*e == '\\' && quoted && e[1])
				e++;
			else if (*e == '"')
				quoted = !quoted;
		}
		n = e - s;
		p->text = xmalloc(n + 1);
		memcpy(p->text, s, n);
		p->text[n] = '\0';
	}
	if (!compile_args(p, env, e, &convs, &nconv))
		goto fail;
	for (int i = 0; i < p->nseg; i++) {
		struct conv *cv = &p->segs[i].c;

		if (p->segs[i].kind == S_CONV && cv->arg && !cv->warg && !cv->parg)
			quicken(p, cv);
	}
	p->fast = p->sp == SP_NONE;
	for (int i = 0; i < p->nseg && p->fast; i++) {
		const struct seg *sg = &p->segs[i];

		if (sg->kind == S_LIT)
			p->fast_max += sg->len;
		else if (sg->c.memo)
			p->fast_max += KMEMO_TEXT;
		else if (sg->c.quick == KQ_DEC || sg->c.quick == KQ_CAST_DEC)
			p->fast_max += 21;	/* "-9223372036854775808" */
		else if (sg->c.quick == KQ_STR && sg->c.arg->size)
			p->fast_max += sg->c.arg->size;
		else if (sg->c.quick)
			p->fast_nvar++;
		else
			p->fast = false;
	}
	if (p->fast)
		fast_ops(p);
	free(convs);
	return p;
fail:
	free(convs);
	kprog_free(p);
	return NULL;
}

/* ---- events the kernel prints with functions of their own ---- */

static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return tep_find_field(e, name);
}

bool kprog_own_printer(const struct tep_event *e)
{
	return !strcmp(e->system, "syscalls") && tep_find_field((struct tep_event *)e, "__syscall_nr") &&
	       (!strncmp(e->name, "sys_enter_", 10) || !strncmp(e->name, "sys_exit_", 9));
}

/*
 * The latency tracers' samples print through their own functions in the
 * kernel (trace_output.c), not their formats' print fmts: these fields,
 * read by name, whatever their size.
 */
static const char *const hwlat_fields[] = { "seqnum", "duration", "outer_duration", "tv_sec",
					    "tv_nsec", "count", "nmi_count", "nmi_total_ts", NULL };
static const char *const osnoise_fields[] = { "runtime", "noise", "max_sample", "hw_count",
					      "nmi_count", "irq_count", "softirq_count",
					      "thread_count", NULL };
static const char *const timerlat_fields[] = { "seqnum", "context", "timer_latency", NULL };
/* The branch tracer's and mmiotrace's records: trace_branch.c's and trace_mmiotrace.c's. */
static const char *const mmio_rw_fields[] = { "phys", "value", "pc", "map_id", "opcode", "width",
					      NULL };
static const char *const mmio_map_fields[] = { "phys", "virt", "len", "map_id", "opcode", NULL };

static bool has_fields(struct tep_event *e, const char *const *names)
{
	for (; *names; names++) {
		struct tep_format_field *f = field(e, *names);

		if (!f || f->size < 1 || f->size > 8 || (f->flags & TEP_FIELD_IS_ARRAY))
			return false;
	}
	return true;
}

static struct kprog *compile_special(const struct kenv *env, struct tep_event *e)
{
	struct kprog *p;
	enum special sp = SP_NONE;
	struct tep_format_field *f;
	int nf = 0;

	(void)env;
	if (!strcmp(e->system, "syscalls") && field(e, "__syscall_nr")) {
		if (!strncmp(e->name, "sys_enter_", 10))
			sp = SP_SYS_ENTER;
		else if (!strncmp(e->name, "sys_exit_", 9) && field(e, "ret"))
			sp = SP_SYS_EXIT;
	} else if (!strcmp(e->system, "ftrace")) {
		/* The others' formats are not what the kernel prints: not ours. */
		if (!strcmp(e->name, "print") && field(e, "ip") && field(e, "buf"))
			sp = SP_PRINT;
		else if (!strcmp(e->name, "bputs") && field(e, "ip") && field(e, "str"))
			sp = SP_BPUTS;
		else if (!strcmp(e->name, "raw_data") && field(e, "id") && field(e, "buf"))
			sp = SP_RAW_DATA;
		else if (!strcmp(e->name, "function") && field(e, "ip") && field(e, "parent_ip"))
			sp = SP_FUNCTION;
		else if (!strcmp(e->name, "kernel_stack") && field(e, "caller"))
			sp = SP_STACK;
		else if (!strcmp(e->name, "user_stack") && field(e, "caller"))
			sp = SP_USER_STACK;
		else if (!strcmp(e->name, "hwlat") && has_fields(e, hwlat_fields))
			sp = SP_HWLAT;
		else if (!strcmp(e->name, "osnoise") && has_fields(e, osnoise_fields))
			sp = SP_OSNOISE;
		else if (!strcmp(e->name, "timerlat") && has_fields(e, timerlat_fields))
			sp = SP_TIMERLAT;
		else if (!strcmp(e->name, "branch") && field(e, "line") && field(e, "func") &&
			 field(e, "file") && field(e, "correct"))
			sp = SP_BRANCH;
		else if (!strcmp(e->name, "mmiotrace_rw") && has_fields(e, mmio_rw_fields))
			sp = SP_MMIO_RW;
		else if (!strcmp(e->name, "mmiotrace_map") && has_fields(e, mmio_map_fields))
			sp = SP_MMIO_MAP;
		else
			sp = SP_FTRACE_OTHER;
	} else if ((f = field(e, "__probe_ip")) && f == e->format.fields) {
		sp = SP_KPROBE;		/* uprobe or kprobe: told apart by the address */
	} else if ((f = field(e, "__probe_func")) && f == e->format.fields &&
		   field(e, "__probe_ret_ip")) {
		sp = SP_KRETPROBE;
	}
	if (sp == SP_NONE)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->sp = sp;
	if (sp == SP_FTRACE_OTHER)
		return p;
	for (f = e->format.fields; f; f = f->next)
		nf++;
	p->fields = xcalloc(nf + 1, sizeof(*p->fields));
	for (f = e->format.fields; f; f = f->next)
		p->fields[p->nfields++] = f;
	switch (sp) {
	case SP_SYS_ENTER:
	case SP_SYS_EXIT: {
		const char *n = e->name + (sp == SP_SYS_ENTER ? 10 : 9);
		char *s = kprog_mem(p, strlen(n) + 5);

		sprintf(s, "sys_%s", n);
		p->sysname = s;
		for (int i = 1; i < p->nfields; i++)
			if (p->fields[i]->size != 8 && p->fields[i]->size != 4) {
				kprog_free(p);
				return NULL;
			}
		break;
	}
	case SP_KPROBE:
	case SP_KRETPROBE:
		p->ip_off = p->fields[0]->offset;
		if (sp == SP_KRETPROBE)
			p->ip2_off = field(e, "__probe_ret_ip")->offset;
		break;
	case SP_PRINT:
	case SP_BPUTS:
		p->f_ip = pf(p, "ip");
		p->f_text = pf(p, sp == SP_PRINT ? "buf" : "str");
		break;
	default:
		break;
	}
	return p;
}

/*
 * func-args (6.15+): the registers saved after parent_ip, when the record
 * holds all of them (the kernel's test: FTRACE_REGS_MAX_ARGS longs), printed
 * by name from the BTF, else plain in hex, as print_function_args() does.
 */
static void func_args(struct fmt_line *o, const struct kenv *env, struct ectx *c,
		      const struct krec *r, uint64_t ip, uint32_t off)
{
	enum { NARGS = 6 };
	uint64_t args[NARGS];
	char buf[512];
	int ls = env->long_size;

	if ((uint64_t)off + NARGS * ls > r->size)
		return;
	for (int i = 0; i < NARGS; i++)
		args[i] = krd(c, r->data + off + i * ls, ls, false);
	if (env->func_args && env->func_args(env->ctx, ip, args, NARGS, buf, sizeof(buf))) {
		fmt_line_printf(o, "(%s)", buf);
		return;
	}
	kput(o, "(", 1);
	for (int i = 0; i < NARGS; i++)
		fmt_line_printf(o, "%s0x%" PRIx64, i ? ", " : "", args[i]);
	kput(o, ")", 1);
}

static struct tep_format_field *pf(const struct kprog *p, const char *name)
{
	for (int i = 0; i < p->nfields; i++)
		if (!strcmp(p->fields[i]->name, name))
			return p->fields[i];
	return NULL;
}

/*
 * --user-syms: " FUNC+0xOFF" after the object, perf's symbol+offset, from
 * the object's ELF.  Its place in memory is its lowest mapping's (the one
 * of file offset 0; the map stores no offsets): the mappings of one object
 * sit together in the map, anonymous ones (its .bss) being left out.
 */
static void user_sym(struct fmt_line *o, const struct kenv *env, const struct tfile_procmap *mm,
		     const struct tfile_vma *v, uint64_t ip)
{
	const struct tfile_vma *low = v;
	const char *name;
	uint64_t off;

	while (low > mm->vmas && !strcmp(low[-1].name, v->name))
		low--;
	name = env->user_sym(env->ctx, v->name, low->start, ip, &off);
	if (name)
		fmt_line_printf(o, " %s+0x%llx", name, (unsigned long long)off);
}

/*
 * A user stack's entry as seq_print_user_ip() prints it: with the process's
 * map, the object of the mapping find_vma() gives and the offset from that
 * mapping's start (which wraps for an address below it, as the kernel's
 * does); the address itself without a file there, or under sym-addr.
 * Only paths are files: [heap], [stack], [vdso] and the like are not.
 */
static void user_ip(struct fmt_line *o, const struct kenv *env, const struct tfile_procmap *mm,
		    uint64_t ip)
{
	const struct tfile_vma *v = mm ? tfile_procmap_find(mm, ip) : NULL;
	bool file = v && v->name[0] == '/';
	int ls = env->long_size;

	if (file) {
		uint64_t off = ip - v->start;

		if (ls == 4)
			off &= UINT32_MAX;
		fmt_line_printf(o, "%s[+0x%llx]", v->name, (unsigned long long)off);
		if (env->user_sym && ip >= v->start)
			user_sym(o, env, mm, v, ip);
	}
	if (!file || env->sym_addr)
		fmt_line_printf(o, " <%0*llx>", 2 * ls, (unsigned long long)ip);
}

/* sym-addr: " <ffffffff81234567>" after an address printed by symbol. */
static void sym_addr(struct fmt_line *o, const struct kenv *env, uint64_t ip)
{
	if (env->sym_addr)
		fmt_line_printf(o, " <%0*llx>", 2 * env->long_size, (unsigned long long)ip);
}

enum { OFF_NEVER = -1, OFF_OPTION, OFF_ALWAYS };

/*
 * kretprobed() in trace_output.c: an address that is the kretprobe
 * trampoline's (a return address rewritten by another kretprobe on the
 * same function) prints as "[unknown/kretprobe'd]".  The trampoline is
 * arch_rethook_trampoline with rethook (x86 since 6.0),
 * __kretprobe_trampoline before, kretprobe_trampoline before 5.15.
 */
static bool kretprobed(const struct kenv *env, uint64_t ip, struct fmt_line *o)
{
	const char *name, *mod;
	uint64_t start, size;

	if (!env->sym || !env->sym(env->ctx, ip, &name, &start, &size, &mod) || ip != start ||
	    mod)
		return false;
	if (strcmp(name, "arch_rethook_trampoline") && strcmp(name, "__kretprobe_trampoline") &&
	    strcmp(name, "kretprobe_trampoline"))
		return false;
	kput(o, "[unknown/kretprobe'd]", 21);
	return true;
}

/*
 * seq_print_ip_sym(): the symbol's name (with +off/size under sym-offset,
 * or always or never as the caller's flags force it), then its address
 * under sym-addr; 0 for none.  False for an address no symbol covers.
 */
static bool ip_sym(struct fmt_line *o, const struct kenv *env, uint64_t ip, int offset)
{
	const char *name, *mod;
	uint64_t start, size;

	if (!ip) {
		kput(o, "0", 1);
		return true;
	}
	if (!env->sym || !env->sym(env->ctx, ip, &name, &start, &size, &mod))
		return false;
	if (kretprobed(env, ip, o))
		;
	else if (offset == OFF_ALWAYS || (offset == OFF_OPTION && env->sym_offset))
		ksymbol(o, env, ip, "S", 0, -1, -1);
	else
		kput(o, name, strlen(name));
	sym_addr(o, env, ip);
	return true;
}

/* A field of the record as a number (sign-extended when signed); false past its end. */
static bool num(const struct kprog *p, struct ectx *c, const char *name, uint64_t *v)
{
	struct tep_format_field *f = pf(p, name);

	if (!f || (uint64_t)f->offset + f->size > c->r->size)
		return false;
	*v = krd(c, c->r->data + f->offset, f->size, (f->flags & TEP_FIELD_IS_SIGNED) != 0);
	return true;
}

/*
 * hwlat, osnoise and timerlat as trace_output.c prints them.  hwlat's
 * nmi-total is printed where sched_clock is NMI-safe (x86; not the generic
 * sched_clock of other architectures, which the file does not tell).
 */
static int latency_sample(const struct kprog *p, struct ectx *c, const struct krec *r,
			  struct fmt_line *o)
{
	uint64_t v[8];

	(void)r;
	switch (p->sp) {
	case SP_HWLAT:
		for (int i = 0; i < 8; i++)
			if (!num(p, c, hwlat_fields[i], &v[i]))
				return KPROG_FAIL;
		fmt_line_printf(o, "#%-5u inner/outer(us): %4llu/%-5llu ts:%lld.%09ld count:%d",
			(unsigned)v[0], (unsigned long long)v[1], (unsigned long long)v[2],
			(long long)v[3], (long)v[4], (int)v[5]);
		if ((unsigned)v[6])
			fmt_line_printf(o, " nmi-total:%llu nmi-count:%u", (unsigned long long)v[7],
				(unsigned)v[6]);
		return KPROG_LINE;
	case SP_OSNOISE: {
		uint64_t ratio = 0, dec = 0;

		for (int i = 0; i < 8; i++)
			if (!num(p, c, osnoise_fields[i], &v[i]))
				return KPROG_FAIL;
		/* The share of the runtime left to the workload, in 1/100000 percent. */
		if (v[0]) {
			ratio = (v[0] - v[1]) * 10000000 / v[0];
			dec = ratio % 100000;
			ratio /= 100000;
		}
		fmt_line_printf(o, "%llu %10llu %3llu.%05llu %7llu", (unsigned long long)v[0],
			(unsigned long long)v[1], (unsigned long long)ratio, (unsigned long long)dec,
			(unsigned long long)v[2]);
		for (int i = 3; i < 8; i++)
			fmt_line_printf(o, " %6u", (unsigned)v[i]);
		return KPROG_LINE;
	}
	default:
		for (int i = 0; i < 3; i++)
			if (!num(p, c, timerlat_fields[i], &v[i]))
				return KPROG_FAIL;
		fmt_line_printf(o, "#%-5u context %6s timer_latency %9llu ns", (unsigned)v[0],
			v[1] ? "thread" : "irq", (unsigned long long)v[2]);
		return KPROG_LINE;
	}
}

/* A char array field of the record, up to its NUL; NULL past the record's end. */
static const char *chars(const struct kprog *p, const struct krec *r, const char *name, int *n)
{
	struct tep_format_field *f = pf(p, name);

	if (!f || (uint64_t)f->offset + f->size > r->size)
		return NULL;
	*n = (int)strnlen((const char *)r->data + f->offset, f->size);
	return (const char *)r->data + f->offset;
}

/*
 * trace_branch_print(): "[  ok  ] func:file:line", no name before it, as
 * for the function tracer's records.  mmiotrace's lines
 * (mmio_print_rw(), mmio_print_map()) are the whole line in the kernel's
 * trace file, the time in them in microseconds (ns2usecs() rounds).
 */
static int branch_mmio(const struct kprog *p, struct ectx *c, const struct krec *r,
		       struct fmt_line *o)
{
	uint64_t v[6], us = (r->raw_ts + 500) / 1000;
	unsigned secs = (unsigned)(us / 1000000);
	unsigned long rem = (unsigned long)(us % 1000000);
	const char *const *names = p->sp == SP_MMIO_RW ? mmio_rw_fields : mmio_map_fields;

	if (p->sp == SP_BRANCH) {
		const char *fn, *file;
		int nfn, nfile;
		uint64_t line, ok;

		fn = chars(p, r, "func", &nfn);
		file = chars(p, r, "file", &nfile);
		if (!fn || !file || !num(p, c, "line", &line) || !num(p, c, "correct", &ok))
			return KPROG_FAIL;
		fmt_line_printf(o, "[%s] %.*s:%.*s:%d", (ok & 0xff) ? "  ok  " : " MISS ", nfn, fn,
				nfile, file, (int)line);
		return KPROG_LINE;
	}
	for (int i = 0; names[i]; i++)
		if (!num(p, c, names[i], &v[i]))
			return KPROG_FAIL;
	if (p->sp == SP_MMIO_RW) {
		/* phys, value, pc, map_id, opcode, width; READ 1, WRITE 2, UNKNOWN_OP 5. */
		switch (v[4] & 0xff) {
		case 1:
		case 2:
			fmt_line_printf(o, "%c %d %u.%06lu %d 0x%llx 0x%llx 0x%llx 0", v[4] == 1 ? 'R' : 'W',
					(int)(v[5] & 0xff), secs, rem, (int)v[3], (unsigned long long)v[0],
					(unsigned long long)v[1], (unsigned long long)v[2]);
			break;
		case 5:
			fmt_line_printf(o, "UNKNOWN %u.%06lu %d 0x%llx %02llx,%02llx,%02llx 0x%llx 0",
					secs, rem, (int)v[3], (unsigned long long)v[0],
					(unsigned long long)(v[1] >> 16 & 0xff),
					(unsigned long long)(v[1] >> 8 & 0xff),
					(unsigned long long)(v[1] & 0xff), (unsigned long long)v[2]);
			break;
		default:
			fmt_line_printf(o, "rw what?");
		}
		return KPROG_LINE;
	}
	/* phys, virt, len, map_id, opcode; PROBE 3, UNPROBE 4. */
	if ((v[4] & 0xff) == 3)
		fmt_line_printf(o, "MAP %u.%06lu %d 0x%llx 0x%llx 0x%llx 0x0 0", secs, rem, (int)v[3],
				(unsigned long long)v[0], (unsigned long long)v[1],
				(unsigned long long)v[2]);
	else if ((v[4] & 0xff) == 4)
		fmt_line_printf(o, "UNMAP %u.%06lu %d 0x0 0", secs, rem, (int)v[3]);
	else
		fmt_line_printf(o, "map what?");
	return KPROG_LINE;
}

static int run_special(const struct kprog *p, struct ectx *c, struct fmt_line *o)
{
	const struct krec *r = c->r;
	const struct kenv *env = c->env;
	struct tep_format_field *f;
	bool kern;

	switch (p->sp) {
	case SP_SYS_ENTER:
		return ksys_enter(p, c, o);
	case SP_SYS_EXIT:
		f = pf(p, "ret");
		if ((uint64_t)f->offset + f->size > r->size)
			return KPROG_FAIL;
		kput(o, p->sysname, strlen(p->sysname));
		kput(o, " -> 0x", 6);
		knumber(o, krd(c, r->data + f->offset, f->size, true), 16, F_SMALL, -1, -1);
		return KPROG_LINE;
	case SP_PRINT:
	case SP_BPUTS: {
		struct tep_format_field *ip = p->f_ip, *buf = p->f_text;
		uint64_t v;

		if ((uint64_t)ip->offset + ip->size > r->size || buf->offset > (int)r->size)
			return KPROG_FAIL;
		/* Under mmiotrace its mmio_print_mark() prints a marker, the time in us. */
		if (p->sp == SP_PRINT && env->mmiotrace) {
			const char *s = (const char *)r->data + buf->offset;
			size_t n = strnlen(s, r->size - buf->offset);
			uint64_t us = (r->raw_ts + 500) / 1000;

			fmt_line_printf(o, "MARK %u.%06lu %.*s", (unsigned)(us / 1000000),
					(unsigned long)(us % 1000000),
					(int)(n && s[n - 1] == '\n' ? n - 1 : n), s);
			return KPROG_LINE;
		}
		if (!ip_sym(o, env, krd(c, r->data + ip->offset, ip->size, false), OFF_OPTION))
			return KPROG_FAIL;
		kput(o, ": ", 2);
		if (p->sp == SP_PRINT) {
			const char *s = (const char *)r->data + buf->offset;
			size_t n = strnlen(s, r->size - buf->offset);

			/* The write's newline ends the kernel's line (it adds none). */
			if (n && s[n - 1] == '\n')
				n--;
			kput(o, s, n);
			return KPROG_LINE;
		}
		/* bputs: the string is the kernel's, by address. */
		if ((uint64_t)buf->offset + buf->size > r->size)
			return KPROG_FAIL;
		v = krd(c, r->data + buf->offset, buf->size, false);
		{
			const char *s = env->string ? env->string(env->ctx, v) : NULL;

			if (!s)
				return KPROG_FAIL;
			kput(o, s, strlen(s) - (*s && s[strlen(s) - 1] == '\n'));
		}
		return KPROG_LINE;
	}
	case SP_RAW_DATA: {
		struct tep_format_field *id = pf(p, "id"), *buf = pf(p, "buf");

		if ((uint64_t)id->offset + 4 > r->size || buf->offset > (int)r->size)
			return KPROG_FAIL;
		fmt_line_printf(o, "# %x buf:", (unsigned)krd(c, r->data + id->offset, 4, false));
		for (uint32_t i = buf->offset; i < r->size; i++)
			fmt_line_printf(o, " %02x", r->data[i]);
		return KPROG_LINE;
	}
	case SP_HWLAT:
	case SP_OSNOISE:
	case SP_TIMERLAT:
		return latency_sample(p, c, r, o);
	case SP_BRANCH:
	case SP_MMIO_RW:
	case SP_MMIO_MAP:
		return branch_mmio(p, c, r, o);
	case SP_FUNCTION: {
		struct tep_format_field *ip = pf(p, "ip"), *pip = pf(p, "parent_ip");
		uint64_t parent;

		if ((uint64_t)ip->offset + ip->size > r->size ||
		    (uint64_t)pip->offset + pip->size > r->size)
			return KPROG_FAIL;
		if (!ip_sym(o, env, krd(c, r->data + ip->offset, ip->size, false), OFF_OPTION))
			return KPROG_FAIL;
		func_args(o, env, c, r, krd(c, r->data + ip->offset, ip->size, false),
			  (uint32_t)pip->offset + pip->size);
		parent = krd(c, r->data + pip->offset, pip->size, false);
		if (parent && !env->no_parent) {
			kput(o, " <-", 3);
			if (!ip_sym(o, env, parent, OFF_OPTION))
				return KPROG_FAIL;
		}
		return KPROG_LINE;
	}
	case SP_STACK:
	case SP_USER_STACK: {
		struct tep_format_field *cf = pf(p, "caller"), *tg = pf(p, "tgid");
		const struct tfile_procmap *mm = NULL;
		int ls = env->long_size;

		if (cf->offset > (int)r->size)
			return KPROG_FAIL;
		/* The kernel looks the process up by the record's tgid, as it prints. */
		if (p->sp == SP_USER_STACK && env->userobj && env->procmap && tg &&
		    tg->size == 4 && (uint64_t)tg->offset + 4 <= r->size)
			mm = env->procmap(env->ctx, (int)krd(c, r->data + tg->offset, 4, false));
		kput(o, p->sp == SP_STACK ? "<stack trace>\n" : "<user stack trace>\n",
		     p->sp == SP_STACK ? 14 : 19);
		for (uint32_t off = cf->offset; off + ls <= r->size; off += ls) {
			uint64_t v = krd(c, r->data + off, ls, false);

			if ((p->sp == SP_STACK && v == (ls == 8 ? UINT64_MAX : UINT32_MAX)) ||
			    (p->sp == SP_USER_STACK && !v))
				break;
			kput(o, " => ", 4);
			if (p->sp == SP_USER_STACK) {
				user_ip(o, env, mm, v);
			} else if (v == 0x7fffffff) {
				kput(o, "[FTRACE TRAMPOLINE]", 19);
			} else if (!ip_sym(o, env, v, OFF_OPTION)) {
				return KPROG_FAIL;
			}
			kput(o, "\n", 1);
		}
		/* Each entry's line ends with a newline; the last one ends the record's. */
		if (o->len && o->p[o->len - 1] == '\n')
			o->len--;
		return KPROG_LINE;
	}
	case SP_KPROBE:
	case SP_KRETPROBE: {
		int ls = env->long_size;
		uint64_t ip, ret = 0;
		int skip = p->sp == SP_KPROBE ? 1 : 2;

		if ((uint64_t)p->ip_off + ls > r->size ||
		    (p->sp == SP_KRETPROBE && (uint64_t)p->ip2_off + ls > r->size))
			return KPROG_FAIL;
		ip = krd(c, r->data + p->ip_off, ls, false);
		if (p->sp == SP_KRETPROBE)
			ret = krd(c, r->data + p->ip2_off, ls, false);
		/* A kernel address: a kprobe, printed by symbol; a uprobe's is a number. */
		kern = ls == 8 ? ip >> 63 : ip >> 31;
		kput(o, "(", 1);
		if (p->sp == SP_KRETPROBE) {
			/* The return address with its offset, the function without. */
			if (kern) {
				if (!kretprobed(env, ret, o))
					ksymbol(o, env, ret, "S", 0, -1, -1);
				sym_addr(o, env, ret);
				kput(o, " <- ", 4);
				if (!ip_sym(o, env, ip, OFF_NEVER))
					return KPROG_FAIL;
			} else {
				fmt_line_printf(o, "0x%llx <- 0x%llx", (unsigned long long)ret,
					 (unsigned long long)ip);
			}
		} else if (kern) {
			if (!kretprobed(env, ip, o))
				ksymbol(o, env, ip, "S", 0, -1, -1);
			sym_addr(o, env, ip);
		} else {
			fmt_line_printf(o, "0x%llx", (unsigned long long)ip);
		}
		/*
		 * The arguments: the print fmt's rest, which the kernel builds
		 * from the same per-type formats its own printer uses (after
		 * "(%lx" or "(%lx <- %lx").
		 */
		for (int i = 0; i < p->nseg; i++) {
			const struct seg *sg = &p->segs[i];

			if (sg->kind == S_CONV && skip > 0) {
				skip--;
				continue;
			}
			if (skip)
				continue;
			if (sg->kind == S_LIT)
				kput(o, p->lit + sg->off, sg->len);
			else if (!kconv_run(c, &sg->c, o))
				return KPROG_FAIL;
		}
		return skip ? KPROG_FAIL : KPROG_TEXT;
	}
	default:
		return KPROG_FAIL;
	}
}

#define KMEMO_WINDOW 1024

static inline unsigned kmemo_slot(uint64_t key)
{
	return (unsigned)((key * 0x9e3779b97f4a7c15ULL) >> 60) & (KMEMO_SLOTS - 1);
}

/* kconv_run() of a conversion with a memo (see struct kmemo): the same text. */
static bool kconv_memo(struct kmemo *m, struct ectx *c, const struct conv *cv,
		       struct fmt_line *o)
{
	const struct krec *r = c->r;
	uint64_t key = 0;
	size_t start = o->len;
	unsigned h;

	if (m->disabled || (uint64_t)m->off + m->size > r->size)
		return kconv_run(c, cv, o);
	if (m->env != c->env) {
		memset(m->slot, 0, sizeof(m->slot));
		m->env = c->env;
	}
	/* The bytes as they are: whatever their order, the same bytes print the same. */
	memcpy(&key, r->data + m->off, m->size);
	h = kmemo_slot(key);
	if (++m->lookups == KMEMO_WINDOW) {
		if (m->misses > KMEMO_WINDOW / 4)
			m->disabled = true;
		m->lookups = m->misses = 0;
	}
	if (m->slot[h].len && m->slot[h].key == key) {
		kput(o, m->slot[h].text, m->slot[h].len - 1);
		return true;
	}
	m->misses++;
	if (!kconv_run(c, cv, o))
		return false;
	/* An empty text too ("" of sched_switch's "+" most times). */
	if (o->len - start < KMEMO_TEXT) {
		m->slot[h].key = key;
		m->slot[h].len = o->len - start + 1;
		if (o->len > start)
			memcpy(m->slot[h].text, o->p + start, o->len - start);
	}
	return true;
}

/*
 * strnlen() of a 16-byte char array (a task's comm, the commonest string of
 * all) without the call: the first zero byte of two 8-byte words.
 */
static inline uint32_t comm_len(const char *s)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t w, z;

	memcpy(&w, s, 8);
	/* The lowest flagged byte is the first zero one (those above may be false). */
	if ((z = (w - ones) & ~w & highs))
		return __builtin_ctzll(z) >> 3;
	memcpy(&w, s + 8, 8);
	if ((z = (w - ones) & ~w & highs))
		return 8 + (__builtin_ctzll(z) >> 3);
	return 16;
#else
	return strnlen(s, 16);
#endif
}

/*
 * kprog_run() of a program whose conversions are all quick or memos
 * (p->fast): the same text, written straight into the line.
 */
static bool run_fast(const struct kprog *p, struct ectx *c, struct fmt_line *out)
{
	const struct krec *r = c->r;
	size_t need = p->fast_max + (size_t)p->fast_nvar * r->size;
	const struct kfop *op = p->fops, *end = op + p->nfops;
	char *o;

	fmt_line_grow(out, need);
	o = out->p + out->len;
	for (; op < end; op++) {
		const char *s;
		uint32_t n;
		uint64_t v;

		fmt_copy(o, p->lit + op->lit_off, op->lit_len);
		o += op->lit_len;
		switch (op->kind) {
		case KF_END:
			continue;
		case KQ_STR:
			if ((uint64_t)op->off + op->size > r->size)
				return false;
			s = (const char *)r->data + op->off;
			if (op->size == 16)
				n = comm_len(s);
			else
				n = strnlen(s, op->size ? (uint32_t)op->size : r->size - op->off);
			fmt_copy(o, s, n);
			o += n;
			continue;
		case KQ_DYN_STR: {
			const uint8_t *d;

			if (!kdyn_span(c, op->cv->arg, &d, &n))
				return false;
			n = strnlen((const char *)d, n);
			fmt_copy(o, (const char *)d, n);
			o += n;
			continue;
		}
		case KQ_DEC:
		case KQ_CAST_DEC: {
			int k;

			if ((uint64_t)op->off + op->size > r->size)
				return false;
			v = krd(c, r->data + op->off, op->size, op->rd_sign);
			if (op->kind == KQ_CAST_DEC)
				v = kconv_to(v, op->cv->arg->t);
			v = kqual(v, op->qual, op->dec_sign, c->env->long_size);
			if (op->dec_sign && (int64_t)v < 0) {
				*o++ = '-';
				v = -v;
			}
			k = fmt_u_len(v);
			fmt_u_digits(o + k, v);
			o += k;
			continue;
		}
		default: {
			struct kmemo *m = &p->memos[op->cv->memo - 1];
			unsigned h;

			/* A value seen before, as kconv_memo() finds it; the rest goes there. */
			if (!m->disabled && m->env == c->env &&
			    (uint64_t)m->off + m->size <= r->size) {
				v = 0;
				memcpy(&v, r->data + m->off, m->size);
				h = kmemo_slot(v);
				if (m->slot[h].len && m->slot[h].key == v &&
				    m->lookups + 1 < KMEMO_WINDOW) {
					m->lookups++;
					fmt_copy(o, m->slot[h].text, m->slot[h].len - 1);
					o += m->slot[h].len - 1;
					continue;
				}
			}
			out->len = o - out->p;
			if (!kconv_memo(m, c, op->cv, out))
				return false;
			fmt_line_grow(out, need);
			o = out->p + out->len;
		}
		}
	}
	out->len = o - out->p;
	return true;
}

int kprog_run(const struct kprog *p, const struct kenv *env, const struct krec *r,
	      struct fmt_line *out)
{
	/* The scratch line is the program's: one thread prints with it at a time. */
	struct fmt_line *scratch = &((struct kprog *)p)->scratch;
	struct ectx c;
	size_t start = out->len;
	int ret = KPROG_TEXT;

	/*
	 * Not "= { ... }": zeroing the 64 locals cost a tenth of a report of
	 * markers.  Only those the program declares are used.
	 */
	c.env = env;
	c.r = r;
	c.scratch = scratch;
	memset(c.locals, 0, (p->nlocals < 64 ? p->nlocals : 64) * sizeof(c.locals[0]));

	if (p->sp != SP_NONE) {
		ret = run_special(p, &c, out);
		goto done;
	}
	if (p->fast) {
		if (!run_fast(p, &c, out))
			ret = KPROG_FAIL;
		goto done;
	}
	for (int i = 0; i < p->nseg; i++) {
		const struct seg *sg = &p->segs[i];

		if (sg->kind == S_LIT) {
			kput(out, p->lit + sg->off, sg->len);
			continue;
		}
		if (!(sg->c.quick ? kconv_quick(&c, &sg->c, out) :
		      sg->c.memo ? kconv_memo(&p->memos[sg->c.memo - 1], &c, &sg->c, out) :
		      kconv_run(&c, &sg->c, out))) {
			ret = KPROG_FAIL;
			break;
		}
	}
done:
	scratch->len = 0;
	if (ret == KPROG_FAIL)
		out->len = start;
	return ret;
}

bool knode_needs_symbols(const struct knode *n)
{
	if (!n)
		return false;
	if (n->op == N_UNKNOWN && !strcmp(n->s, "vmemmap_base"))
		return true;
	if (knode_needs_symbols(n->a) || knode_needs_symbols(n->b) || knode_needs_symbols(n->c))
		return true;
	for (int i = 0; i < n->nargs; i++)
		if (knode_needs_symbols(n->args[i]))
			return true;
	return false;
}



bool kprog_needs_symbols(const struct kprog *p)
{
	switch (p->sp) {
	case SP_NONE:
		break;
	case SP_SYS_ENTER: case SP_SYS_EXIT: case SP_RAW_DATA: case SP_USER_STACK:
	case SP_HWLAT: case SP_OSNOISE: case SP_TIMERLAT:
	case SP_BRANCH: case SP_MMIO_RW: case SP_MMIO_MAP:
		return false;
	default:
		return true;
	}
	for (int i = 0; i < p->nseg; i++) {
		const struct conv *c = &p->segs[i].c;

		if (p->segs[i].kind != S_CONV)
			continue;
		if (c->conv == 'p' && c->ext[0] && strchr("SsBFf", c->ext[0]))
			return true;
		if (knode_needs_symbols(c->arg))
			return true;
	}
	return false;
}

int kfmt_number(char *buf, size_t len, const char *spec, uint64_t v)
{
	struct kprog p = { 0 };
	struct conv *convs = NULL;
	int nconv = 0;
	struct fmt_line o = { 0 };
	static const struct kenv env = { .long_size = 8 };
	struct krec r = { 0 };
	struct ectx c = { .env = &env, .r = &r, .scratch = &o };
	struct knode k = { .op = N_CONST, .v = v, .t = { .size = 8 } };
	int n = -1;

	if (parse_format(&p, spec, strlen(spec), &convs, &nconv) && nconv == 1 &&
	    p.segs[0].kind == S_CONV) {
		struct fmt_line out = { 0 };

		p.segs[0].c.arg = &k;
		if (kconv_run(&c, &p.segs[0].c, &out)) {
			n = snprintf(buf, len, "%.*s", (int)out.len, out.p ? out.p : "");
		}
		free(out.p);
	}
	free(o.p);
	free(convs);
	free(p.segs);
	free(p.lit);
	return n;
}
