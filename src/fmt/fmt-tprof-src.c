// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The task profile from a trace file's records (include/fmt-tprof.h):
 * the events the profile reads are found by name in the file's formats
 * and their fields read through libtraceevent; every other record only
 * tells the model that a stack after it is not a switch's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-tprof.h"
#include "page.h"
#include "tr.h"

enum { EV_SWITCH, EV_WAKEUP, EV_SYS_ENTER, EV_SYS_EXIT, EV_FAULT_USER, EV_FAULT_KERNEL,
       EV_STACK, NEV };

static const char *const names[NEV][2] = {
	[EV_SWITCH] = { "sched", "sched_switch" },
	[EV_WAKEUP] = { "sched", "sched_wakeup" },
	[EV_SYS_ENTER] = { "raw_syscalls", "sys_enter" },
	[EV_SYS_EXIT] = { "raw_syscalls", "sys_exit" },
	[EV_FAULT_USER] = { "exceptions", "page_fault_user" },
	[EV_FAULT_KERNEL] = { "exceptions", "page_fault_kernel" },
	[EV_STACK] = { "ftrace", "kernel_stack" },
};

struct fmt_tprof_src {
	struct tep_handle *tep;
	struct fmt_tprof *p;
	struct tep_event *ev[NEV];
	uint64_t *ip;
	size_t ipcap;
};

struct fmt_tprof_src *fmt_tprof_src_new(struct tep_handle *tep, struct fmt_tprof *p)
{
	struct fmt_tprof_src *s;
	struct tep_event *sw = tep_find_event_by_name(tep, "sched", "sched_switch");

	if (!sw)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->tep = tep;
	s->p = p;
	for (int i = 0; i < NEV; i++)
		s->ev[i] = tep_find_event_by_name(tep, names[i][0], names[i][1]);
	return s;
}

void fmt_tprof_src_free(struct fmt_tprof_src *s)
{
	if (!s)
		return;
	free(s->ip);
	free(s);
}

/* A number field inside the record, or false. */
static bool num(struct tep_event *e, const struct tfile_event *ev, const char *name,
		unsigned long long *v)
{
	struct tep_format_field *f = tep_find_field(e, name);

	return f && f->offset >= 0 && f->size > 0 &&
	       (uint64_t)f->offset + (uint64_t)f->size <= ev->size &&
	       !tep_read_number_field(f, ev->data, v);
}

/* A char[] field as a string (at most 16 bytes, NUL-ended here). */
static bool str(struct tep_event *e, const struct tfile_event *ev, const char *name, char *buf)
{
	struct tep_format_field *f = tep_find_field(e, name);
	int n;

	if (!f || f->offset < 0 || f->size <= 0 || (uint64_t)f->offset + f->size > ev->size)
		return false;
	n = f->size < 16 ? f->size : 16;
	memcpy(buf, (char *)ev->data + f->offset, n);
	buf[n] = '\0';
	return true;
}

static void stack(struct fmt_tprof_src *s, struct tep_event *e, const struct tfile_event *ev,
		  int pid)
{
	struct tep_format_field *f = tep_find_field(e, "caller");
	int ls = tep_get_long_size(s->tep);
	uint64_t end = ls == 8 ? UINT64_MAX : UINT32_MAX;
	size_t n = 0;

	if (!f || f->offset < 0 || (ls != 4 && ls != 8)) {
		fmt_tprof_other(s->p, ev->cpu);
		return;
	}
	for (uint64_t off = f->offset; off + ls <= ev->size; off += ls) {
		unsigned long long v = tep_read_number(s->tep, (char *)ev->data + off, ls);

		if (v == end)
			break;
		if (n == s->ipcap) {
			s->ipcap = s->ipcap ? 2 * s->ipcap : 64;
			s->ip = xrealloc(s->ip, s->ipcap * sizeof(*s->ip));
		}
		s->ip[n++] = v;
	}
	fmt_tprof_stack(s->p, ev->cpu, pid, s->ip, n);
}

void fmt_tprof_src_event(struct fmt_tprof_src *s, const struct tfile_event *ev)
{
	struct tep_record rec = { .ts = ev->ts, .cpu = ev->cpu, .size = ev->size, .data = ev->data };
	unsigned long long a, b, c;
	char ca[17], cb[17];
	struct tep_event *e;
	int id, pid, k;

	if (ev->missed)
		fmt_tprof_lost(s->p, ev->cpu);
	if (ev->size < 8) {
		fmt_tprof_other(s->p, ev->cpu);
		return;
	}
	id = tep_data_type(s->tep, &rec);
	pid = tep_data_pid(s->tep, &rec);
	for (k = 0; k < NEV; k++)
		if (s->ev[k] && s->ev[k]->id == id)
			break;
	e = k < NEV ? s->ev[k] : NULL;
	switch (e ? k : NEV) {
	case EV_SWITCH:
		if (num(e, ev, "prev_pid", &a) && num(e, ev, "prev_state", &b) &&
		    num(e, ev, "next_pid", &c) && str(e, ev, "prev_comm", ca) &&
		    str(e, ev, "next_comm", cb)) {
			fmt_tprof_switch(s->p, ev->ts, ev->cpu, (int)a, ca, b, (int)c, cb);
			return;
		}
		break;
	case EV_WAKEUP:
		/* Old kernels say whether the wake-up did anything. */
		if (num(e, ev, "success", &b) && !b)
			break;
		if (num(e, ev, "pid", &a) && str(e, ev, "comm", ca)) {
			fmt_tprof_wakeup(s->p, ev->ts, ev->cpu, (int)a, ca);
			return;
		}
		break;
	case EV_SYS_ENTER:
	case EV_SYS_EXIT:
		if (num(e, ev, "id", &a)) {
			(k == EV_SYS_ENTER ? fmt_tprof_sys_enter : fmt_tprof_sys_exit)(
				s->p, ev->ts, ev->cpu, pid, (long)(int64_t)a);
			return;
		}
		break;
	case EV_FAULT_USER:
	case EV_FAULT_KERNEL:
		fmt_tprof_fault(s->p, ev->cpu, pid, k == EV_FAULT_USER);
		return;
	case EV_STACK:
		stack(s, e, ev, pid);
		return;
	}
	fmt_tprof_other(s->p, ev->cpu);
}

const char *fmt_tprof_src_sym(void *tep, uint64_t ip, char *buf, size_t len)
{
	const char *fn = tep_find_function(tep, ip);
	unsigned long long at;

	if (!fn)
		return NULL;
	at = tep_find_function_address(tep, ip);
	if (ip > at)
		snprintf(buf, len, "%s+0x%" PRIx64, fn, ip - (uint64_t)at);
	else
		snprintf(buf, len, "%s", fn);
	return buf;
}
