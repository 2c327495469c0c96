# bash completion for tr (the ftrace front end).
#
# Everything comes from the binary itself, so a new command or option needs
# no change here: command names from `tr --list-cmds`; each command's
# options, which of them take a value, and its sub-actions (the first word
# of each usage line: "create", "take|show|clear|free") from `tr CMD --help`;
# events, fields, instances, tracers, clocks and options from `tr list`.
# When the first word is not one of tr's commands the line is coreutils'
# tr, and bash's default completion is left alone.
#
# bash splits the line at every character of COMP_WORDBREAKS, ':' and '='
# among them, so COMP_WORDS sees "sched:sched_sw" as three words.  We read
# the line ourselves (COMP_LINE up to the cursor, split at blanks outside
# quotes), complete the whole word, and hand bash only the part after its
# last word break, which is the part bash replaces.

_tr_run() {
	# Listing needs tracefs access; no completion is better than noise.
	"$_tr_bin" "$@" 2>/dev/null
}

# Split COMP_LINE up to the cursor into _tr_words (quotes removed); the last
# one is the word being completed (empty after a blank).  _tr_quoted is the
# quote still open at the cursor, if any.
_tr_split_line() {
	local line=${COMP_LINE:0:COMP_POINT} w= c q= i started=0
	# Called without a line (a script setting only COMP_WORDS): rebuild it.
	if [ -z "${COMP_LINE+set}" ]; then
		line="${COMP_WORDS[*]:0:COMP_CWORD+1}"
		[ -z "${COMP_WORDS[COMP_CWORD]}" ] && line+=" "
	fi
	_tr_words=()
	for ((i = 0; i < ${#line}; i++)); do
		c=${line:i:1}
		if [[ -n $q ]]; then
			if [[ $c == "$q" ]]; then q=; else w+=$c; fi
		elif [[ $c == "'" || $c == '"' ]]; then
			q=$c started=1
		elif [[ $c == '\' ]]; then
			((i++)); w+=${line:i:1}; started=1
		elif [[ $c == [[:blank:]] ]]; then
			((started)) && _tr_words+=("$w")
			w= started=0
		else
			w+=$c started=1
		fi
	done
	_tr_words+=("$w")
	_tr_quoted=$q
}

# Options of CMD that take a value (-e, --event, ...), one per line.
_tr_value_opts() {
	printf '%s\n' "$_tr_help" | sed -nE 's/^ +(-[^ ].*)/\1/p' | sed -E 's/   .*//' |
		awk '{
			n = split($0, parts, ", ")
			val = 0
			for (i = 1; i <= n; i++) if (parts[i] ~ /^--[^=[]+=/ || parts[i] ~ /^-[^-] [^ ]/) val = 1
			if (!val) next
			for (i = 1; i <= n; i++) { o = parts[i]; sub(/[= ].*/, "", o); print o }
		}'
}

# All options of CMD (only the option column of argp's help).
_tr_all_opts() {
	printf '%s\n' "$_tr_help" | sed -nE 's/^ +(-[^ ].*)/\1/p' | sed -E 's/   .*//' |
		grep -oE -- '--?[A-Za-z?][A-Za-z0-9-]*' | sort -u
}

# CMD's sub-actions: the first word after "[OPTION...]" of each usage line,
# when it is a bare word or words joined by '|'.
_tr_actions() {
	printf '%s\n' "$_tr_help" | awk '
		/^Usage: / || /^  or: / { on = 1 }
		on && !/^Usage: / && !/^  or: / && !/^            / { exit }
		on { print }' |
		sed -nE 's/.*\[OPTION\.\.\.\] *//; s/^ +//; s/ .*//; /^[a-z][a-z-]*(\|[a-z][a-z-]*)*$/p' |
		sed 's/|/\n/g' | sort -u
}

# The fields of the events of -e (or --start/--end for $1 = start/end), for -k/-v/-s/-f.
_tr_fields() {
	local i ev= want=${1:-event}
	for ((i = 2; i < ${#_tr_words[@]} - 1; i++)); do
		case ${_tr_words[i]} in
		-e|--event) [ "$want" = event ] && ev=${_tr_words[i+1]} ;;
		--event=*) [ "$want" = event ] && ev=${_tr_words[i]#--event=} ;;
		-e?*) [ "$want" = event ] && ev=${_tr_words[i]#-e} ;;
		--start) [ "$want" = start ] && ev=${_tr_words[i+1]} ;;
		--start=*) [ "$want" = start ] && ev=${_tr_words[i]#--start=} ;;
		--end) [ "$want" = end ] && ev=${_tr_words[i+1]} ;;
		--end=*) [ "$want" = end ] && ev=${_tr_words[i]#--end=} ;;
		esac
	done
	[ -n "$ev" ] || return 0
	_tr_run list -e "$ev" --fields | sed -nE 's/^    .* ([A-Za-z_][A-Za-z0-9_]*)(\[[^]]*\])? +offset:.*/\1/p' |
		sort -u
}

# Complete a comma-separated list ("a,b.hex,c"): the last item from $1
# (names), with the modifiers in $2 after a dot.
_tr_list_words() {
	local names=$1 mods=$2 cur=$3 head= item n m
	[[ $cur == *,* ]] && head=${cur%,*}, item=${cur##*,} || item=$cur
	if [[ $item == *.* && -n $mods ]]; then
		n=${item%%.*}
		for m in $mods; do printf '%s%s.%s\n' "$head" "$n" "$m"; done
	else
		for n in $names; do printf '%s%s\n' "$head" "$n"; done
	fi
}

# Filters: the field names (of the -e event, or of --start/--end's for $2)
# for the last word of the expression.
_tr_filter_words() {
	local cur=$1 head n
	head=$(sed -E 's/[A-Za-z_][A-Za-z0-9_]*$//' <<<"$cur")
	for n in $(_tr_fields "${2:-event}") common_pid; do printf '%s%s\n' "$head" "$n"; done
}

_tr_dat_files() {
	compgen -f -X '!*.dat' -- "$1"
	compgen -d -S / -- "$1"
}

# Print the candidates for the word being completed, one per line.
_tr_candidates() {
	local IFS=$' \t\n'
	local cur=$1 prev=$2 cmd=$3 pos=$4 hist_mods='hex sym sym-offset execname syscall log2 buckets= usecs stacktrace'
	case $prev in
	-e|--event|--start|--end)
		[ "$cmd" = list ] && return
		printf '%s\n' all; _tr_run list -s; _tr_run list -e; return ;;
	--hist|--trigger)
		# show's: one event's file; serve's: the event its table counts.
		[ "$cmd" = show ] || [ "$cmd" = serve ] && { _tr_run list -e; return; } ;;
	--latency)
		# top's and serve's START,END: the events.
		[ "$cmd" = top ] || [ "$cmd" = serve ] && { _tr_run list -e; return; } ;;
	--by) printf '%s\n' comm; return ;;
	--define|--define-keys)
		# SYS:EV, then the user's :VAR=EXPR or =KEY.
		_tr_run list -e; return ;;
	-B|--instance)
		[ "$cmd" = list ] && return
		_tr_run list -B; return ;;
	-p|--tracer) _tr_run list -t; return ;;
	-C|--clock)
		[ "$cmd" = list ] && return
		_tr_run list -C | sed 's/[][]//g'; return ;;
	-O|--option)
		_tr_run list -o | awk '{ print $1; print "no" $1 }'; return ;;
	--has)
		printf '%s\n' "$_tr_help" | sed -n '/^Capabilities:/,$p' | sed 's/^Capabilities://' |
			sed -E 's/ +/\n/g' | sed '/^$/d'
		return ;;
	--format)
		[ "$cmd" = top ] && { printf '%s\n' text json; return; }
		printf '%s\n' text json csv; return ;;
	--view) printf '%s\n' tasks syscalls events cpus irqs custom latency; return ;;
	--engine)
		[ "$cmd" = serve ] && printf '%s\n' auto
		printf '%s\n' kernel user; return ;;
	--cpu) seq 0 $(($(getconf _NPROCESSORS_CONF 2>/dev/null || echo 1) - 1)); return ;;
	--units) printf '%s\n' ns us; return ;;
	--file-version) printf '%s\n' 6 7; return ;;
	--graph-opt) _tr_list_words "cpu proc abstime overhead duration irqs tail retval retval-hex overrun retaddr args nocpu noproc noabstime nooverhead noduration noirqs notail noretval noretval-hex nooverrun noretaddr noargs" "" "$cur"; return ;;
	--compression) printf '%s\n' zstd zlib none; return ;;
	--to) printf '%s\n' perfetto tracedat; return ;;
	--action) printf '%s\n' 'onmatch(' 'onchange($' 'onmax($'; return ;;
	--blk-dev) compgen -W "$(ls /sys/class/block 2>/dev/null)" -- "$cur"; return ;;
	--blk-mask) _tr_list_words "read write flush sync queue requeue issue complete fs pc notify ahead meta discard drv_data fua" "" "$cur"; return ;;
	--tracer-opt)
		printf '%s=\n' width window threshold cpus mode period runtime stop_tracing \
			stop_tracing_total print_stack
		return ;;
	-i|--input) _tr_dat_files "$cur"; return ;;
	-o|--output) compgen -f -- "$cur"; return ;;
	-k|--keep|--keys)
		# reset -k: a kind of dynamic event, or one's name.
		[ "$cmd" = reset ] && {
			printf '%s\n' kprobe kretprobe uprobe uretprobe eprobe fprobe synth user all
			_tr_run probe list | sed -n 's/^[a-z]:\([^ ]*\) .*/\1/p'; return; }
		[ "$cmd" = hist ] || [ "$cmd" = top ] || return
		_tr_list_words "$(_tr_fields) common_pid common_cpu common_timestamp common_stacktrace" \
			"$hist_mods" "$cur"
		return ;;
	-v|--vals)
		[ "$cmd" = hist ] || [ "$cmd" = top ] || return
		_tr_list_words "$(_tr_fields) hitcount" "percent graph" "$cur"; return ;;
	-s|--sort)
		[ "$cmd" = profile ] && { printf '%s\n' total hits avg stddev name; return; }
		[ "$cmd" = hist ] || return
		_tr_list_words "$(_tr_fields) hitcount" "descending ascending" "$cur"; return ;;
	-f|--filter)
		[ "$cmd" = list ] && return
		_tr_filter_words "$cur"; return ;;
	--start-filter) _tr_filter_words "$cur" start; return ;;
	--end-filter) _tr_filter_words "$cur" end; return ;;
	--onmax|--save) _tr_list_words "$(_tr_fields end)" "" "$cur"; return ;;
	esac
	# A value the option takes but we know nothing about: offer nothing.
	if [[ $prev == -* ]] && grep -qxF -- "$prev" <<<"$_tr_value_opts"; then
		return
	fi
	# After COMMAND (record, hist): its own arguments, bash's default.
	if ((pos >= 1)) && ! _tr_actions | grep -qxF -- "${_tr_action:-}"; then
		return
	fi
	if [[ $cur == -* ]]; then
		_tr_all_opts
		return
	fi
	case $cmd in
	help) ((pos == 0)) && _tr_run --list-cmds; return ;;
	show) ((pos == 0)) && printf '%s\n' current_tracer tracing_on trace_clock buffer_size_kb \
		set_event available_tracers available_events trace_options error_log; return ;;
	report) _tr_dat_files "$cur"; return ;;
	esac
	if ((pos == 0)); then
		local acts
		acts=$(_tr_actions)
		if [ -n "$acts" ]; then
			printf '%s\n' "$acts"
			return
		fi
		# record and hist run a COMMAND.
		grep -q '\[COMMAND' <<<"$_tr_help" && compgen -c -- "$cur" | sort -u
		return
	fi
	# The second word of some actions names something that exists.
	case $cmd:${_tr_action:-} in
	instance:destroy) _tr_run list -B ;;
	esac
}

