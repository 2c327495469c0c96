#!/usr/bin/env python3
"""Compare the kernel's `trace` text with tr report's, event by event.

    compare.py [--hashed] [--threshold PCT] [--examples N] KERNEL_TXT TR_TXT TR_CSV
    compare.py --lines [--hashed] [--threshold PCT] [--examples N] KERNEL_TXT TR_TXT

KERNEL_TXT is the instance's trace file, TR_TXT `tr report` of the same
buffer and TR_CSV `tr report --format csv` (for each line's system).  Events
are matched by CPU and occurrence (the n-th event of CPU c on both sides);
for each, the task, pid, timestamp, the irq-info column (where TR_TXT has
it: tr report --irq-info) and the text after the timestamp are compared.  tr's text pads the gap after an event's name to a column, as
trace-cmd does: that padding is taken out before comparing.

An event is identical when all of that is equal, with two allowances,
counted apart: the kernel printed the task as <...> (saved_cmdlines had no
name) where tr names it; and, with --hashed, where the kernel printed a
hashed pointer (hash-ptr set: 00000000 then 8 hex digits, a keyed hash no
reader can compute) tr's text has an address.

Prints a table per system and examples of each difference; with
--threshold, exits 1 when fewer than PCT% of the events are identical
(allowances included) or when the two sides do not hold the same events.

With --lines, TR_TXT is `tr report --header` under an output option that
changes the line's layout (raw, hex, bin, verbose, nocontext-info, fields,
record-tgid, latency-format, annotate), and the two texts are compared line
by line in the order printed: raw, hex and bin print the task, CPU and time
in their own encodings, nocontext-info prints no CPU at all, and
latency-format and verbose reorder the columns, so there is no CPU or
occurrence to match by; both sides merge the CPUs by time the same way.
The header lines (#) are left out (latency-format's names the machine's
model, which a file does not keep); a line the kernel or tr has that the
other lacks counts as different.  The texts are read as bytes (bin's
records are binary), split at newlines on both sides alike.  With --squeeze,
runs of blanks count as one on both sides (tr report keeps trace-cmd's
column widths under verbose).

With --ptr-strings (under fields), one known difference is counted apart:
since 6.16 the kernel prints a string pointer field (char *, const char *:
a syscall's filename) as "name=(0x" and the address of the field in its
ring buffer, which no recording keeps; tr prints the pointer the field
holds there (tr-report(1)).  (Some 6.18 builds print a syscall's pointer
itself there, without leading zeros: "filename=(0x55859b1ee4b0)".)  A line that differs only in the digits of
such "=(0x...)" tokens, as many on both sides, counts as identical
"(ptr-str)"; any other difference on the line still counts.
"""
import argparse
import collections
import csv
import difflib
import re
import sys

NAME_COL = 21

# "           <...>-1140    [001] d..2.  1234.567890: sched_switch: ..."
KLINE = re.compile(r"^(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*(?:\d+|-+)\)\s+)?"
                   r"\[(?P<cpu>\d+)\]\s+(?:(?P<flags>[^ \d]\S{3,4})\s+)?"
                   r"(?P<ts>\d+(?:\.\d+)?): (?P<rest>.*)$", re.S)
# "          sleep-29643 [001]   413.579735: kmalloc:              call_site=..."
# With --irq-info: "          sleep-29643 [001] d..2.   413.579735: ..."
TLINE = re.compile(r"^(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+"
                   r"(?:(?P<flags>[^ \d]\S{4})\s+)?"
                   r"(?P<ts>\d+(?:\.\d+)?): (?P<rest>.*)$", re.S)
LOST = re.compile(r"^\s*CPU:\d+ \[LOST")
HASHED = re.compile(r"\b00000000[0-9a-f]{8}\b")
# A string pointer field under fields: "name=(0x" and a pointer's digits, then ":" or ")".
PTR_STRING = re.compile(r"=\(0x[0-9a-f]{1,16}(?=[:)])")


