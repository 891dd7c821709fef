#!/bin/bash
# Harbor's oracle: the case author's reference solution (reference/, beside this script) copied into
# the workspace over the starter, so the task's tests pass. FUELBOARD_WORKSPACE names the workspace
# outside the container (/workspace in it).
set -euo pipefail
reference=$(cd "$(dirname "$0")" && pwd)/reference
workspace=${FUELBOARD_WORKSPACE:-/workspace}
cp -R "$reference/." "$workspace/"
echo "the reference solution is in $workspace"
