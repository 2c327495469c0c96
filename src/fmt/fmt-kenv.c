// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernel's printer reads beside the records (struct kenv): the
 * symbols, printk formats, BTF and constants, memory maps, the clock and
 * the kernel's trace options.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt-core-local.h"
#include "fmt-usym.h"

/* ---- what the kernel's printer reads beside the records ---- */

void fmt_src_formats(struct fmt_src *s, fmt_format_fn fn, void *ctx)
{
	s->format_fn = fn;
	s->format_ctx = ctx;
}

void fmt_src_lazy(struct fmt_src *s, fmt_load_event_fn event, fmt_load_syms_fn syms, void *ctx)
{
	s->load_event = event;
	s->load_syms = syms;
	s->load_ctx = ctx;
}

static void vmemmap_guess(struct fmt_src *s);

static bool kernel_half(const struct fmt_src *s, uint64_t addr)
{
	return tep_get_long_size(s->tep) == 4 ? addr >> 31 == 1 && addr <= UINT32_MAX : addr >> 63;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

void fmt_src_vmemmap(struct fmt_src *s, uint64_t base)
{
	s->vmemmap_default = base;
	if (s->env.vmemmap && !s->vmemmap_learned)
		s->env.vmemmap = base;
}

uint64_t fmt_running_vmemmap(void)
{
	char *text, *flags;
	bool la57 = false;

	/* The kernel keeps "la57" among the CPU's flags only when it pages with 5 levels. */
	if (!read_file("/proc/cpuinfo", &text, NULL)) {
		flags = strstr(text, "\nflags");
		if (flags) {
			char *nl = strchrnul(flags + 1, '\n');

			*nl = '\0';
			la57 = strstr(flags, " la57") != NULL;
		}
		free(text);
	}
	return la57 ? 0xffd4000000000000ULL : 0xffffea0000000000ULL;
}

void fmt_src_kernel(struct fmt_src *s, const char *release)
{
	unsigned a = 0, b = 0;

	if (release && sscanf(release, "%u.%u", &a, &b) == 2 && a < 256 && b < 256)
		s->env.kver = a << 8 | b;
	snprintf(s->release, sizeof(s->release), "%s", release ? release : "");
}

void fmt_src_tep_symbols(struct fmt_src *s)
{
	s->tep_syms = true;
	if (s->env_done)
		vmemmap_guess(s);
}

void fmt_src_tep_symbols_loader(struct fmt_src *s, void (*load)(void *arg), void *arg)
{
	s->tep_load = load;
	s->tep_load_arg = arg;
}

void fmt_src_kallsyms(struct fmt_src *s, const char *text)
{
	if (!text || s->ksyms_done)
		return;
	fmt_src_kallsyms_lines(s, text, strlen(text));
	fmt_src_kallsyms_end(s);
}

/* Append name[0..n) and a NUL to the names, and say where. */
static uint32_t keep_name(struct fmt_src *s, const char *name, size_t n)
{
	size_t at = s->ksym_len;

	if (s->ksym_cap - at < n + 1) {
		s->ksym_cap = s->ksym_cap ? s->ksym_cap * 2 : 65536;
		if (s->ksym_cap - at < n + 1)
			s->ksym_cap = at + n + 1;
		s->ksym_text = xrealloc(s->ksym_text, s->ksym_cap);
	}
	memcpy(s->ksym_text + at, name, n);
	s->ksym_text[at + n] = '\0';
	s->ksym_len += n + 1;
	return (uint32_t)at;
}

/* Note where the kernel's text and init text start and end (a module has none of these). */
static void text_bound(struct fmt_src *s, const char *name, size_t n, uint64_t addr)
{
	if (n == 6 && !memcmp(name, "_stext", 6))
		s->stext = addr;
	else if (n == 6 && !memcmp(name, "_etext", 6))
		s->etext = addr;
	else if (n == 10 && !memcmp(name, "_sinittext", 10))
		s->sinittext = addr;
	else if (n == 10 && !memcmp(name, "_einittext", 10))
		s->einittext = addr;
}

/* One line: "ffffffff81000000 T _text" or "... t name\t[module]". */
static void ksym_line(struct fmt_src *s, const char *p, const char *eol)
{
	const char *name, *end, *name_end, *mod, *e = p;
	uint64_t addr = 0;

	/* By hand, not strtoull(): a piece of lines need not end in a NUL. */
	for (; e < eol && e - p < 16 && isxdigit((unsigned char)*e); e++)
		addr = addr << 4 | (uint64_t)(isdigit((unsigned char)*e) ? *e - '0' :
					      (tolower((unsigned char)*e) - 'a' + 10));
	/*
	 * Only the kernel's half of the address space: the per-CPU symbols
	 * listed at small offsets are not where anything runs.
	 */
	if (e == p || e + 3 >= eol || e[0] != ' ' || e[1] == '\n' || e[2] != ' ' ||
	    !kernel_half(s, addr))
		return;
	name = e + 3;
	for (end = name; end < eol && *end != ' ' && *end != '\t'; end++)
		;
	/* Offsets are 32 bits: names of 4 GiB are not a kernel's. */
	if (end == name || s->ksym_len + (size_t)(eol - p) >= UINT32_MAX)
		return;
	if (s->nksyms == s->ksyms_cap) {
		s->ksyms_cap = s->ksyms_cap ? s->ksyms_cap * 2 : 4096;
		s->ksyms = xrealloc(s->ksyms, s->ksyms_cap * sizeof(*s->ksyms));
	}
	s->ksyms[s->nksyms].addr = addr;
	name_end = end;
	s->ksyms[s->nksyms].name = keep_name(s, name, (size_t)(end - name));
	s->ksyms[s->nksyms].mod = 0;
	while (end < eol && (*end == ' ' || *end == '\t'))
		end++;
	if (end < eol && *end == '[') {
		size_t n;

		mod = ++end;
		while (end < eol && *end != ']')
			end++;
		n = (size_t)(end - mod);
		/* A module's name once for its run of symbols. */
		if (!s->ksym_mod || strlen(s->ksym_text + s->ksym_mod) != n ||
		    memcmp(s->ksym_text + s->ksym_mod, mod, n))
			s->ksym_mod = keep_name(s, mod, n);
		s->ksyms[s->nksyms].mod = s->ksym_mod;
	} else if (e[1] == 'd' || e[1] == 'b') {
		s->ksym_data = true;
	} else if (e[1] == 'T') {
		text_bound(s, name, (size_t)(name_end - name), addr);
	}
	s->nksyms++;
}

void fmt_src_kallsyms_lines(struct fmt_src *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	if (s->ksyms_done)
		return;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			eol = end;
		ksym_line(s, p, eol);
		p = eol + 1;
	}
}

