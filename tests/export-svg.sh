#!/bin/sh
# Every exported SVG fits its own page: the root's width and height (in points) are its
# viewBox's, and every drawn element, under the top group's transform, lies inside the
# viewBox, so that a browser shows the whole picture.  Checked with xmllint (libxml2-utils;
# skipped where it is absent) on the diff, estimate, compare and truth pictures, scaled by
# width= and with dpi= (which is for PNG alone), and on the pictures a report embeds.  Where
# Chromium is installed, a headless Chromium also draws one SVG and the report's first picture
# beside the PNG of the same picture, and finds the diff's coloured edges in the same part of
# each page, so that the browser's own view is compared with the PNG (skipped without it).
. "${top_srcdir:-..}/tests/scratch-lib.sh"

command -v xmllint >/dev/null 2>&1 || { echo "SKIP: xmllint is not installed"; exit 77; }

"$fedbn" --no-pane -c "gen er d=11 edges=14 n=500 seed=2; split horizontal 3;
	algo fedpc; run; algo notears; run;
	export diff.svg what=diff run=1; export est.svg what=estimate run=2;
	export wide.svg what=diff width=12; export narrow.svg what=estimate width=3;
	export dpi.svg what=diff run=1 dpi=300; export print.svg what=diff style=print;
	export compare.svg what=compare runs=1,2; export truth.svg what=truth;
	export same.png what=diff run=1; report out=r.html" > out.txt 2>&1
check "the session failed: $(tail -n 3 out.txt)" [ $? = 0 ]
n=0
for data in $(grep -o 'src="data:image/svg+xml;base64,[A-Za-z0-9+/=]*"' r.html |
	sed 's/^src="data:image\/svg+xml;base64,//; s/"$//'); do
	n=$((n + 1))
	printf '%s' "$data" | base64 -d > report-$n.svg 2>/dev/null
done
check "the report does not embed two pictures" [ "$n" = 2 ]

# attr FILE XPATH: the string value of an XPath expression
attr() {
	xmllint --xpath "string($2)" "$1" 2>/dev/null
}

# shapes FILE: every drawn shape, one a line: "P x,y ..." (polygons, polylines and paths),
# "E cx cy rx ry" (ellipses), "T anchor x y size characters" (texts)
shapes() {
	{ xmllint --xpath '//@points' "$1" 2>/dev/null; echo
	  xmllint --xpath '//@d' "$1" 2>/dev/null; echo; } |
		sed -n 's/^ *\(points\|d\)="\([^"]*\)"$/P \2/p' | sed 's/[A-Za-z]/ /g; s/^ /P/'
	xmllint --xpath '//*[local-name()="ellipse"]' "$1" 2>/dev/null |
		sed -n 's/.* cx="\([^"]*\)" cy="\([^"]*\)" rx="\([^"]*\)" ry="\([^"]*\)".*/E \1 \2 \3 \4/p'
	xmllint --xpath '//*[local-name()="text"]' "$1" 2>/dev/null | sed 's/&[^;]*;/e/g' |
		sed -n 's/.*text-anchor="\([a-z]*\)" x="\([^"]*\)" y="\([^"]*\)"/T \1 \2 \3|/p' |
		sed 's/|[^>]*font-size="\([^"]*\)">\(.*\)<\/text>$/ \1 \2/' |
		awk '{ t = $0; sub(/^T [^ ]* [^ ]* [^ ]* [^ ]* /, "", t); print $1, $2, $3, $4, $5, length(t) }'
}

# fits FILE [SCALE]: the page's size in points is its viewBox's (times SCALE: width= sets
# the page's size and leaves the viewBox to the viewer's scaling) and the drawing,
# transformed, lies within the viewBox (texts taken as 0.5 em a character); prints what does
# not fit
fits() {
	svg='/*[local-name()="svg"]'
	w=$(attr "$1" "$svg/@width") h=$(attr "$1" "$svg/@height")
	vb=$(attr "$1" "$svg/@viewBox")
	tf=$(attr "$1" "//*[local-name()=\"g\"][@id=\"graph0\"]/@transform")
	[ -n "$w" ] && [ -n "$vb" ] && [ -n "$tf" ] || { echo "no width, viewBox or transform"; return; }
	shapes "$1" | awk -v w="$w" -v h="$h" -v vb="$vb" -v tf="$tf" -v z="${2:-1}" '
	function put(x, y, what) {
		X = (x + tx) * sx; Y = (y + ty) * sy; seen++
		if (X < vx - 1 || X > vx + vw + 1 || Y < vy - 1 || Y > vy + vh + 1)
			bad = bad sprintf("%s at (%.1f, %.1f) is outside the viewBox %s\n", what, X, Y, vb)
	}
	BEGIN {
		split(vb, v, " "); vx = v[1]; vy = v[2]; vw = v[3]; vh = v[4]
		sub(/pt$/, "", w); sub(/pt$/, "", h)
		if (z == "any") z = w / vw
		if (w - z * vw > 1 || z * vw - w > 1 || h - z * vh > 1 || z * vh - h > 1)
			printf "the page is %s x %s pt but its viewBox %s (times %s)\n", w, h, vb, z
		t = tf; gsub(/[(),]/, " ", t); n = split(t, p, " ")
		for (i = 1; i <= n; i++) {
			if (p[i] == "scale") { sx = p[i + 1]; sy = p[i + 2] }
			if (p[i] == "translate") { tx = p[i + 1]; ty = p[i + 2] }
		}
		if (sx == "" || tx == "") print "the transform " tf " has no scale or translate"
	}
	$1 == "P" { gsub(/,/, " "); for (i = 2; i < NF; i += 2) put($i, $(i + 1), "a point") }
	$1 == "E" { put($2 - $4, $3 - $5, "an ellipse"); put($2 + $4, $3 + $5, "an ellipse") }
	$1 == "T" {
		len = 0.5 * $5 * $6; x0 = $3
		if ($2 == "middle") x0 = $3 - len / 2
		if ($2 == "end") x0 = $3 - len
		put(x0, $4 - $5 * 0.75, "a text"); put(x0 + len, $4, "a text")
	}
	END {
		if (seen < 20) printf "only %d points drawn\n", seen
		printf "%s", bad
	}' | head -n 3
}