# May bash fall back to file names here?  For -o FILE, a COMMAND's own
# arguments, and values of options this script knows nothing about.
_tr_files_ok() {
	local prev=$1 cmd=$2 pos=$3
	case $prev in
	-o|--output) return 0 ;;
	-e|--event|--start|--end|-B|--instance|-p|--tracer|-C|--clock|-O|--option|--has|--format|\
	--engine|--units|-i|--input|-k|--keys|--keep|-v|--vals|-s|--sort|-f|--filter|--start-filter|\
	--end-filter|--onmax|--save|--define|--define-keys|--view|--latency|-d|--delay|-n|--iterations|--file-version|\
	--compression|--to|--time|--events|--graph-opt|--hist|--trigger)
		return 1 ;;
	esac
	[[ $prev == -* ]] && grep -qxF -- "$prev" <<<"$_tr_value_opts" && return 0
	# Past the first argument of a command that runs COMMAND: that command's words.
	((pos >= 1)) && ! _tr_actions | grep -qxF -- "${_tr_action:-}" && return 0
	return 1
}

_tr_complete() {
	local _tr_bin=${COMP_WORDS[0]} cmds cmd cur prev _tr_help _tr_value_opts _tr_action= i pos=0
	local -a _tr_words
	local _tr_quoted
	_tr_split_line
	local n=${#_tr_words[@]}
	cur=${_tr_words[n-1]}
	cmds=$(_tr_run --list-cmds) || return
	if ((n == 2)); then
		COMPREPLY=($(compgen -W "$cmds --help --version --list-cmds" -- "$cur"))
		return
	fi
	cmd=${_tr_words[1]}
	grep -qxF -- "$cmd" <<<"$cmds" || return
	_tr_help=$(_tr_run "$cmd" --help)
	_tr_value_opts=$(_tr_value_opts)
	# Which positional argument is being completed, skipping options and their values.
	for ((i = 2; i < n - 1; i++)); do
		case ${_tr_words[i]} in
		--*=*) ;;
		-*) grep -qxF -- "${_tr_words[i]}" <<<"$_tr_value_opts" && ((i++)) ;;
		*) ((pos == 0)) && _tr_action=${_tr_words[i]}; ((pos++)) ;;
		esac
	done
	prev=${_tr_words[n-2]}
	# --opt=value: complete the value as if it were a separate word.
	if [[ $cur == --*=* ]]; then
		prev=${cur%%=*} cur=${cur#*=}
	fi
	# Where tr names what a value is (events, instances, ...), an empty
	# answer means there is none: no falling back to file names then.
	_tr_files_ok "$prev" "$cmd" "$pos" || compopt +o default 2>/dev/null
	local IFS=$'\n' c
	COMPREPLY=()
	for c in $(_tr_candidates "$cur" "$prev" "$cmd" "$pos"); do
		[[ $c == "$cur"* ]] && COMPREPLY+=("$c")
	done
	# bash replaces only the text after the word's last break character
	# (':' in "sched:sched_sw", '=' in "--event=x"): drop what it keeps.
	# Inside an open quote bash takes the whole quoted text as the word.
	local keep= k
	[ -n "$_tr_quoted" ] && return
	for ((k = ${#cur} - 1; k >= 0; k--)); do
		if [[ ${COMP_WORDBREAKS-} == *"${cur:k:1}"* && ${cur:k:1} != [[:blank:]] ]]; then
			keep=${cur:0:k+1}
			break
		fi
	done
	if [ -n "$keep" ]; then
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${COMPREPLY[i]#"$keep"}
		done
	fi
	# A value that is not finished yet must not get a space after it.
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *[=/,.] ]]; then
		compopt -o nospace 2>/dev/null
	fi
}

complete -o default -F _tr_complete tr