static bool ksyms_sorted(const struct fmt_src *s)
{
	for (size_t i = 1; i < s->nksyms; i++)
		if (cmp_ksym(&s->ksyms[i - 1], &s->ksyms[i]) > 0)
			return false;
	return true;
}

void fmt_src_kallsyms_end(struct fmt_src *s)
{
	if (s->ksyms_done)
		return;
	s->ksyms_done = true;
	if (s->ksym_text)
		s->ksym_text = xrealloc(s->ksym_text, s->ksym_len);
	if (s->nksyms) {
		s->ksyms = xrealloc(s->ksyms, s->nksyms * sizeof(*s->ksyms));
		/* The kernel lists them in order; sorting a sorted list took a copy of it. */
		if (!ksyms_sorted(s))
			qsort(s->ksyms, s->nksyms, sizeof(*s->ksyms), cmp_ksym);
	}
	vmemmap_guess(s);
}

/*
 * vmemmap_base (pfn_to_page() in kmem's formats): the default for the
 * paging mode (fmt_src_vmemmap), when the kernel's text is where x86-64
 * links it -- KASLR, which moves vmemmap, moves the text too.  Otherwise
 * unknown, and those records print as libtraceevent prints them.
 */
static void vmemmap_guess(struct fmt_src *s)
{
	const char *name, *mod;
	uint64_t start, size;

	/* (Any name: several symbols start the text, and "_text" need not come first.) */
	if (tep_get_long_size(s->tep) == 8 && !s->vmemmap_learned &&
	    fmt_ksym(s, 0xffffffff81000000ULL, &name, &start, &size, &mod) &&
	    start == 0xffffffff81000000ULL && !mod)
		s->env.vmemmap = s->vmemmap_default;
}