for f in diff est wide narrow dpi print compare truth report-1 report-2; do
	check "$f.svg is not well-formed XML" xmllint --noout $f.svg
	case $f in wide | narrow) scale=any ;; *) scale=1 ;; esac
	why=$(fits $f.svg $scale)
	check "$f.svg does not fit its page: $why" [ -z "$why" ]
done
check "width=12 does not make the page 12 inches wide" \
	[ "$(attr wide.svg '/*[local-name()="svg"]/@width')" = 864.00pt ]
check "dpi= changes an SVG" cmp -s diff.svg dpi.svg

# the browser's view: the SVG, and the report's first picture as the page embeds it, show
# the diff's edges where the PNG of the same picture has them
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
if [ -z "$browser" ]; then
	echo "SKIP (the browser's view): chromium is not installed"
	exit "$fail"
fi
{
	printf '<html><body><pre id="out">wait</pre><script>\n'
	printf 'var srcs = ["data:image/svg+xml;base64,%s", ' "$(base64 -w0 diff.svg)"
	printf '"%s", ' "$(grep -o 'data:image/svg+xml;base64,[A-Za-z0-9+/=]*' r.html | head -n 1)"
	printf '"data:image/png;base64,%s"];\n' "$(base64 -w0 same.png)"
	cat <<'JS'
// the box of the coloured pixels (the diff's edges: not the black text, whose width follows
// the browser's fonts) of each picture drawn at its own size, as fractions of it
function extent(img) {
	var c = document.createElement("canvas"), w = img.naturalWidth, h = img.naturalHeight;
	c.width = w; c.height = h;
	var g = c.getContext("2d"); g.fillStyle = "white"; g.fillRect(0, 0, w, h);
	g.drawImage(img, 0, 0, w, h);
	var d = g.getImageData(0, 0, w, h).data, x0 = w, y0 = h, x1 = 0, y1 = 0;
	for (var y = 0; y < h; y++)
		for (var x = 0; x < w; x++) {
			var k = 4 * (y * w + x);
			var hi = Math.max(d[k], d[k + 1], d[k + 2]), lo = Math.min(d[k], d[k + 1], d[k + 2]);
			if (hi - lo > 100) {
				x0 = Math.min(x0, x); y0 = Math.min(y0, y);
				x1 = Math.max(x1, x); y1 = Math.max(y1, y);
			}
		}
	return [x0 / w, y0 / h, x1 / w, y1 / h].map(function (v) { return v.toFixed(3); }).join(" ");
}
var done = [], left = srcs.length;
srcs.forEach(function (s, i) {
	var img = new Image();
	img.onload = function () {
		done[i] = extent(img);
		if (--left == 0) document.getElementById("out").textContent = "extent " + done.join(" ");
	};
	img.src = s;
});
</script></body></html>
JS
} > view.html
profile=$(mktemp -d) || exit 99
timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$profile" --virtual-time-budget=10000 --dump-dom "file://$PWD/view.html" \
	> dom.txt 2> browser.txt
rm -rf "$profile"
seen=$(grep -o 'extent [0-9][0-9. ]*' dom.txt | head -n 1)
check "the browser did not draw the pictures: $(tail -n 2 browser.txt)" [ -n "$seen" ]
# extent X0 Y0 X1 Y1 (the SVG's), the same for the report's picture, then for the PNG: the
# coloured edges span the same part of each page, within a hundredth
echo "$seen" | awk '{
	for (p = 0; p < 2; p++)
		for (i = 2; i <= 5; i++)
			if ($(i + 4 * p) - $(i + 8) > 0.01 || $(i + 8) - $(i + 4 * p) > 0.01 ||
			    $(2 + 4 * p) >= $(4 + 4 * p)) {
				printf "the browser draws %s edges over %s..%s x %s..%s of the page, ",
					p ? "the report'"'"'s" : "the SVG'"'"'s", $(2 + 4 * p), $(4 + 4 * p),
					$(3 + 4 * p), $(5 + 4 * p)
				printf "the PNG over %s..%s x %s..%s\n", $10, $12, $11, $13
				exit
			}
}' > apart.txt
check "$(cat apart.txt)" [ ! -s apart.txt ]
exit "$fail"
