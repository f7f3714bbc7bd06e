#!/bin/bash
# Checks `peergate export prometheus` with node_exporter's own textfile parser (the most
# faithful check, docs/ecosystem.md §2.4): writes the textfile for three simulated machines into a
# private directory, scrapes a private node_exporter on the loopback, and requires
# node_textfile_scrape_error 0 and every family. Needs Debian's prometheus-node-exporter and
# curl (not installed by install-deps: CI does not run this). Stops the exporter by its PID.
# Usage: scripts/textfile-check.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
build=$(cd "${1:-build/release}" && pwd)
pg="$build/bin/peergate"
exporter=/usr/bin/prometheus-node-exporter
[ -x "$pg" ] || { echo "textfile-check: no $pg: build it first" >&2; exit 2; }
[ -x "$exporter" ] || { echo "textfile-check: $exporter missing" >&2; exit 77; }
dir=$(mktemp -d /tmp/peergate-textfile.XXXXXX)
port=19187
"$exporter" --web.listen-address=127.0.0.1:$port --collector.disable-defaults \
    --collector.textfile --collector.textfile.directory="$dir" 2>"$dir.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
status=0
for machine in hgx-b200-8x pcie-rtx6000ada-2x-iommu single-h200; do
    args=(--simulate "$machine" export prometheus --output "$dir/peergate.prom")
    [ "$machine" = pcie-rtx6000ada-2x-iommu ] && args+=(--probe)
    "$pg" "${args[@]}"
    for _ in $(seq 50); do curl -sf "127.0.0.1:$port/metrics" >/dev/null && break; sleep 0.1; done
    scrape=$(curl -sf "127.0.0.1:$port/metrics")
    errors=$(echo "$scrape" | awk '/^node_textfile_scrape_error /{print $2}')
    families=$(echo "$scrape" | grep -c '^# TYPE peergate_' || true)
    expected=$(grep -c '^# TYPE ' "$dir/peergate.prom")
    echo "$machine: node_textfile_scrape_error $errors, $families of $expected peergate families"
    [ "$errors" = 0 ] && [ "$families" = "$expected" ] || status=1
done
exit $status