/* The kernel's kallsyms_lookup(): the symbol at or below addr, its size to the next one. */
bool fmt_ksym(void *ctx, uint64_t addr, const char **name, uint64_t *start, uint64_t *size,
	      const char **mod)
{
	struct fmt_src *s = ctx;
	size_t lo = 0, hi = s->nksyms, i, j;
	struct ksym_hit *hit;

	hit = &s->ksym_cache[(addr >> 4 ^ addr >> 12) & 63];
	/* (Only kernel addresses get there: the check below is passed already.) */
	if (s->nksyms && hit->name && hit->addr == addr) {
		*name = hit->name;
		*start = hit->start;
		*size = hit->size;
		*mod = hit->mod;
		return true;
	}
	/* A user-space address (a page fault's, a uprobe's) is no symbol's. */
	if (!kernel_half(s, addr))
		return false;
	if (!s->nksyms) {
		unsigned long sz = 0;
		unsigned long long st = 0;

		/*
		 * No text of our own (a live stream): libtraceevent's table.
		 * Note that it must not be asked before it has the symbols: it
		 * builds its index at the first lookup and never again.
		 */
		if (!s->tep_syms || !tep_find_function_info(s->tep, addr, name, &st, &sz))
			return false;
		*start = st;
		*size = sz;
		*mod = NULL;
		return true;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	i = lo - 1;
	while (i && s->ksyms[i - 1].addr == s->ksyms[i].addr)
		i--;
	for (j = i + 1; j < s->nksyms && s->ksyms[j].addr == s->ksyms[i].addr; j++)
		;
	/* Past the last symbol there is nothing to say it belongs to. */
	if (j == s->nksyms)
		return false;
	/* is_ksym_addr(): without data symbols, only the text has names. */
	if (!s->ksyms[i].mod && !s->ksym_data && s->stext && s->etext &&
	    !(addr >= s->stext && addr < s->etext) &&
	    !(addr >= s->sinittext && addr < s->einittext))
		return false;
	*name = s->ksym_text + s->ksyms[i].name;
	*start = s->ksyms[i].addr;
	*size = s->ksyms[j].addr - s->ksyms[i].addr;
	*mod = s->ksyms[i].mod ? s->ksym_text + s->ksyms[i].mod : NULL;
	*hit = (struct ksym_hit){ addr, *start, *size, *name, *mod };
	return true;
}

void fmt_src_printk(struct fmt_src *s, const char *text)
{
	size_t n = 0;

	if (!text || s->kstrs.esize)
		return;
	for (const char *p = text; *p; p++)
		n += *p == '\n';
	htab_init(&s->kstrs, sizeof(struct kstr), n * 2, 0);
	/* "0xffffffff82521880 : \"mt_find\"", with \n, \t, \\ and \" escaped. */
	while (*text) {
		const char *nl = strchrnul(text, '\n'), *q;
		char *end, *str, *o;
		uint64_t addr = strtoull(text, &end, 16);
		struct kstr *k;

		/* (~0 is no key of hash.h's, and no address of a format string.) */
		if (end == text || addr == UINT64_MAX || strncmp(end, " : \"", 4) || nl - end < 5 || nl[-1] != '"') {
			text = *nl ? nl + 1 : nl;
			continue;
		}
		str = o = xmalloc(nl - end);
		for (q = end + 4; q < nl - 1; q++) {
			if (*q == '\\' && q + 1 < nl - 1) {
				q++;
				*o++ = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q;
			} else {
				*o++ = *q;
			}
		}
		*o = '\0';
		k = htab_get(&s->kstrs, addr, NULL);
		free(k->s);
		k->s = str;
		text = *nl ? nl + 1 : nl;
	}
}

static const char *kstring(void *ctx, uint64_t addr)
{
	struct fmt_src *s = ctx;
	const struct kstr *k = htab_find(&s->kstrs, addr);

	return k ? k->s : NULL;
}

void fmt_src_btf(struct fmt_src *s, const struct btf *btf)
{
	s->btf = btf;
}

void fmt_src_btf_lazy(struct fmt_src *s, fmt_load_btf_fn fn, void *ctx)
{
	s->btf_fn = fn;
	s->btf_ctx = ctx;
}

/*
 * Enum constants with values that have not changed in years, for traces
 * whose kernel's BTF is not at hand.  (Others, like the inode state bits,
 * moved between versions: only BTF can say.)
 */
static const struct {
	const char *name;
	uint64_t v;
} known_consts[] = {
	{ "HRTIMER_MODE_ABS", 0 }, { "HRTIMER_MODE_REL", 1 }, { "HRTIMER_MODE_PINNED", 2 },
	{ "HRTIMER_MODE_SOFT", 4 }, { "HRTIMER_MODE_HARD", 8 },
	{ "HRTIMER_MODE_ABS_PINNED", 2 }, { "HRTIMER_MODE_REL_PINNED", 3 },
	{ "HRTIMER_MODE_ABS_SOFT", 4 }, { "HRTIMER_MODE_REL_SOFT", 5 },
	{ "HRTIMER_MODE_ABS_PINNED_SOFT", 6 }, { "HRTIMER_MODE_REL_PINNED_SOFT", 7 },
	{ "HRTIMER_MODE_ABS_HARD", 8 }, { "HRTIMER_MODE_REL_HARD", 9 },
	{ "HRTIMER_MODE_ABS_PINNED_HARD", 10 }, { "HRTIMER_MODE_REL_PINNED_HARD", 11 },
	{ "IOPRIO_CLASS_NONE", 0 }, { "IOPRIO_CLASS_RT", 1 }, { "IOPRIO_CLASS_BE", 2 },
	{ "IOPRIO_CLASS_IDLE", 3 }, { "IOPRIO_CLASS_INVALID", 7 },
};

static bool kconst(void *ctx, const char *name, uint64_t *v)
{
	struct fmt_src *s = ctx;
	int64_t x;

	if (src_btf(s) && btf_enum(s->btf, name, &x)) {
		*v = x;
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(known_consts); i++)
		if (!strcmp(known_consts[i].name, name)) {
			*v = known_consts[i].v;
			return true;
		}
	return false;
}

static unsigned kstruct_size(void *ctx, const char *name)
{
	struct fmt_src *s = ctx;

	return src_btf(s) ? btf_struct_size(s->btf, name) : 0;
}

/* HZ, as the kernel wrote it into writeback's formats: "(jiffies - ...) / 250". */
static unsigned guess_hz(struct fmt_src *s)
{
	static const char *const evs[] = { "writeback_single_inode", "writeback_sb_inodes_requeue",
					   "writeback_single_inode_start" };
	unsigned hz = 0;

	for (size_t i = 0; i < ARRAY_SIZE(evs) && !hz && s->format_fn; i++) {
		char *t = s->format_fn(s->format_ctx, "writeback", evs[i]);
		const char *p = t ? strstr(t, "dirtied_when) / ") : NULL;

		if (p)
			hz = strtoul(p + 16, NULL, 10);
		free(t);
	}
	return hz >= 24 && hz <= 10000 ? hz : 250;
}

/* The memory map stored for process tgid, or NULL. */
const struct tfile_procmap *fmt_kprocmap(void *ctx, int tgid)
{
	struct fmt_src *s = ctx;

	for (int i = 0; i < s->nprocmaps; i++)
		if (s->procmaps[i].pid == tgid)
			return &s->procmaps[i];
	return NULL;
}

static const char *kuser_sym(void *ctx, const char *path, uint64_t low, uint64_t ip,
			     uint64_t *off)
{
	struct fmt_src *s = ctx;

	if (!s->f->usyms)
		s->f->usyms = usym_cache_new();
	return usym_cache_find(s->f->usyms, path, low, ip, off);
}

char *fmt_user_syms_unread(const struct fmt *f)
{
	return f->usyms ? usym_cache_unread(f->usyms) : NULL;
}

void fmt_src_procmaps(struct fmt_src *s, const struct tfile_procmap *maps, int n)
{
	s->procmaps = maps;
	s->nprocmaps = n;
}

static const char *kcomm(void *ctx, int pid)
{
	return fmt_src_comm(ctx, pid);
}

/*
 * The blk tracer's entry type (TRACE_BLK) has no format file: in the
 * kernel's enum trace_type it sits between user_stack and bputs, as it has
 * since 2.6.30, so it is the one id between theirs.  -1 when the file's
 * formats do not show that gap.
 */
int fmt_blk_type(struct fmt_src *s)
{
	struct tep_event *us, *bp;

	if (!s->blk_type) {
		us = tep_find_event_by_name(s->tep, "ftrace", "user_stack");
		bp = tep_find_event_by_name(s->tep, "ftrace", "bputs");
		s->blk_type = us && bp && bp->id == us->id + 2 && !tep_find_event(s->tep, us->id + 1)
				      ? us->id + 1 : -1;
	}
	return s->blk_type;
}

void fmt_env_setup(struct fmt_src *s)
{
	if (s->env_done)
		return;
	s->env_done = true;
	s->env.tep = s->tep;
	s->env.long_size = tep_get_long_size(s->tep) == 4 ? 4 : 8;
	s->env.swap = s->swap;
	s->env.hz = guess_hz(s);
	s->env.page_struct = 64;
	s->env.sym = fmt_ksym;
	s->env.constant = kconst;
	s->env.string = kstring;
	s->env.struct_size = kstruct_size;
	s->env.procmap = fmt_kprocmap;
	s->env.comm = kcomm;
	s->env.func_args = fmt_func_args;
	if (s->f->o.user_syms)
		s->env.user_sym = kuser_sym;
	s->env.ctx = s;
	vmemmap_guess(s);
}

void fmt_kernel_compile(struct fmt_src *s, struct ev_info *ei)
{
	char *text;

	if (ei->kp_done || !ei->event)
		return;
	ei->kp_done = true;
	/* (sizeof(struct page) comes from BTF through kstruct_size, when asked.) */
	fmt_env_setup(s);
	text = s->format_fn ? s->format_fn(s->format_ctx, ei->event->system, ei->event->name) : NULL;
	ei->kp = kprog_compile(&s->env, ei->event, text);
	free(text);
}

static const char *const raw_clocks[] = { "counter", "uptime", "x86-tsc", "ppc-tb" };

static bool clock_is(const char *clock, const char *name);

bool fmt_clock_in_ns(const char *clock)
{
	for (size_t i = 0; clock && i < ARRAY_SIZE(raw_clocks); i++)
		if (clock_is(clock, raw_clocks[i]))
			return false;
	return true;
}

/* Is the current clock in clock's text (a name, or "a [b] c") name? */
static bool clock_is(const char *clock, const char *name)
{
	const char *b = strchr(clock, '['), *e;
	size_t n;

	if (b && (e = strchr(b, ']'))) {
		clock = b + 1;
		n = e - clock;
	} else {
		n = strcspn(clock, " \n");
	}
	return strlen(name) == n && !strncmp(clock, name, n);
}

void fmt_src_clock(struct fmt_src *s, const char *clock, bool ns)
{
	if (clock == s->clock)
		return;
	s->clock = clock;
	s->clock_ns = ns || fmt_clock_in_ns(clock);
	s->lib_raw = !ns && clock && (clock_is(clock, "counter") || clock_is(clock, "x86-tsc"));
}

/*
 * An eprobe's line of dynamic_events ("e:grp/ep sched.sched_switch ARGS"):
 * its name and the event it is on, which the kernel prints in front of its
 * fields and the format does not hold.
 */
static void learn_eprobe(struct fmt_src *s, const char *line)
{
	size_t n = strcspn(line, " "), m;
	char *ev, *sl;

	if (!line[n] || !(m = strcspn(line + n + 1, " ")))
		return;
	/* "e:NAME" without a group is in the kernel's "eprobes". */
	strv_push_owned(&s->ep_names, xasprintf("%s%.*s", memchr(line, '/', n) ? "" : "eprobes/",
						(int)(n - 2), line + 2));
	ev = xasprintf("%.*s", (int)m, line + n + 1);
	/* SYSTEM/EVENT is taken too; the kernel prints SYSTEM.EVENT. */
	if ((sl = strchr(ev, '/')))
		*sl = '.';
	strv_push_owned(&s->ep_events, ev);
}

/*
 * Only these options take the line from tr's usual one (irq-info is a
 * column of it; annotate matters only when the buffer overran).
 */
static void ko_update(struct fmt_src *s)
{
	const struct fmt_kopts *k = &s->ko;

	s->ko_line = s->f->o.kind == FMT_TEXT && !s->f->o.lib &&
		     (k->raw || k->hex || k->bin || !k->context || k->lat || k->fields || k->tgid ||
		      (k->msg_only && k->printk) || (k->annotate && s->overran));
}

/* Apply "raw,nocontext-info" (commas or white space) to the kernel's options. */
static void kopts_apply(struct fmt_kopts *o, const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, ", \t\n");

		if (n)
			fmt_kopts_word(o, p, n);
		p += n;
		p += strspn(p, ", \t\n");
	}
}

