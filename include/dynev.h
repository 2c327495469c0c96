/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dynamic events: kprobes, kretprobes, uprobes, uretprobes, eprobes and
 * fprobes, written in the kernel's own syntax to dynamic_events (or to
 * kprobe_events / uprobe_events on kernels without it).  Each one tr adds is
 * taken back at exit, or by tr reset after tfs_keep().
 */
#ifndef TR_DYNEV_H
#define TR_DYNEV_H

#include <stdint.h>

#include "tr.h"

struct dynev {
	char type;	/* 'p' 'r' 'e' 'f' 't' 'u' (user_events) ... */
	char *group;	/* NULL when the kernel picks the default */
	char *event;
	char *place;	/* symbol, path:offset or group.event */
	char *args;	/* the rest, or "" */
	bool uprobe;	/* place is a path:offset */
};

/* Parse "p:grp/ev place args", as the kernel takes it.  Pure. */
int dynev_parse(const char *def, struct dynev *d);
void dynev_free(struct dynev *d);

/* The file offset of SYMBOL in the ELF file PATH (for uprobes).  Pure but for reading. */
int elf_symbol_offset(const char *path, const char *symbol, uint64_t *offset);

/*
 * Add a probe (checking the capability its type needs) and remember to take
 * it back.  The kernel's error_log line, caret and all, is left in tr_detail().
 */
int dynev_add(const char *def);
/* Remove GROUP/EVENT (or EVENT in any group). */
int dynev_del(const char *name);
/* Every dynamic event, one definition per line, as the kernel lists them. */
int dynev_list(struct strv *out);

/* One probe's counters from kprobe_profile or uprobe_profile. */
struct dynev_hits {
	char kind;		/* 'k' (kprobe_profile) or 'u' (uprobe_profile) */
	char *event;		/* the event's name, as the kernel gives it (no group) */
	char *file;		/* uprobes: the probed binary; else NULL */
	uint64_t hits;
	uint64_t missed;	/* kprobes: hits the kernel could not handle; else 0 */
};

/*
 * Parse a profile file's text: kprobe_profile lines are "NAME HITS MISSED",
 * uprobe_profile lines "FILE NAME HITS" (kind 'k' or 'u').  Appends to
 * *v / *n; -EINVAL with tr_fail() naming a line that is neither.  Pure.
 */
int dynev_profile_parse(const char *text, char kind, struct dynev_hits **v, size_t *n);
/*
 * Every probe's counters, kprobes then uprobes; a kernel without one of the
 * files has none of those probes.  Counts move only while a probe is armed
 * (its event enabled somewhere).
 */
int dynev_profile(struct dynev_hits **v, size_t *n);
void dynev_profile_free(struct dynev_hits *v, size_t n);

#endif
