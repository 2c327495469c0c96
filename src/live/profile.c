// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function profiler: function_profile_enabled around a command, and the
 * trace_stat/functionN tables parsed, merged across CPUs, sorted and
 * printed.  See include/profile.h.
 *
 * The kernel's table (one per CPU) reads
 *
 *     Function                               Hit    Time            Avg             s^2
 *     --------                               ---    ----            ---             ---
 *     vfs_read                                 3    254.706 us      84.902 us       12.345 us
 *
 * with the name cut to 30 characters, and without the three time columns
 * when the kernel has no function_graph tracer.  A time is microseconds
 * with up to three decimals ("1234567 us" from seven digits on).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "json.h"
#include "profile.h"
#include "session.h"
#include "setup.h"
#include "tfs.h"

static void push(struct prof_table *t, const struct prof_row *r)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->n++] = *r;
}

void prof_free(struct prof_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].func);
	free(t->v);
	*t = (struct prof_table){ 0 };
}

/* "84.902 us" at *p: the number, and p moved past "us". */
static bool parse_us(char **p, double *v)
{
	char *end;

	*p += strspn(*p, " \t");
	if (!isdigit((unsigned char)**p))
		return false;
	*v = strtod(*p, &end);
	if (end == *p)
		return false;
	end += strspn(end, " \t");
	if (strncmp(end, "us", 2))
		return false;
	*p = end + 2;
	return true;
}

int prof_parse(const char *text, int cpu, struct prof_table *t)
{
	char *copy = xstrdup(text ? text : ""), *save = NULL;
	int line = 0;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct prof_row r = { .cpu = cpu };
		char *p = l, *name, *end;
		size_t n;

		line++;
		p += strspn(p, " \t");
		if (!*p)
			continue;
		/* The header and its underline. */
		if (!strncmp(p, "Function", 8) || !strncmp(p, "--------", 8)) {
			if (!strncmp(p, "Function", 8))
				t->timed = strstr(p, "Time") != NULL;
			continue;
		}
		name = p;
		n = strcspn(p, " \t");
		p += n;
		p += strspn(p, " \t");
		if (!isdigit((unsigned char)*p))
			goto bad;
		errno = 0;
		r.hits = strtoull(p, &end, 10);
		if (errno || end == p)
			goto bad;
		p = end;
		if (parse_us(&p, &r.total_us)) {
			double s2;

			if (!parse_us(&p, &r.avg_us) || !parse_us(&p, &s2))
				goto bad;
			r.var_us2 = s2;
			t->timed = true;
		}
		p += strspn(p, " \t");
		if (*p)
			goto bad;
		r.func = xmalloc(n + 1);
		memcpy(r.func, name, n);
		r.func[n] = '\0';
		push(t, &r);
		continue;
bad:
		{
			int e = tr_fail(-EINVAL, "trace_stat/function%d line %d is not the kernel's "
					"format: '%s'", cpu, line, l);

			free(copy);
			return e;
		}
	}
	free(copy);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	const struct prof_row *x = a, *y = b;
	int c = strcmp(x->func, y->func);

	return c ? c : (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/*
 * Sums of the CPUs' rows: hits and totals add; the variance follows from
 * the sum of squares of the calls' times, which each CPU's row gives as
 * (n - 1) * var + total^2 / n.
 */
void prof_merge(const struct prof_table *in, struct prof_table *out)
{
	struct prof_row *v = xmalloc((in->n ? in->n : 1) * sizeof(*v));

	memcpy(v, in->v, in->n * sizeof(*v));
	qsort(v, in->n, sizeof(*v), cmp_name);
	out->timed = in->timed;
	for (size_t i = 0; i < in->n;) {
		struct prof_row r = { .func = xstrdup(v[i].func), .cpu = -1 };
		double sq = 0;
		size_t k;

		for (k = i; k < in->n && !strcmp(v[k].func, v[i].func); k++) {
			r.hits += v[k].hits;
			r.total_us += v[k].total_us;
			if (v[k].hits)
				sq += (v[k].hits - 1) * v[k].var_us2 +
				      v[k].total_us * v[k].total_us / v[k].hits;
		}
		if (r.hits) {
			r.avg_us = r.total_us / r.hits;
			if (r.hits > 1)
				r.var_us2 = (sq - r.total_us * r.total_us / r.hits) / (r.hits - 1);
			if (r.var_us2 < 0)
				r.var_us2 = 0;	/* rounding of the kernel's printed values */
		}
		push(out, &r);
		i = k;
	}
	free(v);
}

void prof_keep_cpus(struct prof_table *t, const uint64_t *cpus, int max_cpus)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++) {
		int c = t->v[i].cpu;

		if (c >= 0 && c < max_cpus && (cpus[c / 64] >> (c % 64) & 1))
			t->v[k++] = t->v[i];
		else
			free(t->v[i].func);
	}
	t->n = k;
}

