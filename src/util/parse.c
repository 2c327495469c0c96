// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Strict number, size, duration and cpu-list parsing.  strtoull alone
 * accepts "-1" (wrapping it) and leading spaces, so every parser here checks
 * the first character itself and insists the whole string is consumed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "tr.h"

/* Parse leading digits; *end points past them.  Rejects no-digit input. */
static int parse_digits(const char *s, uint64_t *out, const char **end)
{
	char *e;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	*end = e;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	const char *end;
	int r = parse_digits(s, out, &end);

	if (r)
		return r;
	return *end ? -EINVAL : 0;
}

int parse_i64(const char *s, int64_t *out)
{
	uint64_t v;
	bool neg = s && *s == '-';
	int r = parse_u64(neg || (s && *s == '+') ? s + 1 : s, &v);

	if (r)
		return r;
	if (v > (uint64_t)INT64_MAX + neg)
		return -ERANGE;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int parse_int(const char *s, int min, int max, int *out)
{
	uint64_t v;
	bool neg = s && *s == '-';
	int r = parse_u64(neg ? s + 1 : s, &v);

	if (r)
		return r;
	if (v > (uint64_t)INT_MAX + neg)
		return -ERANGE;
	long long x = neg ? -(long long)v : (long long)v;

	if (x < min || x > max)
		return -ERANGE;
	*out = (int)x;
	return 0;
}

static int scale(uint64_t v, uint64_t mul, uint64_t *out)
{
	if (mul && v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

int parse_size(const char *s, uint64_t *bytes)
{
	const char *end;
	uint64_t v, mul;
	int r = parse_digits(s, &v, &end);

	if (r)
		return r;
	if (!*end)
		mul = 1;
	else if (!strcasecmp(end, "k") || !strcasecmp(end, "kb") || !strcasecmp(end, "kib"))
		mul = 1ULL << 10;
	else if (!strcasecmp(end, "m") || !strcasecmp(end, "mb") || !strcasecmp(end, "mib"))
		mul = 1ULL << 20;
	else if (!strcasecmp(end, "g") || !strcasecmp(end, "gb") || !strcasecmp(end, "gib"))
		mul = 1ULL << 30;
	else
		return -EINVAL;
	return scale(v, mul, bytes);
}

/* A length of time is a time in the same words ("1.5s", "250ms", "2m", "1h"). */
int parse_duration(const char *s, uint64_t *ns)
{
	return parse_time(s, ns);
}

int parse_time(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t mul;
	} units[] = {
		{ "", 1000000000ULL }, { "s", 1000000000ULL }, { "ms", 1000000ULL },
		{ "us", 1000ULL },     { "ns", 1ULL },	       { "m", 60000000000ULL },
		{ "h", 3600000000000ULL },
	};
	const char *end;
	uint64_t whole, frac = 0, fdiv = 1;
	int r = parse_digits(s, &whole, &end);

	if (r == -EINVAL && s && *s == '.')
		whole = 0, end = s, r = 0;
	if (r)
		return r;
	if (*end == '.') {
		const char *p = end + 1;

		/* Up to nanoseconds of a second: more digits would be noise. */
		for (; *p >= '0' && *p <= '9'; p++)
			if (fdiv < 1000000000ULL)
				frac = frac * 10 + (*p - '0'), fdiv *= 10;
		if (p == end + 1 || (end == s && p == end + 1))
			return -EINVAL;
		end = p;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t w, f;

		if (strcmp(end, units[i].unit))
			continue;
		if (scale(whole, units[i].mul, &w))
			return -ERANGE;
		/* frac/fdiv of a unit, in ns (mul/fdiv is exact for s, ms, us; ns takes none). */
		f = units[i].mul >= fdiv ? frac * (units[i].mul / fdiv) : frac * units[i].mul / fdiv;
		if (w > UINT64_MAX - f)
			return -ERANGE;
		*ns = w + f;
		return 0;
	}
	return -EINVAL;
}

int parse_cpu_list(const char *s, uint64_t *mask, int max_cpus)
{
	int words = (max_cpus + 63) / 64;

	if (!s || !*s)
		return -EINVAL;
	memset(mask, 0, words * sizeof(*mask));
	while (*s) {
		const char *end;
		uint64_t lo, hi;
		int r = parse_digits(s, &lo, &end);

		if (r)
			return r;
		hi = lo;
		if (*end == '-') {
			r = parse_digits(end + 1, &hi, &end);
			if (r)
				return r;
		}
		if (hi < lo)
			return -EINVAL;
		if (hi >= (uint64_t)max_cpus)
			return -ERANGE;
		for (uint64_t c = lo; c <= hi; c++)
			mask[c / 64] |= 1ULL << (c % 64);
		if (*end == ',') {
			end++;
			if (!*end)
				return -EINVAL;
		} else if (*end) {
			return -EINVAL;
		}
		s = end;
	}
	return 0;
}

int parse_cpu_mask(const char *s, uint64_t *mask, int max_cpus)
{
	int words = (max_cpus + 63) / 64, bit = 0;
	size_t len;

	if (!s)
		return -EINVAL;
	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	len = strlen(s);
	/* The kernel's own "ff,ffffffff" (32-bit groups): no comma first, last or twice. */
	if (!len || s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,"))
		return -EINVAL;
	memset(mask, 0, words * sizeof(*mask));
	for (size_t i = len; i-- > 0;) {
		int v;

		if (s[i] == ',')
			continue;
		if (!isxdigit((unsigned char)s[i]))
			return -EINVAL;
		v = isdigit((unsigned char)s[i]) ? s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10);
		for (int b = 0; b < 4; b++, bit++) {
			if (!(v & (1 << b)))
				continue;
			if (bit >= max_cpus)
				return -ERANGE;
			mask[bit / 64] |= 1ULL << (bit % 64);
		}
	}
	return 0;
}

static bool cpu_set(const uint64_t *mask, int c)
{
	return mask[c / 64] >> (c % 64) & 1;
}

char *cpu_mask_format(const uint64_t *mask, int nbits)
{
	int groups = nbits > 0 ? (nbits + 31) / 32 : 1;
	char *out = xcalloc(groups, 9 + 1), *p = out;

	for (int g = groups - 1; g >= 0; g--) {
		uint32_t v = 0;
		int width = 8;

		for (int b = 0; b < 32 && g * 32 + b < nbits; b++)
			v |= (uint32_t)cpu_set(mask, g * 32 + b) << b;
		/* The first group is as wide as its bits need, as the kernel prints it. */
		if (g == groups - 1 && nbits > 0 && nbits % 32)
			width = (nbits % 32 + 3) / 4;
		p += sprintf(p, "%s%0*x", g == groups - 1 ? "" : ",", width, v);
	}
	return out;
}

char *cpu_list_format(const uint64_t *mask, int nbits)
{
	char *out = xcalloc(1, 1);

	for (int c = 0; c < nbits; c++) {
		int end = c;
		char *t;

		if (!cpu_set(mask, c))
			continue;
		while (end + 1 < nbits && cpu_set(mask, end + 1))
			end++;
		if (end == c)
			t = xasprintf("%s%s%d", out, *out ? "," : "", c);
		else
			t = xasprintf("%s%s%d-%d", out, *out ? "," : "", c, end);
		free(out);
		out = t;
		c = end;
	}
	return out;
}

/*
 * Optimal string alignment distance.  Command names are short, so a
 * three-row table on the stack is plenty; strings longer than 63 bytes are
 * simply "far".
 */
int edit_distance(const char *a, const char *b, int cap)
{
	size_t la = strlen(a), lb = strlen(b);
	int rows[3][64];
	int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > 63 || lb > 63)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int best = prev[j] + 1;

			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (prev[j - 1] + cost < best)
				best = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		int *t = prev2;

		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb] > cap ? cap + 1 : prev[lb];
}

bool glob_match(const char *pattern, const char *s)
{
	return fnmatch(pattern, s, 0) == 0;
}

bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

const char *suggest_closest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	int best_d = 3, len = (int)strlen(word);

	for (size_t i = 0; i < n; i++) {
		int d = edit_distance(word, cands[i], 2);

		if (d < best_d)
			best = cands[i], best_d = d;
	}
	/* Two edits on a four-letter word make a different word, not a typo. */
	if (!best || best_d == 0 || best_d * 2 >= len)
		return NULL;
	return best;
}

bool is_ident(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

int parse_filter_enclosed(const char *f, const char **why)
{
	long depth = 0;

	for (; *f; f++) {
		if (*f == '"' || *f == '\'') {
			/* The kernel ends a string at the next same quote: no escapes. */
			const char *end = strchr(f + 1, *f);

			if (!end) {
				*why = "unclosed quote";
				return -EINVAL;
			}
			f = end;
		} else if (*f == '(') {
			depth++;
		} else if (*f == ')' && --depth < 0) {
			break;
		}
	}
	if (depth) {
		*why = "unbalanced parentheses";
		return -EINVAL;
	}
	return 0;
}
