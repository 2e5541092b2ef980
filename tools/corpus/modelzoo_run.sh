#!/bin/bash
# usage: [CASES=file.tsv] modelzoo_run.sh [name-regex]   (cases in $CASES, default /tmp/zoo/cases.tsv: name \t script(rel to /tmp/zoo/src) \t flags \t [pre-command run in script dir] \t [timeout])
WT=${WT:-/work/wt/zoo}
pat=${1:-.}
# tabs become \037 first: tab is IFS whitespace, so read would merge an empty flags field
while IFS=$'\037' read -r name script flags pre tmo; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  [[ "$name" =~ $pat ]] || continue
  tmo=${tmo:-600}
  dir=/tmp/zoo/src/$(dirname "$script"); base=$(basename "$script")
  log=/tmp/zoo/logs/$name.log
  start=$(date +%s)
  ( cd "$dir" && { [ -z "$pre" ] || eval "$pre"; } && ulimit -v ${VMEM:-4000000} && eval "PYTHONPATH=$WT${PYTHONPATH:+:$PYTHONPATH} MPLBACKEND=Agg timeout $tmo python -m estimator_npu.run $base $flags" ) > "$log" 2>&1 < /dev/null
  rc=$?
  t=$(( $(date +%s) - start ))
  if [ $rc = 0 ]; then st=PASS; note=""; else st=FAIL; note=$(grep -E "Error|error:|does not implement|Killed" "$log" | tail -1 | cut -c1-200); [ $rc = 124 ] && note="TIMEOUT $note"; fi
  printf "%s\t%s\t%s\t%ss\t%s\n" "$name" "$st" "$rc" "$t" "$note"
done < <(tr '\t' '\037' < "${CASES:-/tmp/zoo/cases.tsv}")
