#!/usr/bin/env bash
# compare-outputs.sh: proves that two builds of peergate print the same bytes.
#
# Why: a restructuring of the code must leave every output of every command unchanged on every
# built-in machine. This script runs the same ordered list of invocations against two build
# directories and compares, per invocation, the exit status, stdout, stderr and every file the
# invocation wrote (doctor --html, export --output/--also, gather, the verdict cache).
#
# Usage:
#   scripts/compare-outputs.sh [--keep DIR] [--jobs 1|2] [--src DIR] BUILD_A BUILD_B
#     BUILD_A, BUILD_B  build directories, each with bin/peergate and its simulated parts beside
#                       it (lib/peergate, libexec/peergate, share/peergate), e.g. build/release
#     --keep DIR        keep the captured outputs in DIR (a new folder): DIR/a and DIR/b hold
#                       one folder per invocation (name, snippet, rc, stdout, stderr, state/
#                       with the files it wrote), already normalised; DIR/cases.tsv the list
#     --jobs N          2 (default) captures A and B side by side, 1 one after the other
#     --src DIR         the source tree whose machines/*.json and tests/fixtures are used
#                       (default: the tree this script lies in)
#   Prints `same ID NAME` or `DIFF ID NAME` per invocation, the diff of the first differing
#   ones, and last `compare-outputs: N invocations, N same, N differ`.
#   Exit status: 0 every invocation the same, 1 one differs, 2 usage error.
#   Example: scripts/compare-outputs.sh /work/baseline/build/release build/release
#
# Machines: every machines/*.json as `--simulate NAME` and every tests/fixtures/machines/*.json
# as `--simulate PATH`. Per machine: topo, doctor (-v, --html, --gpus, --probe), gate (each
# --for profile, --format shell, --place), exec (child /usr/bin/env, a child's exit status,
# --place with --bind-cpus/--bind-memory), probe, bench, place (sizes that fit, --require, one
# that does not fit), export (each format, --output/--also), fleet node/health/merge, gather
# and its replay, cuda-visible, the main ones in text and --json; and two chains run as one
# invocation that share one verdict cache (probe, then gate/doctor/fleet/export/exec see its
# verdict; bench --json, then doctor/place/export --bandwidth). Plus machine-independent ones:
# --help of each command, nccl-log over tests/fixtures/nccl, topo/place --from the saved
# `nvidia-smi topo -m` texts, fleet run without srun. Both builds run the same list in the
# same order (DIR/cases.tsv).
#
# Isolation: the invocations of a build run under `env -i` (PATH=/usr/local/bin:/usr/bin:/bin,
# LC_ALL=C), each peergate under `timeout 60`. Each invocation gets a fresh HOME, XDG_CACHE_HOME
# (so a verdict cache written by one probe never reaches another invocation: what the cache
# changes is tested by the chains) and working directory (every file left there is compared).
# TMPDIR is one fresh folder per build, shared by its invocations: it holds only the simulated
# host roots, which peergate writes once per machine content and never changes (sharing it
# saves ~0.15 s per invocation on 8-GPU machines); it is not compared.
#
# Normalisation, applied with sed to stdout, stderr and the files before comparing (see
# normalisation()); each is a value that differs between two runs of ONE build, or between two
# build folders, found by running the script with the same build twice:
#   - each invocation's state folder (HOME, XDG_CACHE_HOME, cwd)  -> @STATE@
#   - the build's TMPDIR (the kernel log path of the simulated host root)  -> @TMP@
#   - the build directory's path (usage lines, -v's library paths, the nvidia-smi it ran)
#                                                                 -> @BUILD@
#   - ISO-8601 times: the verdict cache's written_at and the `written ...` of the findings
#     that quote it, NFD's `generated` comment and its expiry-time label   -> @TIME@
#   - Prometheus peergate_last_run_timestamp_seconds, peergate_last_success_timestamp_seconds
#     (-> @TIME@) and peergate_run_duration_seconds (-> @DURATION@); NFD's timestamp= label
#   - fleet node's record-part "id" (random per run, joins a split record's parts)   -> @ID@
# Probe and bench rates and verdicts on the simulated machines are the same run to run and are
# compared as they are.
#
# Excluded, with the reason printed at the start of the run:
#   - bench and probe at their default sizes (64 MiB: the simulated copies are real host
#     copies, 0.4-6 s per invocation); bench runs at --size-mib 4 (1 in the chain), probe at
#     --sizes-mib 1,4 --repeats 1; doctor --probe and export --probe have no size option and
#     run at the defaults;
#   - on a machine whose simulated CUDA driver hangs (a `hang` fault): doctor --probe, export
#     --probe and the chains, which would each wait for the probe's 30 s default watchdog;
#     probe and bench run there with --timeout 0.2 instead.
set -euo pipefail
shopt -s nullglob
export LC_ALL=C

