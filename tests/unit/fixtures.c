// SPDX-License-Identifier: GPL-2.0-or-later
/* The unit tests' shared fixtures: see fixtures.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "fixtures.h"

const char fx_sched_switch[] =
	"name: sched_switch\nID: 372\nformat:\n" FX_COMMON
	FX_SWITCH_FIELDS
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state "
	"& ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, "
	"\"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { "
	"0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", "
	"REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

const char fx_print[] =
	"name: print\nID: 5\nformat:\n" FX_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

const char fx_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

const char fx_tr_test[] =
	"name: tr_test\nID: 42\nformat:\n" FX_COMMON
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"value=%d\", REC->value\n";

struct tep_handle *fx_tep_new(void)
{
	struct tep_handle *tep = tep_alloc();
	enum tep_endian order = tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN;

	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, order);
	tep_set_local_bigendian(tep, order);
	return tep;
}

struct tep_handle *fx_tep(const char *system, ...)
{
	struct tep_handle *tep = fx_tep_new();
	const char *sys = system;
	va_list ap;

	if (!tep)
		return NULL;
	va_start(ap, system);
	while (sys) {
		const char *text = va_arg(ap, const char *);

		if (tep_parse_event(tep, text, strlen(text), sys)) {
			printf("#   fixtures: a format of '%s' does not parse: %.40s...\n", sys, text);
			tep_free(tep);
			tep = NULL;
			break;
		}
		sys = va_arg(ap, const char *);
	}
	va_end(ap);
	return tep;
}
