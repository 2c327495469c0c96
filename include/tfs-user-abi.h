/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's user_events registration ABI (Linux 6.4 and later), at the
 * bottom of the tree with the control layer, since the capability probe
 * (caps.c) registers a test event through it; user/ and libtr-user build
 * on it through user_abi.h.  Written down here rather than taken from
 * <linux/user_events.h>: Debian bookworm's linux-libc-dev (6.1) ships the
 * earlier, incompatible draft of that header (a status page instead of an
 * enable bit), and the build must not depend on which kernel headers the
 * build machine has.  Field sizes, order and packing, and the ioctl
 * numbers, must stay exactly as the kernel defines them.
 */
#ifndef TR_TFS_USER_ABI_H
#define TR_TFS_USER_ABI_H

#include <stdint.h>
#include <sys/ioctl.h>

/* Registration flags. */
enum {
	/* The event outlives its last reference; needs CAP_PERFMON. */
	USER_EVENT_REG_PERSIST = 1u << 0,
	/* Several formats under one name: user_events_multi:NAME.<hex id>. */
	USER_EVENT_REG_MULTI_FORMAT = 1u << 1,
};

struct user_reg {
	uint32_t size;		/* sizeof(struct user_reg) */
	uint8_t enable_bit;	/* bit the kernel sets while the event is traced */
	uint8_t enable_size;	/* 4 or 8: width of the word at enable_addr */
	uint16_t flags;		/* USER_EVENT_REG_* */
	uint64_t enable_addr;	/* naturally aligned, writable, in this process */
	uint64_t name_args;	/* "NAME[:FLAGS] [FIELD[;FIELD...]]" */
	uint32_t write_index;	/* out: first word of every write for this event */
} __attribute__((__packed__));

struct user_unreg {
	uint32_t size;		/* sizeof(struct user_unreg) */
	uint8_t disable_bit;	/* the enable_bit registered */
	uint8_t __reserved;
	uint16_t __reserved2;
	uint64_t disable_addr;	/* the enable_addr registered */
} __attribute__((__packed__));

#define DIAG_IOC_MAGIC '*'
#define DIAG_IOCSREG _IOWR(DIAG_IOC_MAGIC, 0, struct user_reg *)
#define DIAG_IOCSDEL _IOW(DIAG_IOC_MAGIC, 1, char *)
#define DIAG_IOCSUNREG _IOW(DIAG_IOC_MAGIC, 2, struct user_unreg *)

#endif