readonly PER_INVOCATION_TIMEOUT=60
readonly SHOW_DIFFS=5
readonly CHILD_PATH=/usr/local/bin:/usr/bin:/bin
readonly PROFILES=(llama.cpp nccl vllm sglang all)
readonly EXPORT_FORMATS=(prometheus nfd gres dot nccl-topo)
SELF=$(realpath "$0")
readonly SELF
WORK=""

die() {
    echo "compare-outputs: $*" >&2
    exit 2
}

usage() {
    sed -n '/^# Usage:/,/^#   Example:/s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

# --- the invocations --------------------------------------------------------------------------

# Each case is one line: NAME<TAB>SNIPPET. The snippet is bash; `pg` runs the peergate under test.
emit() { printf '%s\t%s\n' "$1" "$2"; }

# A command in text and in --json form: emit_tj NAME GLOBAL-ARGS COMMAND-ARGS.
emit_tj() {
    emit "$1" "pg $2 $3"
    emit "$1 [json]" "pg $2 --json $3"
}

gpu_count() { jq '.gpus | length' "$1"; }

cuda_hangs() { [[ "$(jq '[.faults[]? | select(.layer == "cuda" and .effect == "hang")] | length' "$1")" != 0 ]]; }

excluded() { echo "compare-outputs: excluded on $1: $2" >> "$EXCLUDED"; }

# KIND is builtin or fixture; ARG what --simulate gets; FILE the machine file.
machine_cases() {
    local label=$1 kind=$2 arg=$3 file=$4 n sim p f
    n=$(gpu_count "$file")
    sim="--simulate $(printf '%q' "$arg")"
    file=$(printf '%q' "$file")

    emit_tj "$label: topo" "$sim" "topo"
    emit_tj "$label: topo --source smi" "$sim" "topo --source smi"
    emit "$label: topo --crosscheck" "pg $sim topo --crosscheck"
    emit "$label: -v topo" "pg $sim -v topo"

    emit_tj "$label: doctor" "$sim" "doctor"
    emit "$label: -v doctor" "pg $sim -v doctor"
    emit "$label: doctor --html" "pg $sim doctor --html doctor.html"
    ((n >= 2)) && emit "$label: doctor --gpus 0,1" "pg $sim doctor --gpus 0,1"

    emit_tj "$label: gate" "$sim" "gate"
    for p in "${PROFILES[@]}"; do
        emit "$label: gate --for $p" "pg $sim gate --gpus all --for $p"
    done
    emit "$label: --json gate --for all" "pg $sim --json gate --gpus all --for all"
    emit "$label: gate --format shell" "pg $sim gate --gpus all --for all --format shell"
    ((n >= 2)) && emit "$label: gate --place 2" "pg $sim gate --place 2 --for nccl"

    emit "$label: exec -- env" "pg $sim exec --gpus all -- /usr/bin/env"
    emit "$label: exec --for all -- env" "pg $sim exec --gpus all --for all -- /usr/bin/env"
    emit "$label: --json exec -- env" "pg $sim --json exec --gpus all --for vllm -- /usr/bin/env"
    ((n >= 2)) && emit "$label: exec --place 2 --bind -- env" \
        "pg $sim exec --place 2 --bind-cpus --bind-memory --for nccl -- /usr/bin/env"
    emit "$label: exec -- sh exit 3" "pg $sim exec --gpus all -- /bin/sh -c 'echo child; exit 3'"

    if cuda_hangs "$file"; then
        hanging_machine_cases "$label" "$sim"
    else
        probing_cases "$label" "$sim"
    fi

    emit "$label: place --size 1" "pg $sim place --size 1"
    ((n >= 2)) && emit_tj "$label: place --size 2" "$sim" "place --size 2"
    ((n >= 4)) && emit "$label: place --size $((n / 2))" "pg $sim place --size $((n / 2)) --for vllm"
    ((n >= 2)) && emit "$label: place --require --count 1" "pg $sim place --size 2 --count 1 --require 1"
    emit "$label: place --size $((n + 1)) (impossible)" "pg $sim place --size $((n + 1))"

    for f in "${EXPORT_FORMATS[@]}"; do
        emit "$label: export $f" "pg $sim export $f --node-name n1"
    done
    emit "$label: export --output --also" \
        "pg $sim export prometheus --output out.prom --also nfd=labels --also gres=gres.conf --also dot=topo.dot --also nccl-topo=topo.xml --node-name n1 --expiry-hours 2"

    emit "$label: fleet node" "pg $sim fleet node --node-name n1"
    emit_tj "$label: fleet health" "$sim" "fleet health --node-name n1"
    emit "$label: fleet merge" \
        "pg $sim fleet node --node-name n1 --one-line > n1.jsonl; pg $sim fleet node --node-name n2 > n2.jsonl; pg $sim fleet merge -N 3 n1.jsonl n2.jsonl; echo \"[exit \$?]\"; pg $sim --json fleet merge n1.jsonl n2.jsonl"

    emit "$label: gather, replay" "st pg $sim gather --output g.json; pg --simulate g.json topo"
    emit "$label: cuda-visible" "pg $sim cuda-visible"

    if [[ $kind == builtin ]]; then
        emit "$label: topo --from FILE" "pg topo --from $file"
        emit "$label: place --from FILE" "pg place --size 2 --from $file"
        emit "$label: fleet health --drain (no scontrol)" \
            "pg $sim fleet health --drain --scontrol /nonexistent --node-name n1"
    fi
}

# The commands that move data, on a machine whose driver answers. probe and bench run at small
# sizes where the option exists (the simulated copies are real host copies: the default 64 MiB
# takes seconds per machine); doctor/export --probe cannot be made smaller and run as they are.
probing_cases() {
    local label=$1 sim=$2 small="--sizes-mib 1,4 --repeats 1"
    emit "$label: probe" "pg $sim probe $small"
    emit_tj "$label: probe --mode all" "$sim" "probe --mode all $small"
    emit "$label: probe --verify host" "pg $sim probe --mode all --verify host --sizes-mib 1 --repeats 1"
    emit_tj "$label: bench --latency --size-mib 4" "$sim" "bench --latency --size-mib 4"
    emit_tj "$label: doctor --probe" "$sim" "doctor --probe"
    emit "$label: export --probe prometheus" "pg $sim export prometheus --probe"
    emit "$label: chain: probe, then the cache" \
        "st pg $sim probe --mode all $small; st pg $sim gate --gpus all; st pg $sim --json gate --gpus all; st pg $sim doctor; st pg $sim fleet node --one-line --node-name n1; st pg $sim fleet health --node-name n1; st pg $sim export prometheus; st pg $sim exec --gpus all -- /bin/true"
    emit "$label: chain: bench, then --bandwidth" \
        "pg $sim --json bench --size-mib 1 > b.json; echo \"[exit \$?]\"; st pg $sim doctor --bandwidth b.json; st pg $sim place --size 1 --bandwidth b.json; st pg $sim export prometheus --bandwidth b.json; st pg $sim export nfd --bandwidth b.json"
}

# The same where the simulated CUDA driver hangs: probe and bench with a short watchdog.
hanging_machine_cases() {
    local label=$1 sim=$2
    emit_tj "$label: probe --mode all --timeout 0.2" "$sim" "probe --mode all --timeout 0.2"
    emit_tj "$label: bench --latency --timeout 0.2" "$sim" "bench --latency --size-mib 4 --timeout 0.2"
    excluded "$label" "doctor --probe, export --probe and the chains (its CUDA driver hangs: each would wait for the probe's 30 s default watchdog, which they cannot shorten); probe and bench run with --timeout 0.2"
}

global_cases() {
    local src=$1 c f
    emit "--version" "pg --version"
    emit "--help" "pg --help"
    emit "no command" "pg"
    emit "unknown command" "pg frobnicate"
    for c in topo doctor gate exec probe bench place gather nccl-log export fleet cuda-visible \
        "fleet node" "fleet run" "fleet health" "fleet merge"; do
        emit "$c --help" "pg $c --help"
    done
    emit "fleet run (no srun)" "pg --simulate hgx-b200-8x fleet run -N 2"
    for f in "$src"/tests/fixtures/nccl/*.log; do
        emit_tj "nccl-log $(basename "$f")" "" "nccl-log $(printf '%q' "$f")"
    done
    emit "nccl-log --topology" \
        "pg nccl-log $src/tests/fixtures/nccl/*.log --topology $src/tests/fixtures/topo_m/unsloth_TOPO_NVLINK_8X.txt"
    emit "nccl-log - (stdin)" "pg nccl-log - < $src/tests/fixtures/nccl/handwritten-all-shapes.log"
    for f in "$src"/tests/fixtures/topo_m/*.txt "$src"/tests/fixtures/place/*.txt; do
        emit_tj "topo --from $(basename "$f")" "" "topo --from $(printf '%q' "$f")"
        emit "place --size 2 --from $(basename "$f")" "pg place --size 2 --from $(printf '%q' "$f")"
    done
}

# NAME<TAB>--simulate ARGUMENT<TAB>machine file, built-in machines first, in name order.
machines() {
    local src=$1 f
    for f in "$src"/machines/*.json; do
        printf '%s\tbuiltin\t%s\t%s\n' "$(basename "$f" .json)" "$(basename "$f" .json)" "$f"
    done
    for f in "$src"/tests/fixtures/machines/*.json; do
        printf '%s\tfixture\t%s\t%s\n' "fixture $(basename "$f" .json)" "$f" "$f"
    done
}

all_cases() {
    local src=$1 label kind arg file
    global_cases "$src"
    excluded "every machine" "bench and probe at their default sizes (64 MiB copies: 0.4-6 s each); they run at --size-mib 4 and --sizes-mib 1,4 --repeats 1"
    while IFS=$'\t' read -r label kind arg file; do
        machine_cases "$label" "$kind" "$arg" "$file"
    done < <(machines "$src")
}

# --- running one build ------------------------------------------------------------------------

# Runs the cases of one build, one after the other, in this shell: started by capture_build
# under `env -i`, so that the environment the commands see is only what run_case exports.
# pg runs the build's peergate under the timeout (PG is not exported, so no child sees it); st
# runs a chain step and prints its exit status.
run_cases() {
    local build=$1 out=$2 cases=$3 i=0 name snippet id
    PG=$build/bin/peergate
    exec 3>&2
    while IFS=$'\t' read -r name snippet; do
        i=$((i + 1))
        printf -v id '%04d' "$i"
        printf '%s\n' "$name" > "$out/$id/name"
        printf '%s\n' "$snippet" > "$out/$id/snippet"
        run_case "$out/$id" "$out/tmp" "$snippet"
    done < "$cases"
}

# shellcheck disable=SC2317 # pg and st are called by the snippets, through eval
pg() {
    local rc=0
    timeout -k 5 "$PER_INVOCATION_TIMEOUT" "$PG" "$@" 3>&- || rc=$?
    if ((rc == 124 || rc == 137)); then
        echo "compare-outputs: warning: timed out after ${PER_INVOCATION_TIMEOUT}s: $CASE_NAME" >&3
    fi
    return "$rc"
}

# shellcheck disable=SC2317
st() {
    "$@"
    echo "[exit $?]"
}

run_case() {
    local dir=$1 tmp=$2 snippet=$3 state=$1/state rc=0 start=$EPOCHREALTIME
    CASE_NAME=$(< "$dir/name")
    (
        set +euo pipefail
        cd "$state/cwd" || exit 2
        unset OLDPWD
        # shellcheck disable=SC2030 # the invocation's own environment, meant to stay in ( )
        export HOME=$state/home XDG_CACHE_HOME=$state/cache TMPDIR=$tmp
        eval "$snippet"
    ) > "$dir/stdout" 2> "$dir/stderr" < /dev/null || rc=$?
    echo "$rc" > "$dir/rc"
    echo "$start $EPOCHREALTIME" > "$dir/seconds"
}

# Escapes a literal string for the left side of a sed -E s|||.
sed_literal() { printf '%s' "$1" | sed -e 's/[][\.|$*+?^(){}]/\\&/g'; }

# The documented normalisations (header comment) of one build's captured outputs under OUT,
# as sed arguments: each invocation's state directory, the shared TMPDIR, the build's path
# first, then the wall-clock values.
normalisation() {
    local build=$1 out=$2 p
    printf '%s\n' -e "s|$(sed_literal "$out")/[0-9]{4}/state|@STATE@|g"
    printf '%s\n' -e "s|$(sed_literal "$out/tmp")|@TMP@|g"
    for p in "$(realpath "$build")" "$build"; do
        printf '%s\n' -e "s|$(sed_literal "$p")|@BUILD@|g"
    done
    printf '%s\n' -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?/@TIME@/g'
    printf '%s\n' -e 's/^(peergate_last_(run|success)_timestamp_seconds(\{[^}]*\})?) [0-9.e+]+$/\1 @TIME@/'
    printf '%s\n' -e 's/^(peergate_run_duration_seconds(\{[^}]*\})?) [0-9.e+-]+$/\1 @DURATION@/'
    printf '%s\n' -e 's/^(peergate\.feature\.node\.kubernetes\.io\/timestamp)=[0-9]+$/\1=@TIME@/'
    printf '%s\n' -e 's/("schema":"peergate\.fleet_node_part\/v1","node":"[^"]*","id":")[0-9a-f]+"/\1@ID@"/g'
}

# Normalises, in place, every invocation's stdout, stderr and each file it left in its HOME,
# verdict cache and working directory.
normalise_outputs() {
    local build=$1 out=$2 norm=()
    mapfile -t norm < <(normalisation "$build" "$out")
    find "$out" -path "$out/tmp" -prune -o -type f \
        \( -name stdout -o -name stderr -o -path "$out/*/state/*" \) -print0 |
        xargs -0 -r sed -E -i "${norm[@]}"
}

capture_build() {
    local build=$1 out=$2 cases=$3 n i
    n=$(wc -l < "$cases")
    mkdir -p "$out/tmp"
    for ((i = 1; i <= n; i++)); do
        printf '%s/%04d/state/home\n%s/%04d/state/cache\n%s/%04d/state/cwd\n' \
            "$out" "$i" "$out" "$i" "$out" "$i"
    done | xargs mkdir -p
    env -i PATH="$CHILD_PATH" LC_ALL=C bash "$SELF" --run-cases "$build" "$out" "$cases"
    normalise_outputs "$build" "$out"
}

# --- comparing --------------------------------------------------------------------------------

# Case ids whose normalised outputs differ: one recursive diff over both trees (the shared
# simulated host roots in tmp/ and each invocation's timing are not outputs).
differing_ids() {
    diff -rq -x tmp -x seconds "$1" "$2" | sed -E -n "s|^.*$(sed_literal "$1")/([0-9]{4}).*$|\1|p" | sort -u || true
}

compare_all() {
    local a=$1 b=$2 total=0 same=0 differ=0 shown=0 dir id
    declare -A differs=()
    for id in $(differing_ids "$a" "$b"); do differs[$id]=1; done
    for dir in "$a"/[0-9][0-9][0-9][0-9]/; do
        id=${dir%/}
        id=${id##*/}
        total=$((total + 1))
        if [[ -z ${differs[$id]:-} ]]; then
            same=$((same + 1))
            echo "same $id $(< "$a/$id/name")"
        else
            differ=$((differ + 1))
            echo "DIFF $id $(< "$a/$id/name")"
            if ((shown < SHOW_DIFFS)); then
                shown=$((shown + 1))
                echo "  invocation: $(< "$a/$id/snippet")"
                diff -ru -x seconds "$a/$id" "$b/$id" |
                    sed -E 's/^((---|\+\+\+) [^\t]*)\t.*/\1/' | head -n 40 || true
            fi
        fi
    done
    echo "compare-outputs: $total invocations, $same same, $differ differ"
    ((differ == 0))
}

