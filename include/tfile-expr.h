/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The print fmt's argument list as a tree: one parser of the C expressions
 * an event's "print fmt:" holds, for the format checker (tfile-format.c,
 * which works out its bounds over the tree) and the kernel printer's
 * compiler (fmt/fmt-kexpr.c, which gives the tree C's types and evaluates
 * it).  The tree keeps the text as written (s, n point into it); what a
 * name means -- a field, a helper, a type, a constant -- is its reader's
 * to decide, but for the helpers' names (tfile_helper_find) and REC->.
 *
 *   struct tfile_print pr;
 *   if (tfile_print_parse(text, len, &opts, &pr))   pr.why says where it failed
 *   ... pr.fmt, pr.args[0 .. pr.nargs) ...
 *   tfile_print_free(&pr);                           (always, also after a failure)
 *
 * The grammar: a string (adjacent literals are one), then comma-separated
 * expressions of numbers, strings, character constants, names, REC->field,
 * casts, sizeof, unary and binary C operators, ?:, a[i], a.b and a->b, and
 * calls (a __get_ helper takes a name; __print_flags and __print_symbolic
 * end in { value, "name" } entries).  Two things depend on the reader,
 * through opts:
 *   - what a type name is.  With opts.type NULL (the checker's reading) a
 *     '(' is a cast when only words and '*' stand up to its ')' and a value
 *     follows it, sizeof(...) takes whatever is in its parentheses, and a
 *     statement expression "({ ... })" fails the text.  With opts.type set
 *     (the kernel printer's reading) a '(' is a cast when opts.type reads a
 *     type name up to its ')', sizeof takes a type name or an expression,
 *     statement expressions hold declarations "TYPE NAME = EXPR;" and
 *     expressions, and REC.field is REC->field;
 *   - the limits: opts.max_depth on nesting (unary operators and
 *     subexpressions; with depth_unary, unary operators alone), and
 *     opts.max_tokens on the text's tokens (0: none).
 * Memory: every node belongs to the tfile_print, freed at once.
 */
#ifndef TR_TFILE_EXPR_H
#define TR_TFILE_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tfile-format.h"

enum tfile_expr_kind {
	TX_NUM,		/* num, num_u, num_l; s, n: as written ("0x10", "1000ULL") */
	TX_STR,		/* s, n: the literals as written, their quotes and blanks between */
	TX_CHAR,	/* s, n: the constant with its quotes */
	TX_NAME,	/* s, n: an identifier (an enum constant, a macro, a local, NULL) */
	TX_REC,		/* REC alone (paren: it was in parentheses) */
	TX_FIELD,	/* REC->name, (REC)->name (paren), or REC.name (dot); s, n: the name */
	TX_CALL,	/* s, n: the name; h, rel: tfile_helper_find's; args[nargs] */
	TX_ENTRY,	/* a __print_flags/_symbolic entry { a, b }; a NULL for "{ }" */
	TX_CAST,	/* (type) a; ts, tn: the type as written */
	TX_SIZEOF,	/* sizeof(type): ts, tn; or sizeof(expression): a */
	TX_UNARY,	/* op[0] is one of - + ! ~ * &; a */
	TX_BINARY,	/* a op b: op is "+", "<<", "&&", ... */
	TX_COND,	/* a ? b : c */
	TX_INDEX,	/* a[b] */
	TX_MEMBER,	/* a.name or a->name (op "." or "->"); s, n: the name */
	TX_STMT,	/* ({ args[0]; ...; args[nargs - 1]; }): each a TX_DECL or an expression */
	TX_DECL,	/* TYPE NAME = a; in a statement expression: ts, tn the type, s, n the name */
};

struct tfile_expr {
	enum tfile_expr_kind k;
	const char *s;
	size_t n;
	const char *ts;
	size_t tn;
	uint64_t num;		/* TX_NUM: UINT64_MAX past 64 bits */
	bool num_u, num_l;	/* TX_NUM: a 'u', an 'l' in its suffix */
	bool paren, dot;	/* TX_REC, TX_FIELD: see above */
	char op[3];
	enum tfile_helper h;	/* TX_CALL */
	bool rel;
	struct tfile_expr *a, *b, *c;
	struct tfile_expr **args;
	int nargs;
};

struct tfile_expr_opts {
	int max_depth;		/* 0: 32 */
	bool depth_unary;	/* count unary operators' nesting alone */
	int max_tokens;		/* 0: no limit */
	/*
	 * Reads a type name at l's token: false (l untouched) if none starts
	 * there; true with l past it, or failed (tfile_lex_fail) if one starts
	 * and is malformed.  NULL: the checker's reading (above).
	 */
	bool (*type)(void *ctx, struct tfile_lex *l);
	void *ctx;
};

struct tfile_print {
	const char *fmt;	/* the format string's literals as written */
	size_t fmt_len;
	struct tfile_expr **args;
	int nargs;
	char why[160];		/* why the text failed */
	struct tfile_expr_mem *mem;	/* the nodes */
};

/*
 * Parse a print fmt (what follows "print fmt: ", len bytes, need not end in
 * NUL) into *pr: 0, or -EINVAL with the reason in pr->why (the first
 * problem the parser met).  Free pr either way.
 */
int tfile_print_parse(const char *text, size_t len, const struct tfile_expr_opts *o,
		      struct tfile_print *pr);
void tfile_print_free(struct tfile_print *pr);

/*
 * A left-deep chain of binary operators ("a + b + c + ..." is as long as
 * the text, which no depth limit bounds): its nodes from the innermost
 * ((*spine)[0], whose a is not a TX_BINARY) to e itself, in an array the
 * caller frees.  Returns how many.  For readers that walk the chain
 * without recursing down it.
 */
int tfile_expr_spine(const struct tfile_expr *e, const struct tfile_expr ***spine);

#endif
