# The commands of a recipe in the README, to run them as they are written:
#   awk -v start=TEXT -v last=TEXT -f readme-steps.awk README
# prints the lines indented by four spaces (the code blocks), without the
# indent, from the first line that begins with start on, up to the first
# command that begins with last (included).  Exits 1 when either is not
# found, so that a recipe that moved or changed is noticed.
!on && index($0, start) == 1 { on = 1; next }
on && /^    / {
	line = substr($0, 5)
	print line
	if (index(line, last) == 1) {
		found = 1
		exit
	}
}
END { exit !found }
