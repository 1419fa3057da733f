#!/bin/bash
# container-healthcheck.sh: the image's HEALTHCHECK. Exits 0 only when
# GET /healthz on the daemon answers with status 200; bash's /dev/tcp does
# the request, so the runtime image needs no curl.
# Environment: NOISETILE_PORT (default 8080), NOISETILE_BIND (a wildcard
# address means ask 127.0.0.1).
host=${NOISETILE_BIND:-127.0.0.1}
case $host in 0.0.0.0|::|'[::]'|'') host=127.0.0.1 ;; esac
port=${NOISETILE_PORT:-8080}
exec 3<>"/dev/tcp/$host/$port" || exit 1
printf 'GET /healthz HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n\r\n' "$host" "$port" >&3
IFS= read -r -t 4 status <&3 || exit 1
case $status in
  "HTTP/1."[01]" 200 "*) exit 0 ;;
esac
echo "healthz: ${status%$'\r'}" >&2
exit 1
