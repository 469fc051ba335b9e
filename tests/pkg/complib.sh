# Drive a bash completion as readline would: comp LINE prints the
# candidates for the end of LINE, one a line.  LINE is split into
# COMP_WORDS like bash splits it (blanks, and the COMP_WORDBREAKS characters
# = and : as words of their own), COMP_CWORD is the last word (empty when
# LINE ends in a blank), COMP_LINE and COMP_POINT are set, and the function
# "complete -p" names for the command is called.
# Source it in bash after bash_completion and the completion under test.

comp() {
	local line=$1 tok fn spec
	local -a words=() parts
	read -r -a parts <<<"$line"
	for tok in "${parts[@]}"; do
		while [[ $tok =~ ^([^=:]*)([=:]+)(.*)$ ]]; do
			[[ -n ${BASH_REMATCH[1]} ]] && words+=("${BASH_REMATCH[1]}")
			words+=("${BASH_REMATCH[2]}")
			tok=${BASH_REMATCH[3]}
		done
		[[ -n $tok ]] && words+=("$tok")
	done
	[[ $line == *' ' ]] && words+=("")
	spec=$(complete -p "${words[0]}" 2>/dev/null) || {
		echo "no completion registered for ${words[0]}" >&2
		return 1
	}
	fn=${spec#*-F }
	fn=${fn%% *}
	COMP_WORDS=("${words[@]}")
	COMP_CWORD=$((${#words[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	"$fn" "${words[0]}" "${words[COMP_CWORD]}" "${words[COMP_CWORD - 1]}"
	((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}"
}
