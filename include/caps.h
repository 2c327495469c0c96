/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capability probe: what this kernel and this tracefs let tr do.
 *
 * Each capability is probed lazily and once.  Probes change nothing: the ones
 * that must try a write (the function tracer, the filter files, mapping the
 * ring buffer) do it in a throwaway instance created with tracing off and
 * removed straight after.  Commands call caps_require() before using a
 * feature, so their errors name the missing capability and why.
 */
#ifndef TR_CAPS_H
#define TR_CAPS_H

#include <stdbool.h>

enum tr_cap {
	CAP_TRACEFS,
	CAP_ACCESS,
	CAP_INSTANCES,
	CAP_TRACERS,
	CAP_FUNCTION,
	CAP_FUNCTION_GRAPH,
	CAP_FUNCTION_FILTER,
	CAP_LATENCY,
	CAP_EVENTS,
	CAP_TRIGGERS,
	CAP_HIST,
	CAP_SNAPSHOT,
	CAP_KPROBES,
	CAP_UPROBES,
	CAP_EPROBES,
	CAP_FPROBES,
	CAP_SYNTHETIC,
	CAP_USER_EVENTS,
	CAP_USER_PERSIST,	/* persistent user events: the flag, and CAP_PERFMON */
	CAP_USER_MULTI,		/* multi-format user events (Linux 6.10+) */
	CAP_STACK_TRACER,
	CAP_PROFILER,		/* function_profile_enabled, with the function tracer usable */
	CAP_MMAP,
	CAP_CLOCKS,
	CAP_BUFFERS,
	CAP_DISABLE_ON_FREE,	/* free_buffer and its disable_on_free option: a dead tr's guard */
	CAP_PERSISTENT,		/* a persistent instance (a ring buffer kept across boots) */
	CAP_SUBBUF,		/* sub-buffers of another size (buffer_subbuf_size_kb, 6.8+) */
	CAP__COUNT
};

/* The name users and tests use ("hist", "user_events"); -1 if unknown. */
const char *cap_name(enum tr_cap c);
int cap_from_name(const char *name);

bool caps_has(enum tr_cap c);
/* Why it is absent, or what was found when present ("1843 events in 105 systems"). */
const char *caps_detail(enum tr_cap c);
/* 0, or -EOPNOTSUPP with tr_fail("NAME is not available on this kernel: why"). */
int caps_require(enum tr_cap c);
void caps_free(void);

#endif
