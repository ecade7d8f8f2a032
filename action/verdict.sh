#!/usr/bin/env bash
# The action's last step: the job fails by fail-on, after the findings were uploaded.
set -euo pipefail
code="${AUDIT_EXIT:-4}"
if [ "${AUDIT_FAIL_ON}" = never ]; then
  echo "citeaudit: worst exit code $code (fail-on: never, the job passes)"
  exit 0
fi
if [ "$code" != 0 ]; then
  echo "citeaudit: worst exit code $code (fail-on: ${AUDIT_FAIL_ON})" >&2
fi
exit "$code"
