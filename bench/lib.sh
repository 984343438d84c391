# Shared by the benchmark scripts (sourced): interleaved timing into "$out" and medians.

# time_once NAME CMD...: appends the wall seconds of one run to $out/NAME
time_once() {
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }' >>"$out/$name"
}
# printed_once NAME SED_EXPR CMD...: appends to $out/NAME the number SED_EXPR (a sed -n script
# that prints it) finds in what one run of CMD prints (programs that time themselves)
printed_once() {
  local name=$1 expr=$2
  shift 2
  "$@" 2>/dev/null | sed -n "$expr" >>"$out/$name"
}
median() { sort -n "$out/$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v a="$(median "$1")" -v b="$(median "$2")" 'BEGIN { printf "%.3f\n", a / b }'; }
# print_medians BASE NAME...: one line per NAME: its median, its ratio to BASE's median and
# every run, sorted.
print_medians() {
  local base=$1 name
  shift
  for name in "$@"; do
    printf "%-8s median %6.2f s  (%.2fx %s)  runs:%s\n" "$name" "$(median "$name")" \
      "$(ratio "$name" "$base")" "$base" "$(sort -n "$out/$name" | awk '{printf " %s", $1}')"
  done
}
# paired_ratio BASE NAME: NAME's runs over BASE's, round by round (both files hold one number a
# run, interleaved runs in the same order): "median (q1 to q3)". Pairing cancels the machine's
# slow drifts (a VM that changes speed between rounds) that separate medians keep.
paired_ratio() {
  paste "$out/$1" "$out/$2" | awk '$1 > 0 { printf "%.6f\n", $2 / $1 }' | sort -n |
    awk '{ a[NR] = $1 } END {
      if (NR == 0) { print "-"; exit }
      m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
      q1 = a[int((NR - 1) / 4) + 1]; q3 = a[int(3 * (NR - 1) / 4) + 1]
      printf "%.3f (%.3f to %.3f)\n", m, q1, q3 }'
}