int prof_sort_parse(const char *s, enum prof_sort *out)
{
	static const char *const names[] = { "total", "hits", "avg", "stddev", "name" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum prof_sort)i;
			return 0;
		}
	return -EINVAL;
}

static enum prof_sort sort_by;

static int cmp_rows(const void *a, const void *b)
{
	const struct prof_row *x = a, *y = b;
	double dx = 0, dy = 0;

	switch (sort_by) {
	case PROF_SORT_TOTAL:
		dx = x->total_us, dy = y->total_us;
		break;
	case PROF_SORT_HITS:
		dx = (double)x->hits, dy = (double)y->hits;
		break;
	case PROF_SORT_AVG:
		dx = x->avg_us, dy = y->avg_us;
		break;
	case PROF_SORT_STDDEV:
		dx = x->var_us2, dy = y->var_us2;
		break;
	case PROF_SORT_NAME:
		break;
	}
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return cmp_name(a, b);
}

void prof_sort(struct prof_table *t, enum prof_sort by)
{
	sort_by = by;
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_rows);
}

/*
 * The square root of a variance (x >= 0), by Newton's method: tr's only
 * use of libm, whose mapping cost every tr command some 300 KB of RSS.
 * From above it decreases until it settles, to the last bit.
 */
static double sqrt_nonneg(double x)
{
	double r = x > 1 ? x : 1, next;

	if (!(x > 0))
		return 0;
	for (int i = 0; i < 2100; i++) {
		next = (r + x / r) / 2;
		if (next >= r)
			break;
		r = next;
	}
	return r;
}

void prof_print(FILE *f, const struct prof_table *t, enum prof_out kind, size_t limit)
{
	bool per_cpu = t->n && t->v[0].cpu >= 0;
	size_t n = limit && limit < t->n ? limit : t->n;

	if (kind == PROF_CSV)
		fprintf(f, "%sfunction,hits%s\n", per_cpu ? "cpu," : "",
			t->timed ? ",total_us,avg_us,stddev_us" : "");
	else if (kind == PROF_TEXT)
		fprintf(f, "%s%-30s %10s%s\n", per_cpu ? "CPU  " : "", "FUNCTION", "HITS",
			t->timed ? "       TOTAL(us)     AVG(us)  STDDEV(us)" : "");
	for (size_t i = 0; i < n; i++) {
		const struct prof_row *r = &t->v[i];
		double sd = sqrt_nonneg(r->var_us2);

		switch (kind) {
		case PROF_JSON:
			fputs("{", f);
			if (per_cpu)
				fprintf(f, "\"cpu\":%d,", r->cpu);
			fputs("\"function\":", f);
			json_fputs(f, r->func);
			fprintf(f, ",\"hits\":%" PRIu64, r->hits);
			if (t->timed)
				fprintf(f, ",\"total_us\":%.3f,\"avg_us\":%.3f,\"stddev_us\":%.3f",
					r->total_us, r->avg_us, sd);
			fputs("}\n", f);
			break;
		case PROF_CSV:
			if (per_cpu)
				fprintf(f, "%d,", r->cpu);
			/* Kernel function names hold no comma or quote. */
			fprintf(f, "%s,%" PRIu64, r->func, r->hits);
			if (t->timed)
				fprintf(f, ",%.3f,%.3f,%.3f", r->total_us, r->avg_us, sd);
			fputc('\n', f);
			break;
		case PROF_TEXT:
			if (per_cpu)
				fprintf(f, "%-4d ", r->cpu);
			fprintf(f, "%-30s %10" PRIu64, r->func, r->hits);
			if (t->timed)
				fprintf(f, " %15.3f %11.3f %11.3f", r->total_us, r->avg_us, sd);
			fputc('\n', f);
			break;
		}
	}
}

