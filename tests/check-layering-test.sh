#!/bin/sh
# The layering check itself: on a small scratch tree of folders (low below high, a family
# folder inside high) it passes the tree as made, and fails, naming the file at fault, once
# a folder includes a header of a folder above it, a header no local.mk lists appears, a
# file outside the MPI link includes MPI, or two folders are below each other.
top=$(cd "${top_srcdir:-.}" && pwd)
check="$top/tests/check-layering.sh"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# tree DIR: a tree that follows the rule
tree() {
	rm -rf "$1"
	mkdir -p "$1/include/fedbn" "$1/src/lib/low" "$1/src/lib/high/fam" "$1/src/lib/fed"
	printf 'src_lib_low_uses =\nsrc_lib_low_liblow_la_SOURCES = include/fedbn/low.h src/lib/low/a.c\n' \
		> "$1/src/lib/low/local.mk"
	printf 'src_lib_high_uses = low\nsrc_lib_high_libhigh_la_SOURCES = \\\n\tinclude/fedbn/high.h \\\n\tsrc/lib/high/b.c\n' \
		> "$1/src/lib/high/local.mk"
	printf 'src_lib_high_libhigh_la_SOURCES += include/fedbn/fam.h src/lib/high/fam/c.c\n' \
		> "$1/src/lib/high/fam/local.mk"
	printf 'src_lib_fed_uses = low\nsrc_lib_fed_libfed_la_SOURCES = include/fedbn/fed.h\n' \
		> "$1/src/lib/fed/local.mk"
	printf '#include "fedbn/low.h"\n' > "$1/include/fedbn/high.h"
	printf '#include "fedbn/high.h"\n' > "$1/include/fedbn/fam.h"
	: > "$1/include/fedbn/low.h"
	: > "$1/include/fedbn/fed.h"
	printf '#include "fedbn/low.h"\n' > "$1/src/lib/low/a.c"
	printf '#include "fedbn/low.h"\n#include "fedbn/fam.h"\n' > "$1/src/lib/high/b.c"
	printf '#include "fedbn/high.h"\n#include "fedbn/low.h"\n' > "$1/src/lib/high/fam/c.c"
	printf '#include <mpi.h>\n#include "fedbn/fed.h"\n' > "$1/src/lib/fed/link-mpi.c"
	printf '#include <mpi.h>\n' > "$1/src/lib/fed/transport-mpi.c"
}

# expect STATUS WORDS CASE: the check on the scratch tree exits STATUS (0 or 1) and, when it
# fails, prints WORDS
expect() {
	out=$(top_srcdir="$tmp/t" sh "$check" 2>&1)
	status=$?
	if [ "$status" != "$1" ] || ! printf '%s\n' "$out" | grep -qF -- "$2"; then
		echo "FAIL: $3: exit $status, expected $1 with '$2'; it printed:"
		printf '%s\n' "$out"
		fail=1
	fi
}

tree "$tmp/t"
expect 0 "every include follows the folder rule" "a tree that follows the rule"
printf '#include "fedbn/high.h"\n' > "$tmp/t/src/lib/low/up.c"
expect 1 "src/lib/low/up.c: includes fedbn/high.h, of module 'high', not below module 'low'" \
	"a folder including a header of the folder above it"
tree "$tmp/t"
printf '#include "fedbn/fam.h"\n' >> "$tmp/t/include/fedbn/low.h"
expect 1 "include/fedbn/low.h: includes fedbn/fam.h" "a public header including one above it"
tree "$tmp/t"
printf '#include "fedbn/high.h"\n' > "$tmp/t/src/lib/fed/up.c"
expect 1 "src/lib/fed/up.c: includes fedbn/high.h" "a folder including a folder beside it"
tree "$tmp/t"
: > "$tmp/t/include/fedbn/stray.h"
expect 1 "include/fedbn/stray.h: no folder's local.mk lists it" "a header no local.mk lists"
tree "$tmp/t"
printf '#include <mpi.h>\n' > "$tmp/t/src/lib/fed/protocol.c"
expect 1 "src/lib/fed/protocol.c: only src/lib/fed/link-mpi*" "MPI outside the link"
tree "$tmp/t"
sed -i 's/^src_lib_low_uses =$/src_lib_low_uses = high/' "$tmp/t/src/lib/low/local.mk"
expect 1 "folders below one another in a circle" "two folders below each other"
[ $fail = 0 ] && echo "PASS: the layering check passes a layered tree and fails each breach"
exit $fail
