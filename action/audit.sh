#!/usr/bin/env bash
# The action's audit step: `citeaudit check --offline` on every claims file named, one report, SARIF
# and JUnit file each, the SARIF files merged into one run for code scanning, and the worst exit code.
# It never stops at the first file: every file gets its findings uploaded before the job fails.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${AUDIT_OUT:?}"
outputs="${GITHUB_OUTPUT:-/dev/null}"
fail_on="${AUDIT_FAIL_ON:-error}"
case "$fail_on" in
  error | never) check_fail_on=error ;;
  decision) check_fail_on=decision ;;
  *)
    echo "citeaudit: fail-on must be error, decision or never, got '$fail_on'" >&2
    echo "exit-code=2" >>"$outputs"
    exit 2
    ;;
esac

# How bad an exit code is, so the worst one is reported: clean < unchecked < decision < errors < bad input < bug.
rank() { case "$1" in 0) echo 0 ;; 3) echo 1 ;; 5) echo 2 ;; 6) echo 3 ;; 1) echo 4 ;; 2) echo 5 ;; *) echo 6 ;; esac; }
worst=0
note() { if [ "$(rank "$1")" -gt "$(rank "$worst")" ]; then worst="$1"; fi; }

rm -rf "$out" && mkdir -p "$out/reports" "$out/sarif" "$out/junit"
# args: shell words over all its lines (a multi-line `args: |` keeps every line), quotes honoured.
if ! python -c 'import os, shlex, sys
try:
    words = shlex.split(os.environ.get("AUDIT_ARGS", ""))
except ValueError as e:
    sys.exit(f"citeaudit: args: {e} (the input is read as shell words)")
sys.stdout.write("".join(w + "\0" for w in words))' >"$out/args"; then
  echo "exit-code=2" >>"$outputs"
  exit 2
fi
mapfile -d '' -t extra <"$out/args"
set -f
read -r -d '' -a patterns <<<"${AUDIT_FILES:-}"
set +f
shopt -s globstar nullglob
declare -A seen=()
files=()
for pattern in "${patterns[@]}"; do
  # shellcheck disable=SC2206  # the pattern is expanded as a glob on purpose
  matches=($pattern)
  if [ "${#matches[@]}" -eq 0 ]; then
    echo "citeaudit: no file matches '$pattern'" >&2
    note 2
  fi
  for file in "${matches[@]}"; do
    if [ -z "${seen[$file]:-}" ]; then
      seen[$file]=1
      files+=("$file")
    fi
  done
done
if [ "${#files[@]}" -eq 0 ]; then
  echo "citeaudit: no claims file to audit (input 'files')" >&2
  echo "exit-code=2" >>"$outputs"
  exit 2
fi

summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
{
  echo "### citeaudit"
  echo
  echo "| file | exit | summary |"
  echo "|---|---|---|"
} >>"$summary"
# Each file's failing citations, one a line, go below the table (a table row is one line).
details="$out/summary-details.md"
: >"$details"
n=0
for file in "${files[@]}"; do
  n=$((n + 1))
  # A numbered, sanitised name: two files never share an output, whatever their paths.
  name="$(printf '%03d-%s' "$n" "$(printf '%s' "$file" | tr -c 'A-Za-z0-9._-' '_')")"
  report="$out/reports/$name.json"
  echo "::group::citeaudit check $file"
  line="$(citeaudit check "$file" --offline --fail-on "$check_fail_on" "${extra[@]}" \
    --out "$report" --format sarif --output "$out/sarif/$name.sarif" 2>&1)"
  code=$?
  printf '%s\n' "$line"
  if [ -f "$report" ]; then
    citeaudit render "$report" --format junit --output "$out/junit/$name.xml" || note 4
  fi
  echo "::endgroup::"
  if [ "$code" = 2 ]; then
    echo "::error file=$file::$(printf '%s' "$line" | head -n 1)"
  fi
  note "$code"
  # The row: the file's summary lines (checked=…, decision=…), or its one error line.
  totals="$(printf '%s\n' "$line" | grep -E '^(checked|pass|decision)=' | tr '\n' ' ' | sed 's/ *$//' || true)"
  if [ -n "$totals" ]; then
    cited="$(printf '%s\n' "$line" | grep -vE '^(checked|pass|decision)=' | grep -v '^$' || true)"
  else
    totals="$(printf '%s\n' "$line" | head -n 1)"
    cited=""
  fi
  echo "| \`$file\` | $code | $(printf '%s' "$totals" | tr '|' ' ') |" >>"$summary"
  if [ -n "$cited" ]; then
    shown="$(printf '%s' "$file" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')"
    {
      echo
      echo "<details><summary><code>$shown</code>: $(printf '%s\n' "$cited" | wc -l | tr -d ' ') failing</summary>"
      echo
      echo '````text'
      printf '%s\n' "$cited" | sed 's/````/` ` ` `/g'
      echo '````'
      echo
      echo "</details>"
    } >>"$details"
  fi
done
cat "$details" >>"$summary"

sarif=""
if compgen -G "$out/sarif/*.sarif" >/dev/null; then
  sarif="$out/citeaudit.sarif"
  python "$here/merge_sarif.py" "$sarif" "$out"/sarif/*.sarif || note 4
fi
{
  echo "exit-code=$worst"
  echo "sarif=$sarif"
  echo "reports=$out/reports"
} >>"$outputs"
echo "citeaudit: ${#files[@]} file(s), worst exit code $worst"
