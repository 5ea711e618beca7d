# What the sweep examples share (sourced, with their arguments): a first argument 'quick'
# sets quick=yes and is shifted away; fedbn is $FEDBN or build/fedbn beside this folder; the
# figures and tables go to $OUT (default: fedbn-figures, made here); $JOBS cells run at once
# (default: every processor).
quick=no
if [ "${1:-}" = quick ]; then
	quick=yes
	shift
fi
fedbn=${FEDBN:-$here/../build/fedbn}
out=${OUT:-fedbn-figures}
jobs=${JOBS:-$(nproc)}
mkdir -p "$out" || exit 1
