#!/bin/bash
# Bad and hostile input: a truncated file, a corrupt header, a file that is
# not a trace, random damage.  Each gives exactly one error line naming the
# file and the offset, exit status 1, and no sanitizer report (the suite
# runs the ASan/UBSan build: a report exits 86, which test_must_fail and
# test_expect_code reject).
. "$(dirname "$0")/lib.sh"

data=$TEST_ROOT/tests/data
# libtraceevent leaks what it allocated for a format it then finds malformed.
export LSAN_OPTIONS="suppressions=$data/lsan.supp:print_suppressions=0"

test_expect_success 'truncated in the CPU data: names the file, the offset and the CPU' '
	size=$(stat -c %s "$data/report-v6.dat") &&
	head -c $((size - 100)) "$data/report-v6.dat" >cut.dat &&
	one_error cut.dat "^tr: '"'"'cut.dat'"'"': truncated at offset $((size - 100)) (in the CPU 1 data of buffer '"'"'trgen6'"'"')$"
'

test_expect_success 'truncated in the header, the formats, the options: one error each' '
	for n in 5 12 100 300 2000 6000; do
		head -c $n "$data/report-v6.dat" >cut.dat &&
		one_error cut.dat "^tr: '"'"'cut.dat'"'"': truncated at offset $n (in the " || exit 1
	done &&
	for n in 30 200 5000; do
		head -c $n "$data/report-v7.dat" >cut7.dat &&
		one_error cut7.dat "^tr: '"'"'cut7.dat'"'"': truncated at offset $n " || exit 1
	done
'

test_expect_success 'not a trace file, an empty file, a directory, a missing file' '
	echo "hello, world" >text.dat &&
	one_error text.dat "^tr: '"'"'text.dat'"'"': not a trace file (no trace.dat magic at offset 0)$" &&
	: >empty.dat &&
	one_error empty.dat "not a trace file" &&
	mkdir dir.dat &&
	one_error dir.dat "^tr: '"'"'dir.dat'"'"' is not a regular file (a directory)$" &&
	one_error missing.dat "^tr: cannot open '"'"'missing.dat'"'"': No such file or directory$"
'

test_expect_success 'a corrupt header: bad version, endianness, page size' '
	cp "$data/report-v6.dat" bad.dat &&
	printf 9 | dd of=bad.dat bs=1 seek=10 conv=notrunc 2>/dev/null &&
	one_error bad.dat "^tr: '"'"'bad.dat'"'"': corrupt header at offset 10 (file version" &&
	cp "$data/report-v6.dat" bad.dat &&
	printf "\x07" | dd of=bad.dat bs=1 seek=12 conv=notrunc 2>/dev/null &&
	one_error bad.dat "corrupt header at offset 12 (endian 7, long size 8)" &&
	cp "$data/report-v6.dat" bad.dat &&
	printf "\xff\xff\xff\x7f" | dd of=bad.dat bs=1 seek=14 conv=notrunc 2>/dev/null &&
	one_error bad.dat "corrupt header at offset 14 (page size"
'

test_expect_success 'a corrupt v7 section and a corrupt compressed chunk' '
	off=$(python3 -c "import struct,sys; d=open(sys.argv[1],\"rb\").read(); p=d.index(b\"\\0\",10)+7; p=d.index(b\"\\0\",p)+1; p=d.index(b\"\\0\",p)+1; print(struct.unpack_from(\"<Q\",d,p)[0])" "$data/report-v7.dat") &&
	cp "$data/report-v7.dat" bad7.dat &&
	printf "\x09" | dd of=bad7.dat bs=1 seek=$off conv=notrunc 2>/dev/null &&
	one_error bad7.dat "^tr: '"'"'bad7.dat'"'"': corrupt section at offset $off: id 9 where the options should be$" &&
	size=$(stat -c %s "$data/report-v7-zlib.dat") &&
	cp "$data/report-v7-zlib.dat" badz.dat &&
	python3 -c "
import sys
p = sys.argv[1]
d = bytearray(open(p, \"rb\").read())
# the first chunk: a count, two sizes, then zlib data (78 da)
i = next(i for i in range(0, len(d), 4096) if d[i + 12:i + 14] == b\"\\x78\\xda\")
d[i + 20:i + 28] = b\"garbage!\"
open(p, \"wb\").write(d)" badz.dat &&
	one_error badz.dat "^tr: '"'"'badz.dat'"'"': corrupt compressed data at offset [0-9]* (in the CPU [01] data of buffer '"'"'trgen7'"'"')$"
'

test_expect_success 'corrupt event data in a page: the offset of the bad event' '
	cp "$data/report-v6.dat" page.dat &&
	python3 -c "
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, \"rb\").read())
# the second table: the instance'"'"'s (the first is the empty top level'"'"'s)
i = d.index(b\"flyrecord\\0\", d.index(b\"flyrecord\\0\") + 10) + 10
off, size = struct.unpack_from(\"<QQ\", d, i + 16)
# the commit of CPU 1 first page: more than the page holds
struct.pack_into(\"<Q\", d, off + 8, 5000)
open(p, \"wb\").write(d)
print(off + 8)" page.dat >where &&
	one_error page.dat "^tr: '"'"'page.dat'"'"': corrupt event data at offset $(cat where) (in the CPU 1 data of buffer '"'"'trgen6'"'"')$"
'

test_expect_success 'random damage: an error or a report, never a crash' '
	python3 - "$TR" "$data" <<-\PY
	import os, random, subprocess, sys
	tr, data = sys.argv[1], sys.argv[2]
	random.seed(4)
	for name in ("report-v6.dat", "report-v7.dat", "report-v7-zlib.dat", "report-lost.dat"):
	    orig = open(os.path.join(data, name), "rb").read()
	    for i in range(25):
	        d = bytearray(orig)
	        for _ in range(random.randint(1, 6)):
	            d[random.randrange(len(d))] = random.randrange(256)
	        open("fuzz.dat", "wb").write(d)
	        p = subprocess.run([tr, "report", "-i", "fuzz.dat"], stdout=subprocess.DEVNULL,
	                           stderr=subprocess.PIPE)
	        err = p.stderr.decode(errors="replace")
	        if p.returncode not in (0, 1) or "Sanitizer" in err or "runtime error" in err:
	            sys.exit("%s #%d: status %d\n%s" % (name, i, p.returncode, err[-3000:]))
	        if p.returncode == 1 and not err.startswith("tr: \x27fuzz.dat\x27"):
	            sys.exit("%s #%d: %s" % (name, i, err))
	PY
'

test_expect_success 'usage errors exit 64' '
	test_expect_code 64 tr report --format yaml &&
	test_expect_code 64 tr report --cpu 1-x &&
	test_expect_code 64 tr report -v &&
	test_expect_code 64 tr report --stat --events &&
	test_expect_code 64 tr report --format json -R
'

test_expect_success 'a bad filter: one error naming it' '
	test_expect_code 1 tr report -i "$data/report-v7.dat" -F "no_such_event" >out 2>err &&
	test_grep -q "^tr: bad filter '"'"'no_such_event'"'"': " err &&
	test "$(wc -l <err)" = 1
'

test_done
