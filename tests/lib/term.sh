# term.sh: partalign in an 80x24 terminal, read back as an admin sees it
# (tmux on a server of its own, capture-pane -J: a wrapped line shows as one).
# Sourced after common.sh.
need_cmd tmux

TERM_SOCK=partalign-test-$$
TMUX_CMD=(tmux -L "$TERM_SOCK" -f /dev/null)
at_exit "${TMUX_CMD[*]} kill-server >/dev/null 2>&1"

# term_pane NAME ERR ARGS...: partalign ARGS in a fresh 80x24 pane, its
# standard error on the screen (ERR "-") or in $T_TMP/NAME.err (ERR "file");
# the screen (the last 24 rows, wrapped lines joined, blank lines dropped) in
# $T_TMP/NAME.screen, the exit status in $T_RC
term_pane() {
	local name=$1 err=$2
	shift 2
	{
		printf '%q ' "$PARTALIGN" "$@"
		[ "$err" = - ] || printf '2>%q' "$T_TMP/$name.err"
		echo "; echo \$? >$T_TMP/$name.rc"
		echo "tmux -L $TERM_SOCK wait-for -S $name"
		echo 'sleep 60'
	} >"$T_TMP/$name.sh"
	"${TMUX_CMD[@]}" new-session -d -s "$name" -x 80 -y 24 "bash $T_TMP/$name.sh"
	timeout 30 "${TMUX_CMD[@]}" wait-for "$name" || fail "$name: did not finish in 30 s"
	"${TMUX_CMD[@]}" capture-pane -t "$name" -p -J | sed '/^ *$/d' >"$T_TMP/$name.screen"
	"${TMUX_CMD[@]}" kill-session -t "$name"
	T_RC=$(cat "$T_TMP/$name.rc")
}
