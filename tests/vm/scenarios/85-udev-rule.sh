# The shipped udev rule (udev-rules/60-partalign.rules as built, the
# configured sbindir filled in) in the guest's systemd-udevd: the binary is
# installed at the path the rule names, the rule is installed unchanged, and
# after a change event `udevadm info` of every partition shows
# PARTALIGN_PHYSICAL, PARTALIGN_OPTIMAL and PARTALIGN_POLICY equal to the
# independent expectation (vmlib.sh vm_expect), PARTALIGN_REASON exactly
# when a verdict is not ok, and nothing on the whole disks.  Disks: the
# 512e virtio-blk with optimal I/O 1 MiB (every mix of verdicts in the
# standard layout) and the virtio-scsi disk (no optimal I/O size: n/a).

label=udev-rule
rule=/vm/udev-rules/60-partalign.rules
[ -f "$rule" ] || vm_fatal "no built 60-partalign.rules in the initramfs"
grep -q '@sbindir@' "$rule" && vm_fatal "$rule is the unbuilt template"
bin=$(sed -n 's/^IMPORT{program}="\([^" ]*\) udev .*/\1/p' "$rule")
case $bin in
/*/partalign) ;;
*) vm_fatal "cannot find the program in the rule's IMPORT{program}: '$bin'" ;;
esac
if [ "$bin" != /usr/sbin/partalign ]; then
	mkdir -p "${bin%/*}" && ln -sf /usr/sbin/partalign "$bin" || vm_fatal "cannot install $bin"
fi
cp "$rule" /etc/udev/rules.d/60-partalign.rules
udevadm control --reload || vm_fatal "udevadm control --reload failed"

disks=
for serial in pa-vblk-1m pa-scsihd; do
	d=$(vm_disks_by_serial "$serial")
	[ -n "$d" ] || vm_fatal "no disk with serial $serial"
	[ -n "$(vm_kernel_parts "$d")" ] || vm_layout "$d" "$label-$d" || vm_fatal "cannot partition $d"
	disks="$disks $d"
done

# change events for the disks and their partitions
set --
for d in $disks; do
	set -- "$@" "/sys/class/block/$d"
	for p in $(vm_kernel_parts "$d"); do
		set -- "$@" "/sys/class/block/$p"
	done
done
udevadm trigger --action=change "$@" || vm_fail "$label/trigger" "udevadm trigger failed"
vm_settle

for d in $disks; do
	s=/sys/block/$d
	lbs=$(cat "$s/queue/logical_block_size")
	pbs=$(cat "$s/queue/physical_block_size")
	mio=$(cat "$s/queue/minimum_io_size")
	oio=$(cat "$s/queue/optimal_io_size")
	ao=$(cat "$s/alignment_offset")
	dsize=$(($(cat "$s/size") * 512))

	if udevadm info --query=property --name="/dev/$d" | grep '^PARTALIGN_' >/dev/null; then
		vm_fail "$label/$d-disk" "the whole disk $d has PARTALIGN_ properties: $(udevadm info --query=property --name="/dev/$d" | grep '^PARTALIGN_' | tr '\n' ' ')"
	else
		vm_pass "$label/$d-disk" "no PARTALIGN_ properties on the whole disk $d"
	fi

	for p in $(vm_kernel_parts "$d"); do
		start=$(($(cat "$s/$p/start") * 512))
		vm_expect "$start" "$lbs" "$pbs" "$mio" "$oio" "$ao" "$dsize"
		udevadm info --query=property --name="/dev/$p" >/tmp/udev.props
		got=$(for k in PHYSICAL OPTIMAL POLICY; do
			sed -n "s/^PARTALIGN_$k=//p" /tmp/udev.props
		done | tr '\n' ' ')
		want="$EXP_PHYS $EXP_OPT $EXP_POL "
		reason=$(sed -n 's/^PARTALIGN_REASON=//p' /tmp/udev.props)
		bad=
		[ "$got" = "$want" ] || bad="physical optimal policy [$got], expected [$want]"
		if [ "$want" = "ok ok ok " ]; then
			[ -z "$reason" ] || bad="$bad; a reason for an aligned partition: $reason"
		else
			[ -n "$reason" ] || bad="$bad; no PARTALIGN_REASON"
		fi
		if [ -z "$bad" ]; then
			vm_pass "$label/$p" "udevadm info: physical $EXP_PHYS, optimal $EXP_OPT, policy $EXP_POL${reason:+ ($reason)}"
		else
			vm_fail "$label/$p" "at $start B: ${bad#; }"
		fi
	done
done

rm -f /etc/udev/rules.d/60-partalign.rules
udevadm control --reload
