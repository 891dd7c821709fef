#!/bin/bash
# The verifier of a Fuelboard task: Harbor runs it in the task's container once the agent is done.
# verify.py, beside it, says what it checks and what reward it writes. Outside the container, these
# name what the container has in fixed places:
#   FUELBOARD_WORKSPACE      the run root the agent worked in (/workspace)
#   FUELBOARD_REWARDS        the folder reward.txt goes in, where Harbor reads it (/logs/verifier)
#   FUELBOARD_METER_PYTHON   a Python with the meter's requirements (/opt/fuelboard/meter-env/bin/python)
set -u
tests=$(cd "$(dirname "$0")" && pwd)
rewards=${FUELBOARD_REWARDS:-/logs/verifier}
mkdir -p "$rewards"
echo 0 > "$rewards/reward.txt"  # a verifier that stops before it knows better gives 0
exec "${FUELBOARD_METER_PYTHON:-/opt/fuelboard/meter-env/bin/python}" -u "$tests/verify.py" \
    --workspace "${FUELBOARD_WORKSPACE:-/workspace}" --rewards "$rewards"
