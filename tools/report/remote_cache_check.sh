#!/usr/bin/env bash
# remote_cache_check.sh WORKSPACE_DIR: `--config=remote-cache` end to end (run by bazel_check.sh,
# i.e. `bazel run //tools/report:bazel_check`; it invokes bazel itself, so it is no `bazel test`).
#
# Starts Debian's nginx (nginx-light: the WebDAV module's PUT is all Bazel's HTTP cache protocol
# needs besides GET) on 127.0.0.1 with an empty cache directory, sets VKT_REMOTE_CACHE to it, and
# builds and tests //tools/report:remote_cache_probe_test twice with `--config=remote-cache`, each
# time from a new, empty output base. Checks: the first run executes the compile, link and test
# locally and uploads them (PUTs to /ac/ and /cas/); the second executes nothing locally, reports
# the test "(cached) PASSED" and every process as a remote cache hit, and fetched them (GET 200).
# Exit 0 when all hold, 1 otherwise, 2 when it cannot run (no nginx: ci/bootstrap installs it).
set -u
ws="${1:?usage: remote_cache_check.sh WORKSPACE_DIR}"
bazel="${BAZEL:-bazel}"
nginx_bin="${NGINX:-/usr/sbin/nginx}"
target=//tools/report:remote_cache_probe_test
if [[ ! -x "$nginx_bin" ]]; then
    echo "remote_cache_check: FAIL: $nginx_bin missing (Debian package nginx-light; ci/bootstrap installs it)"
    exit 2
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/remote_cache_check.XXXXXX")"
nginx_pid=""
cleanup() {
    [[ -n "$nginx_pid" ]] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
    for ob in "$tmp/output_base_1" "$tmp/output_base_2"; do
        [[ -d "$ob" ]] && (cd "$ws" && "$bazel" --output_base="$ob" shutdown >/dev/null 2>&1)
    done
    chmod -R u+w "$tmp" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "remote_cache_check: FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "remote_cache_check: ok: $*"; }

# nginx with WebDAV PUT on a free port of 127.0.0.1; everything it writes stays in $tmp.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$tmp/nginx/cache" "$tmp/nginx/tmp"
user_line=""
[[ "$(id -u)" -eq 0 ]] && user_line="user root;"   # workers may write to the root-only $tmp
cat >"$tmp/nginx/nginx.conf" <<EOF
$user_line
worker_processes 1;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events { worker_connections 128; }
http {
    access_log $tmp/nginx/access.log;
    client_body_temp_path $tmp/nginx/tmp/body;
    proxy_temp_path $tmp/nginx/tmp/proxy;
    fastcgi_temp_path $tmp/nginx/tmp/fastcgi;
    scgi_temp_path $tmp/nginx/tmp/scgi;
    uwsgi_temp_path $tmp/nginx/tmp/uwsgi;
    server {
        listen 127.0.0.1:$port;
        root $tmp/nginx/cache;
        client_max_body_size 0;
        location / {
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw;
        }
    }
}
EOF
"$nginx_bin" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log" -g 'daemon off;' &
nginx_pid=$!
up=0
for _ in $(seq 50); do
    if python3 - "$port" <<'EOF' 2>/dev/null; then up=1; break; fi
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen("http://127.0.0.1:%s/ac/0" % sys.argv[1], timeout=1)
except urllib.error.HTTPError as e:
    sys.exit(0 if e.code == 404 else 1)
sys.exit(1)
EOF
    sleep 0.2
done
if [[ $up -ne 1 ]]; then
    echo "remote_cache_check: FAIL: nginx did not answer on 127.0.0.1:$port"; cat "$tmp/nginx/error.log"
    exit 2
fi
ok "nginx (WebDAV) cache on 127.0.0.1:$port"
export VKT_REMOTE_CACHE="http://127.0.0.1:$port"

# Two clean output bases, the same command (--symlink_prefix=/: the workspace's bazel-* links keep
# pointing at the user's own output base, not at these temporary ones). --disk_cache= turns off any
# disk cache a user's ~/.bazelrc names: Bazel counts a disk-cache hit as a "remote cache hit", so
# with one the second run would be answered from disk and never reach nginx.
for i in 1 2; do
    (cd "$ws" && "$bazel" --output_base="$tmp/output_base_$i" --max_idle_secs=60 \
        test --config=remote-cache --disk_cache= --symlink_prefix=/ "$target" >"$tmp/run$i.log" 2>&1)
    echo $? >"$tmp/run$i.rc"
    cp "$tmp/nginx/access.log" "$tmp/access$i.log"
done

# First run: built and tested here, results uploaded.
rc1=$(cat "$tmp/run1.rc")
puts=$(grep -cE '"PUT /(ac|cas)/[0-9a-f]{64} HTTP/1.1" (201|204)' "$tmp/access1.log")
if [[ $rc1 -eq 0 ]] && grep -qE "^$target +PASSED" "$tmp/run1.log" && [[ $puts -ge 3 ]]; then
    ok "run 1 (empty output base, empty cache): built and tested locally, $puts entries uploaded"
else
    fail "run 1: bazel exit $rc1, $puts uploads (want 0 and >= 3)"; tail -20 "$tmp/run1.log"
fi

# Second run: nothing executed locally; everything from the cache.
rc2=$(cat "$tmp/run2.rc")
summary=$(grep -E '^INFO: [0-9]+ process(es)?: ' "$tmp/run2.log" | tail -1)
hits=$(sed -nE 's/.* ([0-9]+) remote cache hit.*/\1/p' <<<"$summary")
gets=$(($(grep -cE '"GET /(ac|cas)/[0-9a-f]{64} HTTP/1.1" 200' "$tmp/access2.log") -
        $(grep -cE '"GET /(ac|cas)/[0-9a-f]{64} HTTP/1.1" 200' "$tmp/access1.log")))
if [[ $rc2 -eq 0 ]] && grep -qE "^$target +\(cached\) PASSED" "$tmp/run2.log" &&
   [[ "${hits:-0}" -ge 3 ]] && ! grep -qE 'linux-sandbox|processwrapper-sandbox|[0-9]+ local' <<<"$summary" &&
   [[ $gets -ge 3 ]]; then
    ok "run 2 (another empty output base): '(cached) PASSED', ${summary#INFO: } ($gets downloads)"
else
    fail "run 2: bazel exit $rc2, summary '${summary}', $gets downloads (want '(cached) PASSED', >= 3 remote cache hits, nothing local)"
    tail -20 "$tmp/run2.log"
fi
echo "remote_cache_check: $failures failure(s)"
[[ $failures -eq 0 ]]
