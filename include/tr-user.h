/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr-user.h: user events from C programs (link with -ltr-user).
 *
 * Define an event once, at file scope, with its fields in the kernel's
 * user_events syntax, and emit it where it happens:
 *
 *   #include <tr-user.h>
 *
 *   TR_USER_EVENT(req_done, "req_done", "u32 id; s64 usecs; __rel_loc char[] path");
 *
 *   tr_user_emit(&req_done, id, (int64_t)usecs, path);
 *
 * While no tool traces the event, tr_user_emit() is one load and one branch:
 * its arguments are not even evaluated, and there is no system call.  The
 * kernel keeps a bit in the event's state word current (the ABI's enable
 * bit); while it is set an emit is one writev().  Events register on first
 * use (or with tr_user_register()), unregister at exit, and register again
 * in a child after fork().  TR_USER_EVENT_MULTI asks for a multi-format
 * event (user_events_multi:NAME.ID), falling back to a plain one on kernels
 * before 6.10.  tr_user_register_bit() has the kernel keep a bit of the
 * caller's own word as well (say one 64-bit word with a bit per event).
 *
 * Arguments of tr_user_emit(), one per field in order:
 *   u8 u16 u32, s8 s16 s32, char short int   int or unsigned int
 *   u64 s64                                  64-bit: uint64_t or int64_t, cast literals
 *   char[N]                                  const char * (cut to N-1 bytes)
 *   __data_loc / __rel_loc char[]            const char * (NULL: empty)
 *   __data_loc / __rel_loc OTHER[]           const void *, then size_t bytes
 *   struct NAME SIZE                         const void * to SIZE bytes
 * It returns 1 when the event was written, 0 when nobody traces it, and
 * -errno on failure (a registration failure is returned once; the event is
 * then off for good).
 *
 * Thread-safe.  The tracefs directory is /sys/kernel/tracing unless
 * $TR_TRACEFS says otherwise.
 */
#ifndef TR_USER_PUBLIC_H
#define TR_USER_PUBLIC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* state: bit 0 is the kernel's enable bit; bit 31 means "not registered yet". */
#define TR_USER_UNREGISTERED (1u << 31)
#define TR_USER_MULTI 1u

struct tr_user_event {
	uint32_t state;			/* non-zero: take the slow path */
	uint32_t write_index;		/* from the kernel, for this process */
	const char *name;
	const char *fields;
	unsigned flags;			/* TR_USER_MULTI */
	int error;			/* registration's -errno, once it failed */
	struct tr_user_event *next;	/* the library's list of registered events */
	void *format;			/* the parsed fields (library-owned) */
	void *own_word;			/* tr_user_register_bit()'s word, or NULL */
	uint8_t own_size, own_bit;
};

#define TR_USER_EVENT(var, ename, efields) \
	struct tr_user_event var = { TR_USER_UNREGISTERED, 0, (ename), (efields), 0, 0, 0, 0, 0, 0, 0 }
#define TR_USER_EVENT_MULTI(var, ename, efields) \
	struct tr_user_event var = { TR_USER_UNREGISTERED, 0, (ename), (efields), TR_USER_MULTI, \
				     0, 0, 0, 0, 0, 0 }

/* Is the event traced now (or not yet registered)?  One load, one branch. */
#define tr_user_enabled(ev) \
	__builtin_expect(__atomic_load_n(&(ev)->state, __ATOMIC_RELAXED) != 0, 0)

#define tr_user_emit(ev, ...) \
	(tr_user_enabled(ev) ? tr_user_emit_slow((ev), ##__VA_ARGS__) : 0)

/*
 * A payload laid out by the caller: the fields in order, packed, as the
 * kernel reads what follows the write index (which the library puts first).
 * At most 63 iovecs; 1, 0 or -errno as tr_user_emit().
 */
#define tr_user_writev(ev, iov, n) \
	(tr_user_enabled(ev) ? tr_user_writev_slow((ev), (iov), (n)) : 0)

int tr_user_emit_slow(struct tr_user_event *ev, ...);
int tr_user_writev_slow(struct tr_user_event *ev, const struct iovec *iov, int n);

/* Register now rather than at the first emit: 0 or -errno. */
int tr_user_register(struct tr_user_event *ev);
/*
 * Register now, and have the kernel keep bit `bit` of the caller's own word
 * too: `word` points to a uint32_t (size 4) or uint64_t (size 8, 64-bit
 * systems), naturally aligned, and bit < 8 * size.  The kernel sets the bit
 * while the event is traced and clears it when not, and when the event is
 * unregistered (tr_user_unregister_all(), exit); it changes that bit alone,
 * atomically, so the word's other bits can serve other events or the
 * caller (who must change them atomically too).  The event's own state word
 * is kept as before: tr_user_emit() works the same.  The word must stay
 * valid until the event is unregistered.  0; -EINVAL for a bad size,
 * alignment or bit; -EALREADY if the event registered already;
 * -EADDRINUSE if this word and bit serve another event; or the kernel's
 * -errno (the event is then off, as after a failed tr_user_register()).
 */
int tr_user_register_bit(struct tr_user_event *ev, void *word, unsigned size, unsigned bit);
/* Unregister every event (done at exit); later emits write nothing. */
void tr_user_unregister_all(void);

#ifdef __cplusplus
}
#endif

#endif
