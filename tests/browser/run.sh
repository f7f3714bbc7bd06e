#!/usr/bin/env bash
# browser.doctor_pages: `doctor --html` and `fleet merge --html` rendered in a real browser (headless Chromium, Debian's
# chromium package). For each machine: the page is under 500 KB; the DOM Chromium built holds
# every GPU, every finding code of `doctor --json` and the verdict; screenshots at 1,400 and
# 420 px land in BUILD_DIR/browser/ (kept as CI artifacts); and rendering it takes less than one
# second longer than rendering an empty page, measured in this script (docs/doctor.md, "HTML").
# Usage: run.sh BUILD_DIR. Exit 77 (skipped) without chromium or python3.
set -euo pipefail
build=$(cd "$1" && pwd)
peergate=$(find "$build" -path '*/bin/peergate' -type f -print -quit)
fixtures=$(cd "$(dirname "$0")/../fixtures/machines" && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "chromium is not installed (Debian package chromium): skipped"; exit 77; }
command -v python3 > /dev/null || { echo "python3 is not installed: skipped"; exit 77; }
out=$build/browser
rm -rf "$out" && mkdir -p "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

chrome() {
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --user-data-dir="$profile" "$@" 2> /dev/null
}

# Seconds one --dump-dom of a file takes, browser start included.
render_seconds() {
  python3 - "$browser" "$profile" "$1" << 'PY'
import subprocess, sys, time
browser, profile, page = sys.argv[1:4]
start = time.monotonic()
subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--user-data-dir=" + profile, "--dump-dom", "file://" + page],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60, check=True)
print(time.monotonic() - start)
PY
}

printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>empty</title></head><body></body></html>\n' \
  > "$out/empty.html"
render_seconds "$out/empty.html" > /dev/null  # the first start fills the profile
baseline=$(render_seconds "$out/empty.html")

check_page() {
  local name=$1 machine=$2
  shift 2
  local page=$out/$name.html
  "$peergate" --simulate "$machine" doctor "$@" --html "$page" > /dev/null || true
  "$peergate" --simulate "$machine" doctor "$@" --json > "$out/$name.json" || true
  local size
  size=$(stat -c %s "$page")
  [ "$size" -lt 512000 ] || { echo "$name: the page is $size bytes, over 500 KB"; exit 1; }
  chrome --dump-dom "file://$page" > "$out/$name.dom.html"
  python3 - "$out/$name.json" "$out/$name.dom.html" "$name" << 'PY'
import html, json, re, sys
report = json.load(open(sys.argv[1]))
dom = html.unescape(re.sub(r"<[^>]+>", " ", open(sys.argv[2], encoding="utf-8").read()))
name = sys.argv[3]
wanted = ["peergate doctor: " + report["verdict"]]
wanted += ["GPU%d" % gpu["index"] for gpu in report["layers"]["topology"]["gpus"]]
wanted += [finding["code"] for finding in report["findings"]]
missing = [w for w in wanted if w not in dom]
if missing:
    sys.exit("%s: the rendered page lacks %s" % (name, ", ".join(missing)))
print("%s: %d texts found in the rendered page" % (name, len(wanted)))
PY
  chrome --window-size=1400,1000 --screenshot="$out/$name-1400.png" "file://$page" > /dev/null
  chrome --window-size=420,900 --screenshot="$out/$name-420.png" "file://$page" > /dev/null
  [ -s "$out/$name-1400.png" ] && [ -s "$out/$name-420.png" ] ||
    { echo "$name: no screenshot"; exit 1; }
  local seconds
  seconds=$(render_seconds "$page")
  python3 -c "import sys; extra = $seconds - $baseline; print('$name: rendered in %.2f s, %.2f s over an empty page' % ($seconds, extra)); sys.exit(extra >= 1.0)" ||
    { echo "$name: rendering took a second or more over the empty page"; exit 1; }
}

check_page silent-drop pcie-rtx6000ada-2x-iommu --probe
check_page nvswitch-healthy hgx-b200-8x
check_page bridged-a100 bridged-a100-4x
check_page nvlink-down "$fixtures/nvlink-down-8x.json"
check_page acs-redirect "$fixtures/acs-redirect-4x.json"

# The cluster page: three like nodes and one with a link down, merged from their lines.
# Each with its own bench result, so the page has its bandwidth by link class.
for node in gpu01:hgx-b200-8x gpu02:hgx-b200-8x "gpu03:$fixtures/nvlink-down-8x.json" gpu04:hgx-b200-8x; do
  "$peergate" --simulate "${node#*:}" bench --json > "$out/bench-${node%%:*}.json" || true
  "$peergate" --simulate "${node#*:}" fleet node --node-name "${node%%:*}" \
    --bandwidth "$out/bench-${node%%:*}.json"
done > "$out/fleet.jsonl"
"$peergate" fleet merge "$out/fleet.jsonl" --html "$out/fleet.html" > /dev/null || true
"$peergate" --json fleet merge "$out/fleet.jsonl" > "$out/fleet.json" || true
chrome --dump-dom "file://$out/fleet.html" > "$out/fleet.dom.html"
python3 - "$out/fleet.json" "$out/fleet.dom.html" << 'PY'
import html, json, re, sys
report = json.load(open(sys.argv[1]))
dom = html.unescape(re.sub(r"<[^>]+>", " ", open(sys.argv[2], encoding="utf-8").read()))
wanted = ["peergate fleet: problems", "Bandwidth by link class"] + [n["node"] for n in report["nodes"]]
wanted += [c["link"] for c in report["bandwidth"]]
wanted += [issue["code"] for issue in report["findings"]]
missing = [w for w in wanted if w not in dom]
if missing:
    sys.exit("fleet: the rendered page lacks %s" % ", ".join(missing))
if 'id="node-gpu03"' not in open(sys.argv[2], encoding="utf-8").read():
    sys.exit("fleet: gpu03's findings have no anchor")
print("fleet: %d texts found in the rendered page" % len(wanted))
PY
chrome --window-size=1400,1000 --screenshot="$out/fleet-1400.png" "file://$out/fleet.html" > /dev/null
chrome --window-size=420,900 --screenshot="$out/fleet-420.png" "file://$out/fleet.html" > /dev/null

# The silent-drop box: the lossy pair and the translating IOMMU are drawn, not only listed.
grep -q 'GPU0 ↔ GPU1: data lost' "$out/silent-drop.dom.html" ||
  { echo "silent-drop: the lossy pair is not drawn"; exit 1; }
grep -q 'IOMMU translating' "$out/silent-drop.dom.html" ||
  { echo "silent-drop: the translating IOMMU is not drawn"; exit 1; }
echo "browser.doctor_pages: 5 doctor pages and the fleet page rendered; screenshots in $out"
