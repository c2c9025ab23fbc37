#!/usr/bin/env bash
# Build kube-apiserver + kube-controller-manager (and a matching etcd) from the Go module proxy.
# Recipe: /work/shared/docs/control-plane.md §2. Outputs live OUTSIDE the repository, in
#   ${KEXP_K8S_CACHE:-$HOME/.cache/kexp-k8s}/v<K8S_VERSION>/bin      (kube-apiserver, kube-controller-manager)
#   ${KEXP_K8S_CACHE:-$HOME/.cache/kexp-k8s}/etcd-v<ETCD_VERSION>/bin (etcd)
# Cached binaries are reused. Environment:
#   K8S_VERSION   default 1.37.2 (newest v1.37.x on the Go module proxy; check `go list -m -versions k8s.io/kubernetes`)
#   ETCD_VERSION  default 3.7.3 for 1.37+, 3.6.16 for 1.34-1.36
#   KEXP_K8S_CACHE cache root
#   KEXP_BUILD_KUBECTL=1 also build a version-matched kubectl
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.2}"
K8S_VERSION="${K8S_VERSION#v}"
CACHE_ROOT="${KEXP_K8S_CACHE:-$HOME/.cache/kexp-k8s}"

fail() { echo "build: $*" >&2; exit 1; }

# run <step description> <command...>: runs the command, on failure prints one line naming the step
# plus the last lines of its output, then exits.
run() {
  local what="$1"; shift
  local out rc=0
  out="$("$@" 2>&1)" || rc=$?
  if [ "$rc" -ne 0 ]; then
    local last
    # the most telling line: the first "go: ..." / error line, else the last non-empty one
    last="$(printf '%s\n' "$out" | grep -m1 -E '^go: |[Ee]rror|cannot |undefined:|not available|: [0-9]{3} ' || true)"
    [ -n "$last" ] || last="$(printf '%s\n' "$out" | grep -v '^[[:space:]]*$' | tail -n 1)"
    last="$(printf '%s' "$last" | sed 's/^[[:space:]]*//')"
    printf '%s\n' "$out" | tail -n 30 >&2
    fail "$what failed: ${last:-exit status $rc}"
  fi
  [ -n "${KEXP_BUILD_VERBOSE:-}" ] && printf '%s\n' "$out" >&2
  return 0
}

if ! command -v go >/dev/null 2>&1; then
  [ -x /usr/local/go/bin/go ] && PATH="/usr/local/go/bin:$PATH" || fail "go toolchain: 'go' not found (need Go 1.26)"
fi
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS=-mod=mod CGO_ENABLED=0

case "$K8S_VERSION" in
  1.*.*) ;;
  *) fail "version check: K8S_VERSION must look like 1.37.2, got '$K8S_VERSION'" ;;
esac
MINOR="$(echo "$K8S_VERSION" | cut -d. -f2)"
STAGING_VERSION="v0.${K8S_VERSION#1.}"
if [ -z "${ETCD_VERSION:-}" ]; then
  if [ "$MINOR" -ge 37 ]; then ETCD_VERSION=3.7.3; else ETCD_VERSION=3.6.16; fi
fi
ETCD_VERSION="${ETCD_VERSION#v}"

K8S_DIR="$CACHE_ROOT/v$K8S_VERSION"
K8S_BIN="$K8S_DIR/bin"
ETCD_DIR="$CACHE_ROOT/etcd-v$ETCD_VERSION"
ETCD_BIN="$ETCD_DIR/bin"

start_all=$(date +%s)

