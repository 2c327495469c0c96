/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What several unit tests share: event format texts as the kernel shows them
 * (events/SYSTEM/NAME/format) and the libtraceevent handle they are parsed
 * into.  A test's own formats (a field of every kind, a hostile layout) stay
 * in the test; the kernel's own events come from here.  fixtures.c is linked
 * into every unit test.
 */
#ifndef TR_UNIT_FIXTURES_H
#define TR_UNIT_FIXTURES_H

struct tep_handle;

/* The common fields every event starts with, and the blank line after them. */
#define FX_COMMON                                                                           \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"              \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"              \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"      \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* sched_switch's own fields as 6.18 has them (prev_state a long), offsets 8..63. */
#define FX_SWITCH_FIELDS                                                                    \
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"                      \
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"                          \
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"                           \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"                         \
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"                     \
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"                          \
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"

/* sched:sched_switch of a 6.18 kernel (ID 372): fields at 8..63, the full print fmt. */
extern const char fx_sched_switch[];
/* ftrace:print, a trace_marker write (ID 5). */
extern const char fx_print[];

/* header_page of a 64-bit kernel with 4 KiB sub-buffers (4080 bytes of data). */
extern const char fx_header_page[];
/* test:tr_test (ID 42): one int, "value", after the common fields. */
extern const char fx_tr_test[];

/*
 * A handle for records of this machine: long 8 bytes, the host's byte
 * order both ways, no events.  NULL when out of memory.
 */
struct tep_handle *fx_tep_new(void);

/*
 * fx_tep_new() with the formats given as pairs of system and format text,
 * the list ended by NULL:  fx_tep("sched", fx_sched_switch, NULL).  NULL
 * (and a line saying which) when one does not parse.
 */
struct tep_handle *fx_tep(const char *system, ...) __attribute__((sentinel));

#endif
