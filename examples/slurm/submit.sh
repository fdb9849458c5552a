#!/bin/bash
# Sharded `probeboard graph` on Slurm: an array of N shard tasks, then a merge job that starts when all succeeded.
#   examples/slurm/submit.sh N COMPARE_JSON OUT_DIR MERGED.vis.db [more graph flags]
# Prints the two job ids. Partition, account, time limit…: set SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT
# (sbatch reads them), or edit the #SBATCH lines of shard.sbatch / merge.sbatch.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 N COMPARE_JSON OUT_DIR MERGED.vis.db [graph flags]" >&2
  exit 2
fi
n=$1
input=$(realpath "$2")
out=$(realpath -m "$3")
merged=$(realpath -m "$4")
shift 4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
array=$(sbatch --parsable --array=0-$((n - 1)) "$here/shard.sbatch" "$input" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes "$here/merge.sbatch" "$out" "$merged")
echo "${array} ${merge%%;*}"