main() {
    local keep="" jobs=2 src
    if [[ ${1:-} == --run-cases ]]; then
        shift
        run_cases "$@"
        return
    fi
    src=$(cd "$(dirname "$0")/.." && pwd)
    while (($#)); do
        case $1 in
            --keep) keep=${2:?--keep needs a DIR}; shift 2 ;;
            --jobs) jobs=${2:?--jobs needs 1 or 2}; shift 2 ;;
            --src) src=${2:?--src needs a DIR}; shift 2 ;;
            -h | --help) usage ;;
            --*) die "unknown option $1" ;;
            *) break ;;
        esac
    done
    (($# == 2)) || usage
    local a b
    a=$(realpath "$1")
    b=$(realpath "$2")
    [[ -x $a/bin/peergate ]] || die "$a/bin/peergate is not an executable"
    [[ -x $b/bin/peergate ]] || die "$b/bin/peergate is not an executable"
    command -v jq > /dev/null || die "jq is required (the GPU count of each machine file)"
    src=$(realpath "$src")

    if [[ -n $keep ]]; then
        [[ ! -e $keep ]] || die "--keep $keep already exists"
        mkdir -p "$keep"
        WORK=$(realpath "$keep")
    else
        # shellcheck disable=SC2031 # the caller's TMPDIR; run_case's is its subshell's own
        WORK=$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/compare-outputs.XXXXXX")")
        trap 'rm -rf "$WORK"' EXIT
    fi
    local work=$WORK

    EXCLUDED=$work/excluded
    : > "$EXCLUDED"
    all_cases "$src" > "$work/cases.tsv"
    cat "$EXCLUDED"
    echo "compare-outputs: $(wc -l < "$work/cases.tsv") invocations per build; A=$a B=$b"
    local start=$SECONDS
    if ((jobs >= 2)); then
        capture_build "$a" "$work/a" "$work/cases.tsv" &
        local pid_a=$!
        capture_build "$b" "$work/b" "$work/cases.tsv"
        wait "$pid_a"
    else
        capture_build "$a" "$work/a" "$work/cases.tsv"
        capture_build "$b" "$work/b" "$work/cases.tsv"
    fi
    echo "compare-outputs: both builds ran in $((SECONDS - start)) s"
    compare_all "$work/a" "$work/b"
}

main "$@"; exit # on one line: bash never reads past it, so an edit while it runs is harmless
