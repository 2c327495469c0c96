/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict parsers for what users type: numbers, sizes, durations, cpu lists.
 * Each returns 0 or -EINVAL (or -ERANGE) and never prints; "12abc", "" and
 * negative numbers where none make sense are rejected.
 */
#ifndef TR_PARSE_H
#define TR_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

int parse_u64(const char *s, uint64_t *out);
int parse_int(const char *s, int min, int max, int *out);
/* A signed 64-bit number: "-1500", "+20", "7". */
int parse_i64(const char *s, int64_t *out);

/* "4096", "64k", "2M", "1G" (powers of 1024) -> bytes. */
int parse_size(const char *s, uint64_t *bytes);

/* "250ms", "3s", "2m", "1h", bare number = seconds -> nanoseconds. */
int parse_duration(const char *s, uint64_t *ns);

/*
 * A point in time or a span with decimals, as tr report prints timestamps:
 * "12345.678901" (seconds), "1.5s", "250ms", "20us", "100ns", "2m" -> ns.
 */
int parse_time(const char *s, uint64_t *ns);

/*
 * "0-3,5,7-8" -> a bitmap of at most max_cpus bits (caller-owned, zeroed by
 * the parser).  Rejects cpus >= max_cpus, reversed ranges and empty items.
 */
int parse_cpu_list(const char *s, uint64_t *mask, int max_cpus);
/*
 * A hex CPU mask as tracing_cpumask takes it: "3", "0x3", "ff,ffffffff"
 * (the kernel's 32-bit groups) -> the same bitmap; -ERANGE for a bit at or
 * above max_cpus.  An all-zero mask parses: the caller decides.
 */
int parse_cpu_mask(const char *s, uint64_t *mask, int max_cpus);
/*
 * The mask's first nbits as the kernel prints tracing_cpumask ("3" for two
 * CPUs, "0f" for eight with four set, "1,00000000" for 33), and as a list
 * ("0-1,3", "" for none).  Both are malloc'd.
 */
char *cpu_mask_format(const uint64_t *mask, int nbits);
char *cpu_list_format(const uint64_t *mask, int nbits);

/* Edit distance (insert, delete, substitute, swap adjacent), capped at cap+1. */
int edit_distance(const char *a, const char *b, int cap);
/*
 * For "did you mean": the candidate within two edits of word (and fewer
 * than half its length), the closest and first of equals; NULL if none is
 * close or word is one of them.
 */
const char *suggest_closest(const char *word, const char *const *cands, size_t n);

/* Is s[0..n) a C identifier ([A-Za-z_][A-Za-z0-9_]*), as field and variable names are? */
bool is_ident(const char *s, size_t n);

/*
 * Is an event filter (the kernel's syntax) one expression that cannot reach
 * outside the parentheses a caller wraps it in ("(F) && common_pid != 7"):
 * its parentheses balanced and never closed below depth 0, its quotes
 * ('...' or "...", with no escapes, as the kernel reads them) closed.
 * 0, or -EINVAL with *why the reason ("unbalanced parentheses", "unclosed
 * quote").  The rest of the grammar is the kernel's to check.
 */
int parse_filter_enclosed(const char *filter, const char **why);

/* fnmatch()-style glob check used for event, tracer and instance names. */
bool glob_match(const char *pattern, const char *s);
bool has_glob(const char *s);

#endif
