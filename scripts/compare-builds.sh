#!/bin/bash
# Compare builds of dsh-agents on one store: the median wall time and largest
# peak RSS of each listing over N interleaved runs per build (binaries need
# distinct file names).
# usage: ROOT=<root agent> scripts/compare-builds.sh STORE N BINARY...
S=$1; N=$2; shift 2
export DSH_AGENTS_CACHE_DIR=${TMPDIR:-/tmp}/compare-builds-cache
for cmd in "tree" "check" "--contract v1 list-agents --as $ROOT --scope descendants" "list-agents --as $ROOT"; do
  for b in "$@"; do : > ${TMPDIR:-/tmp}/compare-builds-$(basename $b).t; done
  for i in $(seq $N); do
    for b in "$@"; do
      /usr/bin/time -f "%e %M" -a -o ${TMPDIR:-/tmp}/compare-builds-$(basename $b).t $b --store $S $cmd > /dev/null 2>&1
    done
  done
  for b in "$@"; do
    echo "$cmd | $(basename $b) | $(sort -n ${TMPDIR:-/tmp}/compare-builds-$(basename $b).t | awk '{a[NR]=$1; if ($2>m) m=$2} END {print "median " a[int((NR+1)/2)] " s, peak " m/1024 " MiB"}')"
  done
done
