# cli_helpers.sh: the checks of the mbt command tests, sourced after T (a scratch folder) is set:
# run, run_fails, has, hasnt, field, body_field, near; failures and checks count them.
failures=0
checks=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
ok() { checks=$((checks + 1)); }

# run EXPECTED_STATUS LABEL CMD...: runs CMD with stdout in $T/out, stderr in $T/err.
run() {
  expected=$1
  label=$2
  shift 2
  "$@" >"$T/out" 2>"$T/err"
  status=$?
  if [ "$status" -ne "$expected" ]; then
    fail "$label: exit status $status, expected $expected; stderr: $(head -c 600 "$T/err")"
  else
    ok
  fi
}
# run_fails LABEL CMD...: CMD must exit non-zero with a message on stderr.
run_fails() {
  label=$1
  shift
  "$@" >"$T/out" 2>"$T/err"
  status=$?
  if [ "$status" -eq 0 ]; then
    fail "$label: exit status 0, expected an error"
  elif [ ! -s "$T/err" ]; then
    fail "$label: exit status $status but no message on stderr"
  else
    ok
  fi
}
# has FILE PATTERN LABEL: FILE contains the fixed string PATTERN.
has() {
  if grep -F -q -- "$2" "$1"; then ok; else fail "$3: '$2' not found in $(basename "$1"): $(head -c 800 "$1")"; fi
}
hasnt() {
  if grep -F -q -- "$2" "$1"; then fail "$3: '$2' unexpectedly found"; else ok; fi
}

# field FILE NAME [N]: the numbers of the N-th (default 1st) line holding "NAME": in a cJSON
# printout (arrays are printed on one line), separated by spaces.
field() {
  awk -v key="\"$2\":" -v nth="${3:-1}" 'index($0, key) { if (++seen == nth) {
      line = substr($0, index($0, key) + length(key)); gsub(/[][,\t]/, " ", line); print line; exit } }' "$1"
}
# body_field FILE BODY NAME: the numbers of NAME ("p_WB", "R_WB") of one body.
body_field() {
  awk -v body="\"$2\":" -v key="\"$3\":" 'index($0, body) { inside = 1 }
      inside && index($0, key) { line = substr($0, index($0, key) + length(key));
        gsub(/[][,\t]/, " ", line); print line; exit }' "$1"
}
# near LABEL GOT EXPECTED TOL: same count of numbers, |got - expected| <= TOL·(1 + |expected|).
near() {
  if awk -v g="$2" -v e="$3" -v t="$4" 'BEGIN { n = split(g, a, " "); m = split(e, b, " ");
        if (n != m || n == 0) exit 1;
        for (i = 1; i <= n; i++) { d = a[i] - b[i]; if (d < 0) d = -d; s = b[i] < 0 ? -b[i] : b[i];
          if (d > t * (1 + s)) exit 1 }
        exit 0 }'; then
    ok
  else
    fail "$1: got [$2], expected [$3] (tolerance $4)"
  fi
}