def read_kernel(path):
    events = []
    with open(path, errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#") or LOST.match(line):
                continue
            m = KLINE.match(line)
            if not m:
                # A text with a newline in it goes on over the next lines.
                if events:
                    events[-1]["rest"] += "\n" + line
                continue
            events.append(dict(comm=m["comm"].strip(), pid=int(m["pid"]), cpu=int(m["cpu"]),
                               flags=m["flags"], ts=m["ts"], rest=m["rest"]))
    return events


def unpad(rest):
    """tr's "name:" padded to NAME_COL, then a space: back to "name: "."""
    m = re.match(r"^([^ :(]+:)( +)", rest)
    if m:
        name, gap = m.group(1), m.group(2)
        want = max(NAME_COL - len(name), 0) + 1
        if len(gap) >= want:
            return name + " " + rest[len(name) + want:]
    return rest


def read_tr(path, csv_path, prefix):
    rows = []
    with open(csv_path, newline="", errors="surrogateescape") as f:
        r = csv.reader(f)
        next(r, None)
        for row in r:
            if len(row) >= 6 and row[5] == "LOST" and not row[2]:
                continue
            rows.append(row)
    events = []
    with open(path, errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if prefix and line.startswith(prefix + ": "):
                line = line[len(prefix) + 2:]
            if line.startswith("cpus=") or LOST.match(line):
                continue
            m = TLINE.match(line)
            if not m:
                if events:
                    events[-1]["rest"] += "\n" + line
                continue
            events.append(dict(comm=m["comm"].strip(), pid=int(m["pid"]), cpu=int(m["cpu"]),
                               flags=m["flags"], ts=m["ts"], rest=unpad(m["rest"])))
    if len(rows) != len(events):
        sys.exit("compare: %d text lines but %d csv rows" % (len(events), len(rows)))
    for e, row in zip(events, rows):
        e["system"], e["event"] = row[4] or "?", row[5] or "?"
    return events


def by_cpu(events):
    out = collections.defaultdict(list)
    for e in events:
        out[e["cpu"]].append(e)
    return out


HEX = frozenset("0123456789abcdef")


def hashed_match(k, t):
    """Is t k with an address wherever k has a hashed pointer?"""
    parts = HASHED.split(k)
    if len(parts) == 1:
        return False
    pos = 0
    for i, p in enumerate(parts):
        if not t.startswith(p, pos):
            return False
        pos += len(p)
        if i + 1 < len(parts):
            h = t[pos:pos + 16]
            if len(h) != 16 or not HEX.issuperset(h):
                return False
            pos += 16
    return pos == len(t)


def ptr_string_match(k, t):
    """Do k and t differ only in the digits of their string pointer tokens?"""
    ks, ts = PTR_STRING.split(k), PTR_STRING.split(t)
    return len(ks) > 1 and ks == ts


def read_lines(path, prefix, squeeze=False):
    out = []
    with open(path, "rb") as f:
        for line in f.read().decode("latin-1").split("\n"):
            if prefix and line.startswith(prefix + ": "):
                line = line[len(prefix) + 2:]
            if line.startswith("#") or not line:
                continue
            out.append(re.sub(r" +", " ", line) if squeeze else line)
    return out


def compare_lines(a):
    kern = read_lines(a.kernel, None, a.squeeze)
    mine = read_lines(a.tr, a.prefix, a.squeeze)
    # As many lines on both sides: line n with line n.  Otherwise the lines
    # one side lacks are found by difflib (quadratic where many lines are
    # alike, as under nocontext-info: only then).
    if len(kern) == len(mine):
        ops = [("replace" if k != t else "equal", i, i + 1, i, i + 1)
               for i, (k, t) in enumerate(zip(kern, mine))]
    else:
        ops = difflib.SequenceMatcher(None, kern, mine).get_opcodes()
    same = hashed = ptrs = 0
    diffs = []
    for op, i1, i2, j1, j2 in ops:
        if op == "equal":
            same += i2 - i1
            continue
        ks, ts = kern[i1:i2], mine[j1:j2]
        if op == "replace" and len(ks) == len(ts) and (a.hashed or a.ptr_strings):
            rest_k, rest_t = [], []
            for k, t in zip(ks, ts):
                if a.hashed and hashed_match(k, t):
                    hashed += 1
                elif a.ptr_strings and ptr_string_match(k, t):
                    ptrs += 1
                else:
                    rest_k.append(k)
                    rest_t.append(t)
            ks, ts = rest_k, rest_t
        diffs.append((ks, ts))
    compared = max(len(kern), len(mine))
    alike = same + hashed + ptrs
    different = compared - alike
    extra = ("%9s" % "(ptr-str)") if a.ptr_strings else ""
    print("%-20s %9s %9s %9s %9s %s%9s" % ("lines", "kernel", "tr", "identical", "(hashed)",
                                           extra + " " if extra else "", "different"))
    extra = ("%9d" % ptrs) if a.ptr_strings else ""
    print("%-20s %9d %9d %9d %9d %s%9d" % ("total", len(kern), len(mine), alike, hashed,
                                           extra + " " if extra else "", different))
    pct = 100.0 * alike / compared if compared else 0.0
    print("identical: %.3f%%" % pct)
    shown = 0
    for ks, ts in diffs:
        if not ks and not ts or shown >= a.examples:
            continue
        shown += 1
        print("\nlines differ (kernel %d, tr %d):" % (len(ks), len(ts)))
        for who, ls in (("kernel", ks), ("tr", ts)):
            for line in ls[:3]:
                print("  %-7s %s" % (who + ":", line.encode("latin-1").decode(errors="replace")))
    if not compared:
        print("compare: no lines compared", file=sys.stderr)
        return 1
    if a.threshold is not None and pct < a.threshold:
        print("compare: %.3f%% identical, below the threshold %.3f%%" % (pct, a.threshold),
              file=sys.stderr)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", action="store_true",
                    help="compare the texts line by line in order (see above)")
    ap.add_argument("--squeeze", action="store_true",
                    help="with --lines, runs of blanks count as one")
    ap.add_argument("--hashed", action="store_true")
    ap.add_argument("--ptr-strings", action="store_true",
                    help="with --lines, count string pointer tokens apart (see above)")
    ap.add_argument("--threshold", type=float)
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("--prefix", help="the buffer name tr puts before each line")
    ap.add_argument("kernel")
    ap.add_argument("tr")
    ap.add_argument("csv", nargs="?")
    a = ap.parse_args()
    if a.lines:
        return compare_lines(a)
    if not a.csv:
        ap.error("TR_CSV is needed but with --lines")

    kern = by_cpu(read_kernel(a.kernel))
    mine = by_cpu(read_tr(a.tr, a.csv, a.prefix))
    stats = collections.defaultdict(collections.Counter)
    examples = collections.defaultdict(list)
    kinds = collections.Counter()
    problems = []
    for cpu in sorted(set(kern) | set(mine)):
        ks, ts = kern.get(cpu, []), mine.get(cpu, [])
        if len(ks) != len(ts):
            problems.append("cpu %d: the kernel shows %d events, tr %d" % (cpu, len(ks), len(ts)))
        for k, t in zip(ks, ts):
            sysname = t["system"]
            st = stats[sysname]
            st["compared"] += 1
            what = []
            if k["pid"] != t["pid"]:
                what.append("pid")
            named = False
            if k["comm"] != t["comm"]:
                if k["comm"] == "<...>":
                    named = True
                else:
                    what.append("comm")
            if k["ts"] != t["ts"]:
                what.append("timestamp")
            # The irq-info column, where both printed one.
            if k["flags"] and t["flags"] and k["flags"] != t["flags"]:
                what.append("flags")
            hashed = False
            if k["rest"] != t["rest"]:
                if a.hashed and hashed_match(k["rest"], t["rest"]):
                    hashed = True
                else:
                    what.append("text")
            if what:
                st["different"] += 1
                key = "%s:%s (%s)" % (sysname, t["event"], ",".join(what))
                kinds[key] += 1
                if len(examples[key]) < a.examples:
                    examples[key].append((k, t))
            else:
                st["identical"] += 1
                if named:
                    st["named"] += 1
                if hashed:
                    st["hashed"] += 1

    total = collections.Counter()
    print("%-20s %9s %9s %9s %9s %9s" % ("system", "compared", "identical", "(named)",
                                         "(hashed)", "different"))
    for s in sorted(stats):
        st = stats[s]
        total.update(st)
        print("%-20s %9d %9d %9d %9d %9d" % (s, st["compared"], st["identical"], st["named"],
                                             st["hashed"], st["different"]))
    pct = 100.0 * total["identical"] / total["compared"] if total["compared"] else 0.0
    print("%-20s %9d %9d %9d %9d %9d" % ("total", total["compared"], total["identical"],
                                         total["named"], total["hashed"], total["different"]))
    print("identical: %.3f%%" % pct)
    for p in problems:
        print("problem: " + p)
    for key, n in kinds.most_common():
        print("\n%s: %d event%s differ" % (key, n, "" if n == 1 else "s"))
        for k, t in examples[key]:
            for who, e in (("kernel", k), ("tr", t)):
                print("  %-7s %s-%d [%03d] %s %s: %s" % (who + ":", e["comm"], e["pid"], e["cpu"],
                                                     e["flags"] or "", e["ts"], e["rest"]))
    if not total["compared"]:
        print("compare: no events compared", file=sys.stderr)
        return 1
    if a.threshold is not None and (pct < a.threshold or problems):
        print("compare: %.3f%% identical, below the threshold %.3f%%%s" %
              (pct, a.threshold, " (and the events do not match up)" if problems else ""),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