/* Each CPU's table: trace_stat/function0, function1, ... (offline CPUs have none). */
static int read_tables(struct prof_table *out)
{
	char *dir = tfs_path(NULL, "trace_stat");
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d) {
		r = -errno;
		r = tr_fail(r, "cannot read '%s': %s", dir, strerror(-r));
		free(dir);
		return r;
	}
	while (!r && (e = readdir(d))) {
		char *file, *text, *end;
		long cpu;

		if (strncmp(e->d_name, "function", 8) || !isdigit((unsigned char)e->d_name[8]))
			continue;
		cpu = strtol(e->d_name + 8, &end, 10);
		if (*end || cpu < 0 || cpu > 65535)
			continue;
		file = xasprintf("trace_stat/%s", e->d_name);
		r = tfs_read(NULL, file, &text);
		if (r)
			r = tr_fail(r, "cannot read '%s': %s", file, strerror(-r));
		else
			r = prof_parse(text, (int)cpu, out);
		if (!r)
			free(text);
		free(file);
	}
	closedir(d);
	free(dir);
	return r;
}

/* The profiler as a live tool: on once the session is open, off and read at its end. */
struct prof_run {
	struct tfs_inst *top;
	struct prof_table *out;
};

static int prof_on(void *arg, struct session *s)
{
	struct prof_run *p = arg;
	int r = tfs_set(p->top, "function_profile_enabled", "1");

	(void)s;
	return r ? tr_fail(r, "cannot enable the function profiler: %s", strerror(-r)) : 0;
}

/* Stop counting before reading: the tables then hold the run only. */
static int prof_finish(void *arg, struct session *s, struct session_result *res)
{
	struct prof_run *p = arg;
	int e;

	(void)s;
	if (!s)
		return 0;
	e = tfs_set(p->top, "function_profile_enabled", "0");
	if (res->err)
		return 0;
	if (e)
		return tr_fail(e, "cannot disable the function profiler: %s", strerror(-e));
	return read_tables(p->out);
}

static const struct session_tool prof_tool = { .prepare = prof_on, .finish = prof_finish };

int prof_run(const struct prof_opts *o, struct prof_table *out)
{
	struct prof_run p = { .top = tfs_top(), .out = out };
	char *cur = NULL;
	int r;

	r = caps_require(CAP_PROFILER);
	if (r)
		return r;
	/* Enabling resets the counts; if someone left it on, off and on again. */
	r = tfs_read(p.top, "function_profile_enabled", &cur);
	if (!r && atoi(cur) == 1)
		r = tfs_set(p.top, "function_profile_enabled", "0");
	free(cur);
	if (r)
		return tr_fail(r, "cannot reset the function profiler: %s", strerror(-r));
	return session_tool_run(&(struct session_opts){ .inst = p.top, .command = o->command,
							.setup = &(struct tr_setup){
								.ftrace_filter = o->funcs },
							.duration_ns = o->duration_ns,
							.passive = true },
				&prof_tool, &p);
}
