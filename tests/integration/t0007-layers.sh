#!/bin/bash
# The house rules, checked on the code itself: only the command layer
# (src/cmd/ and the root in tr.c) writes to stdout (the link map); no folder
# includes a header of a folder above it (the #include lines); README's
# Layout names every folder and header, in this order; nothing empty is
# tracked at the top of the tree.  Layers below return errors and fill
# models; renderers print to the FILE they are handed.
. "$(dirname "$0")/lib.sh"

[ -n "${TR_VM:-}" ] && test_skip_all="the code is checked on the host tier"

# The folders from the top down: each may include only those after it.
# README's Layout lists them in this order too (checked below).
LAYERS="cmd serve top hist live rec net fmt pftrace tracedat user tracefs util"

# README's Layout table: "FOLDER HEADER..." a line, in the table's order.
layout_rows() {
	sed -n '/^## Layout/,/^## /p' "$TEST_ROOT/README.md" | grep '^| `src/' |
		while IFS='|' read -r _ folder _ headers _; do
			f=$(grep -o 'src/[a-z]*/' <<<"$folder" | head -1)
			f=${f#src/}
			echo "${f%/} $(grep -o '`[^`]*\.h`' <<<"$headers" | command tr -d '`' | paste -sd' ')"
		done
}

test_expect_success 'README Layout lists the folders in the order of the layers, and every one' '
	layout_rows | cut -d" " -f1 | paste -sd" " >got &&
	echo "$LAYERS" >expect &&
	test_cmp expect got &&
	(cd "$TEST_ROOT/src" && ls -d */ | command tr -d / | sort) >dirs &&
	command tr " " "\n" <expect | sort >listed &&
	test_cmp dirs listed
'

test_expect_success 'README Layout names every header in include/' '
	layout_rows | cut -d" " -f2- | command tr " " "\n" | grep . | sort >named &&
	(cd "$TEST_ROOT/include" && ls *.h) | sort >all &&
	test_cmp all named
'

test_expect_success 'no folder includes a header of a folder above it, or another one'"'"'s private one' '
	layout_rows >rows &&
	rank() { local i=0 l; for l in $LAYERS; do [ "$l" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; } &&
	: >bad &&
	for f in "$TEST_ROOT"/src/tr.c "$TEST_ROOT"/src/*/*.[ch] "$TEST_ROOT"/include/*.h; do
		case $f in
		*/src/tr.c) d=cmd ;;
		*/src/*) d=$(basename "$(dirname "$f")") ;;
		*) d=$(awk -v h="$(basename "$f")" "{ for (i = 2; i <= NF; i++) if (\$i == h) print \$1 }" rows) ;;
		esac
		for h in $(sed -n "s/^#include \"\(.*\)\"/\1/p" "$f"); do
			o=$(awk -v h="$h" "{ for (i = 2; i <= NF; i++) if (\$i == h) print \$1 }" rows)
			if [ -z "$o" ]; then
				# A private header: only its own folder.
				[ -e "$(dirname "$f")/$h" ] && case $f in */src/*) continue ;; esac
				echo "${f#$TEST_ROOT/} ($d) includes $h, private to another folder"
			elif [ "$(rank "$o")" -lt "$(rank "$d")" ]; then
				echo "${f#$TEST_ROOT/} ($d) includes $h ($o, above it)"
			fi
		done
	done >bad &&
	test_must_be_empty bad
'

# decl_check ROWS INC SRC: "HEADER (OWNER) declares NAME, defined in FOLDER"
# for each function a header of include/ declares while only a folder above
# the header's owner (README's Layout row) defines it: a header is its own
# layer's interface, so `rec_` in rec.h means src/rec/.  One pass: the
# non-static definitions of src/*/*.c (a line opening with a type and a
# name and "("), then each header's prototypes against them.
decl_check() {
	local f
	for f in "$3"/*/*.c; do
		d=${f%/*}
		d=${d##*/}
		sed -nE 's/^[a-z][a-z0-9_ ]*[ *]\**([a-z_][a-z0-9_]*)\(.*/\1/p' "$f" |
			sed "s/^/D $d /"
	done
	while read -r d hs; do
		for h in $hs; do
			[ -e "$2/$h" ] || continue
			sed -e 's|/\*.*\*/||g' "$2/$h" |
				grep -vE '^(static|typedef|#|extern)' |
				sed -nE 's/^[a-z][a-z0-9_ ]*[ *]\**([a-z_][a-z0-9_]*)\(.*/\1/p' |
				sed "s/^/H $d $h /"
		done
	done <"$1"
} 2>/dev/null
decl_report() { # LAYERS, then decl_check's lines on stdin
	awk -v layers="$1" '
		BEGIN { n = split(layers, l, " "); for (i = 1; i <= n; i++) rank[l[i]] = i }
		$1 == "D" { def[$3] = def[$3] " " $2; next }
		$1 == "H" { hd[++nh] = $0 }
		END {
			for (i = 1; i <= nh; i++) {
				split(hd[i], f, " "); name = f[4]
				if (!(name in def)) continue
				m = split(def[name], w, " "); ok = 0
				for (j = 1; j <= m; j++) if (rank[w[j]] >= rank[f[2]]) ok = 1
				if (!ok) print f[3] " (" f[2] ") declares " name ", defined in" def[name]
			}
		}'
}

test_expect_success 'a header declares only functions its own folder or one below defines' '
	layout_rows >rows &&
	decl_check rows "$TEST_ROOT/include" "$TEST_ROOT/src" | decl_report "$LAYERS" >bad &&
	test_must_be_empty bad
'

test_expect_success 'the declaration check finds a header that declares a higher folder'"'"'s function' '
	mkdir -p fx/include fx/src/cmd fx/src/util &&
	printf "int cmd_thing(int a)\n{\n\treturn a;\n}\n" >fx/src/cmd/cmd-thing.c &&
	printf "int util_ok(void)\n{\n\treturn 0;\n}\n" >fx/src/util/ok.c &&
	printf "int cmd_thing(int a);\nint util_ok(void);\n" >fx/include/u.h &&
	printf "cmd\nutil u.h\n" >fxrows &&
	decl_check fxrows fx/include fx/src | decl_report "$LAYERS" >bad &&
	echo "u.h (util) declares cmd_thing, defined in cmd" >expect &&
	test_cmp expect bad
'

test_expect_success 'nothing empty is tracked at the top of the tree' '
	command -v git >/dev/null && git -C "$TEST_ROOT" rev-parse 2>/dev/null || exit 0
	git -C "$TEST_ROOT" ls-files | grep -v / | while read -r f; do
		[ -s "$TEST_ROOT/$f" ] || echo "$f"
	done >empty &&
	test_must_be_empty empty
'

case $TR in
*/build/asan/tr) objs=$(dirname "$TR") ;;
*) objs=$TEST_ROOT/build/obj ;;
esac
have_objs=true
[ -f "$objs/tr.o" ] || have_objs=false
command -v nm >/dev/null || have_objs=false

$have_objs && test_expect_success 'no file below the command layer prints to stdout' '
	for o in $(find "$objs" -name "*.o" ! -path "*/cmd/*" ! -name tr.o); do
		n=$(basename "$o" .o)
		nm -u "$o" | awk "{print \$2}" |
			grep -xE "printf|puts|putchar|putchar_unlocked|vprintf|__printf_chk|__vprintf_chk|stdout" |
			sed "s/^/$n: /"
	done >found &&
	# util.c flushes stdout before it writes an error, so the two stay in
	# order; top-ui.c is the curses view, which draws on the terminal.
	grep -vxE "util: stdout|top-ui: stdout" found >bad || : &&
	test_must_be_empty bad
'

test_done