int fmt_kopts_check(const char *text, char *bad, size_t n)
{
	struct fmt_kopts o;

	fmt_kopts_default(&o);
	for (const char *p = text; p && *p;) {
		size_t k = strcspn(p, ", \t\n");

		if (k && (!fmt_kopts_word(&o, p, k) || !strncmp(p, "tracer:", 7))) {
			snprintf(bad, n, "%.*s", (int)k, p);
			return -EINVAL;
		}
		p += k;
		p += strspn(p, ", \t\n");
	}
	return 0;
}

void fmt_src_graph_opts(struct fmt_src *s, const char *text)
{
	struct fmt_kopts u;

	/* The kernel's defaults where the file does not say. */
	s->env.sym_offset = s->env.sym_addr = s->env.no_parent = false;
	fmt_graph_opts_default(&s->gopts);
	fmt_kopts_default(&s->ko);
	for (const char *p = text; p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
		char *line = xasprintf("%.*s", (int)strcspn(p, "\n"), p);
		bool no = !strncmp(line, "no", 2);
		const char *w = no ? line + 2 : line;

		if (!strncmp(line, "e:", 2))
			learn_eprobe(s, line);
		else if (!strcmp(w, "sym-offset"))
			s->env.sym_offset = !no;
		else if (!strcmp(w, "sym-addr"))
			s->env.sym_addr = !no;
		else if (!strcmp(w, "print-parent"))
			s->env.no_parent = no;
		else if (!fmt_kopts_word(&s->ko, line, strlen(line)))
			fmt_graph_opts_apply(&s->gopts, line, false, NULL, 0);
		free(line);
	}
	/* The command checked the user's words: any error is theirs, reported there. */
	fmt_graph_opts_apply(&s->gopts, s->f->o.graph_opts, false, NULL, 0);
	kopts_apply(&s->ko, s->f->o.kopts);
	if (s->f->o.irq_info)
		s->ko.irq = true;
	/* Symbols are named after their objects: --user-syms asks for both. */
	if (s->f->o.user_syms)
		s->ko.userobj = true;
	s->env.userobj = s->ko.userobj;
	s->env.verbose = s->ko.verbose;
	s->env.mmiotrace = !strcmp(s->ko.tracer, "mmiotrace");
	/*
	 * tr's usual line shows the irq-info column when asked (--irq-info,
	 * -O irq-info), not for the recording's irq-info (set by default):
	 * its layout stays trace-cmd's.  The kernel's lines follow the file.
	 * --format libtraceevent follows trace-cmd 3.4, which prints the
	 * column always (3.2 on); -O noirq-info gives 3.1's line.
	 */
	fmt_kopts_default(&u);
	kopts_apply(&u, s->f->o.kopts);
	s->irq_col = s->f->o.irq_info || (u.irq_said ? u.irq : s->f->o.lib);
	ko_update(s);
}

const char *fmt_src_missing(struct fmt_src *s)
{
	struct fmt_kopts o = s->ko;

	/* What the source has is no loss. */
	if (s->tgids.n)
		o.tgid = false;
	if (s->nprocmaps)
		o.userobj = false;
	fmt_kopts_missing(&o, s->missing, sizeof(s->missing));
	return s->missing[0] ? s->missing : NULL;
}

void fmt_src_overran(struct fmt_src *s, bool overran)
{
	s->overran = overran;
	ko_update(s);
}