# ---------------------------------------------------------------- kube-apiserver + kube-controller-manager
build_k8s() {
  if [ -x "$K8S_BIN/kube-apiserver" ] && [ -x "$K8S_BIN/kube-controller-manager" ] &&
     { [ -z "${KEXP_BUILD_KUBECTL:-}" ] || [ -x "$K8S_BIN/kubectl" ]; } &&
     [ "$("$K8S_BIN/kube-apiserver" --version 2>/dev/null || true)" = "Kubernetes v$K8S_VERSION" ] &&
     [ "$("$K8S_BIN/kube-controller-manager" --version 2>/dev/null || true)" = "Kubernetes v$K8S_VERSION" ]; then
    echo "build: kubernetes v$K8S_VERSION cached in $K8S_BIN"
    return 0
  fi
  local t0; t0=$(date +%s)
  echo "build: kubernetes v$K8S_VERSION (staging $STAGING_VERSION) -> $K8S_BIN"
  local wrapper="$K8S_DIR/wrapper"
  rm -rf "$wrapper"; mkdir -p "$wrapper" "$K8S_BIN"
  cd "$wrapper"
  run "go mod init (k8s wrapper)" go mod init kexp.local/k8sbins

  local json gomod
  json="$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" 2>&1)" ||
    fail "go mod download k8s.io/kubernetes@v$K8S_VERSION failed: $(printf '%s\n' "$json" | grep -m1 -E '"Error"|error|Error' | sed 's/^[[:space:]]*"Error": "//; s/",\{0,1\}$//; s/\\n\\t/ /g')"
  gomod="$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p' | head -n1)"

  local mods=""
  if [ -n "$gomod" ] && [ -f "$gomod" ]; then
    mods="$(sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\)[[:space:]]*=>[[:space:]]*\./staging/src/k8s\.io/.*#\1#p' "$gomod" | sort -u)"
  fi
  if [ -z "$mods" ]; then
    echo "build: warning: could not read staging replaces from k8s.io/kubernetes go.mod ($gomod); using static list" >&2
    local list="api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider cluster-bootstrap
      code-generator component-base component-helpers controller-manager cri-api cri-client csi-translation-lib
      dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator kube-controller-manager kube-proxy
      kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission sample-apiserver sample-cli-plugin
      sample-controller"
    [ "$MINOR" -ge 36 ] && list="$list cri-streaming streaming"
    mods="$(for m in $list; do echo "k8s.io/$m"; done)"
  fi
  local n=0 m
  for m in $mods; do
    run "go mod edit -replace $m" go mod edit "-replace=$m=$m@$STAGING_VERSION"
    n=$((n + 1))
  done
  echo "build: $n staging replaces -> $STAGING_VERSION"

  if [ -n "$gomod" ] && [ -f "$gomod" ]; then
    local g
    for g in $(sed -n 's/^godebug[[:space:]]\{1,\}\([^([:space:]][^[:space:]]*\)[[:space:]]*$/\1/p' "$gomod"); do
      run "go mod edit -godebug=$g" go mod edit "-godebug=$g"
    done
  fi

  local tools=(kube-apiserver kube-controller-manager)
  [ -n "${KEXP_BUILD_KUBECTL:-}" ] && tools+=(kubectl)
  local t pkgs=()
  for t in "${tools[@]}"; do
    run "go get -tool $t" go get -tool "k8s.io/kubernetes/cmd/$t@v$K8S_VERSION"
    pkgs+=("k8s.io/kubernetes/cmd/$t")
  done

  local date ld="-s -w" p
  date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$MINOR -X $p.gitTreeState=clean -X $p.buildDate=$date"
  done
  echo "build: go build ${tools[*]} (this is the slow part)"
  run "go build ${tools[*]}" go build -trimpath -ldflags "$ld" -o "$K8S_BIN/" "${pkgs[@]}"

  local v
  v="$("$K8S_BIN/kube-apiserver" --version 2>&1 || true)"
  [ "$v" = "Kubernetes v$K8S_VERSION" ] || fail "version check: kube-apiserver --version printed '$v', want 'Kubernetes v$K8S_VERSION'"
  v="$("$K8S_BIN/kube-controller-manager" --version 2>&1 || true)"
  [ "$v" = "Kubernetes v$K8S_VERSION" ] || fail "version check: kube-controller-manager --version printed '$v', want 'Kubernetes v$K8S_VERSION'"
  echo "build: kubernetes v$K8S_VERSION built in $(( $(date +%s) - t0 ))s"
}

# ---------------------------------------------------------------- etcd
build_etcd() {
  if [ -x "$ETCD_BIN/etcd" ] && [ "$("$ETCD_BIN/etcd" --version 2>/dev/null | head -n1 || true)" = "etcd Version: $ETCD_VERSION" ]; then
    echo "build: etcd v$ETCD_VERSION cached in $ETCD_BIN"
    return 0
  fi
  local t0; t0=$(date +%s)
  echo "build: etcd v$ETCD_VERSION -> $ETCD_BIN"
  local wrapper="$ETCD_DIR/wrapper"
  rm -rf "$wrapper"; mkdir -p "$wrapper" "$ETCD_BIN"
  cd "$wrapper"
  run "go mod init (etcd wrapper)" go mod init kexp.local/etcdbin
  run "go get go.etcd.io/etcd/server/v3@v$ETCD_VERSION" go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION"
  run "go build etcd" go build -trimpath -ldflags "-s -w" -o "$ETCD_BIN/etcd" go.etcd.io/etcd/server/v3
  local v
  v="$("$ETCD_BIN/etcd" --version 2>&1 | head -n1 || true)"
  [ "$v" = "etcd Version: $ETCD_VERSION" ] || fail "version check: etcd --version printed '$v', want 'etcd Version: $ETCD_VERSION'"
  echo "build: etcd v$ETCD_VERSION built in $(( $(date +%s) - t0 ))s"
}

build_etcd
build_k8s

echo "build: done in $(( $(date +%s) - start_all ))s"
echo "KEXP_K8S_BIN=$K8S_BIN"
echo "KEXP_ETCD_BIN=$ETCD_BIN"
