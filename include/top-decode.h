/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr top's decoder, which tr serve's metrics read too: raw ring-buffer
 * records (page.h's tfile_event) of one tep handle's formats into typed
 * top_recs.  Field offsets are looked up once per event id; decoding a
 * record is a table lookup and a few loads.  Defined in src/top/top-decode.c.
 */
#ifndef TR_TOP_DECODE_H
#define TR_TOP_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "page.h"
#include "top.h"

struct tep_handle;

/* ---- records ---- */

enum top_kind {
	TOP_EV_OTHER,		/* counted in the events view only */
	TOP_EV_SWITCH,		/* sched_switch */
	TOP_EV_WAKING,		/* sched_waking (or sched_wakeup where there is no waking) */
	TOP_EV_WAKEUP_NEW,	/* sched_wakeup_new */
	TOP_EV_MIGRATE,		/* sched_migrate_task */
	TOP_EV_EXIT,		/* sched_process_exit */
	TOP_EV_FORK,		/* sched_process_fork */
	TOP_EV_RENAME,		/* task_rename */
	TOP_EV_SYS_ENTER,	/* raw_syscalls:sys_enter, syscalls:sys_enter_* */
	TOP_EV_SYS_EXIT,	/* raw_syscalls:sys_exit, syscalls:sys_exit_* */
	TOP_EV_IRQ_ENTRY,	/* irq_handler_entry */
	TOP_EV_IRQ_EXIT,	/* irq_handler_exit */
	TOP_EV_SOFTIRQ_ENTRY,
	TOP_EV_SOFTIRQ_EXIT,
	TOP_EV_FAULT_USER,	/* exceptions:page_fault_user (tr serve) */
	TOP_EV_FAULT_KERNEL,	/* exceptions:page_fault_kernel */
	TOP_EV_BLOCK_ISSUE,	/* block:block_rq_issue */
	TOP_EV_BLOCK_DONE,	/* block:block_rq_complete */
	TOP_EV__COUNT
};

#define TOP_COMM_LEN 16

/* A string field of a record: not NUL-terminated, at most len bytes. */
struct top_str {
	const char *s;
	unsigned len;
};

struct top_rec {
	enum top_kind kind;
	int id;			/* common_type */
	int cpu;
	int pid;		/* common_pid */
	uint64_t ts;
	/*
	 * Per kind: switch: pid = prev, pid2 = next, num = prev_state, str =
	 * prev_comm, str2 = next_comm; waking, wakeup_new, exit, rename,
	 * migrate: pid = the task, str = its comm (rename: the new one),
	 * num = target/dest CPU; fork: pid = parent, pid2 = child, str2 =
	 * child_comm; sys_enter/exit: num = nr, num2 = ret; irq: num = irq,
	 * str = name; softirq: num = vec; block: num = dev, num2 = sector.
	 */
	int tpid, tpid2;
	int64_t num, num2;
	struct top_str str, str2;
	/* syscalls:sys_{enter,exit}_NAME: "NAME" (num is the number), else NULL. */
	const char *sc_name;
	/* The --latency pair: this record starts one on lat_skey, or ends one on lat_ekey. */
	bool lat_start, lat_end;
	uint64_t lat_skey, lat_ekey;
};

/* ---- the decoder ---- */

struct top_decoder;

/*
 * A decoder for tep's formats.  lat, if not NULL, must name events and
 * fields tep has (-ENOENT with tr_fail() otherwise).
 */
int top_decoder_new(struct tep_handle *tep, const struct top_lat_spec *lat,
		    struct top_decoder **out);
/* Fill r from ev; returns r->kind.  Records too short for their fields are TOP_EV_OTHER. */
enum top_kind top_decode(const struct top_decoder *d, const struct tfile_event *ev,
			 struct top_rec *r);
/* Is the event kind k decoded from an event this tep has? */
bool top_decoder_has(const struct top_decoder *d, enum top_kind k);
/* The "sys:event" name of an event id, or NULL. */
const char *top_decoder_event_name(const struct top_decoder *d, int id);
void top_decoder_free(struct top_decoder *d);

#endif
