# bash completion for tr (the ftrace front end).  Everything comes from the
# binary itself: command names from --list-cmds, options from each command's
# --help, events, instances, tracers, clocks and options from tr list.  When
# the first word is not one of tr's commands the line is coreutils' tr, and
# the default completion is left alone.

_tr_words() {
	# Run tr quietly; listing needs tracefs access, and no completion is better than noise.
	"$_tr_bin" "$@" 2>/dev/null
}

_tr_complete() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local _tr_bin=${COMP_WORDS[0]} cmds cmd
	cmds=$(_tr_words --list-cmds) || return
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W "$cmds --help --version --list-cmds" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	grep -qx -- "$cmd" <<<"$cmds" || return

	case $prev in
	-e|--event)
		[ "$cmd" = list ] || { COMPREPLY=($(compgen -W "all $(_tr_words list -s) $(_tr_words list -e)" -- "$cur")); return; }
		;;
	-B|--instance)
		[ "$cmd" = list ] || { COMPREPLY=($(compgen -W "$(_tr_words list -B)" -- "$cur")); return; }
		;;
	-p|--tracer)
		COMPREPLY=($(compgen -W "$(_tr_words list -t)" -- "$cur")); return ;;
	-C|--clock)
		[ "$cmd" = list ] || { COMPREPLY=($(compgen -W "$(_tr_words list -C | tr -d '[]')" -- "$cur")); return; }
		;;
	-O|--option)
		local opts
		opts=$(_tr_words list -o | awk '{print $1; print "no" $1}')
		COMPREPLY=($(compgen -W "$opts" -- "$cur")); return ;;
	--has)
		COMPREPLY=($(compgen -W "$(_tr_words check --help | sed -n '/^Capabilities:/,$p' | sed 's/^Capabilities://')" -- "$cur")); return ;;
	-o|--output|-i|--input)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-f|--filter|-b|--buffer-size|--cpu|-P|--pid|--duration)
		return ;;
	--view)
		[ "$cmd" = top ] && COMPREPLY=($(compgen -W "tasks syscalls events cpus irqs custom latency" -- "$cur"))
		return ;;
	--format)
		[ "$cmd" = top ] && { COMPREPLY=($(compgen -W "text json" -- "$cur")); return; }
		;;
	-d|--delay|-n|--iterations|-s|--sort|-k|--keys|-v|--vals|--latency)
		[ "$cmd" = top ] && return ;;
	help)
		COMPREPLY=($(compgen -W "$cmds" -- "$cur")); return ;;
	instance)
		COMPREPLY=($(compgen -W "create destroy list" -- "$cur")); return ;;
	destroy)
		[ "$cmd" = instance ] && { COMPREPLY=($(compgen -W "$(_tr_words list -B)" -- "$cur")); return; }
		;;
	esac

	if [[ $cur == -* ]]; then
		local opts
		# Only the option column of argp's help, not the descriptions.
		opts=$(_tr_words "$cmd" --help | sed -nE 's/^ +(-[^ ].*)/\1/p' | sed -E 's/   .*//' |
			grep -oE -- '--?[A-Za-z?][A-Za-z0-9-]*' | sort -u)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	elif [ "$cmd" = show ]; then
		COMPREPLY=($(compgen -W "current_tracer tracing_on trace_clock buffer_size_kb set_event available_tracers available_events trace_options error_log" -- "$cur"))
	fi
}

complete -o default -F _tr_complete tr
