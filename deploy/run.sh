#!/usr/bin/env bash
# Kahuna's reference deployment on one machine (docs/deploy.md): nginx on 127.0.0.1 in front of
# two `kahuna serve` instances sharing one PostgreSQL database and one Redis, and two
# `kahuna worker` processes that play the AI moves. Prints the URL to open; Ctrl-C (or SIGTERM)
# stops everything it started. An instance or worker that dies is started again after a second,
# as a service manager would. SIGUSR1 replaces the instances, then the workers, one at a time by
# the code now in this checkout, while games go on (`deploy/run.sh upgrade` sends it and waits).
#
#   deploy/run.sh [--port 8080] [--db URL] [--broker URL] [--run-dir DIR] [--claim-after SECONDS]
#                 [--instances 2] [--workers 2] [--smtp URL [--mail-from ADDRESS] [--public-url URL]]
#   deploy/run.sh upgrade --run-dir DIR    (the run directory of a deployment running)
#
# --db      PostgreSQL URL (default postgresql://postgres@127.0.0.1:5432/kahuna on the machine's
#           PostgreSQL; that database is created if it does not exist)
# --broker  Redis URL (default redis://127.0.0.1:6379/0, the machine's Redis)
# --run-dir where the generated nginx.conf, the pid files and every log go (default: a new
#           directory under $TMPDIR or /tmp)
# --smtp    the mail server the workers send through (kahuna worker --smtp; the instances queue the
#           mail: kahuna serve --smtp; default: no e-mail);
#           --public-url is what mailed links start with (default http://127.0.0.1:PORT/, nginx)
# Environment: PYTHON (default .venv/bin/python of this checkout, else python3), NGINX (default
# /usr/sbin/nginx).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=8080
DB=""
BROKER="redis://127.0.0.1:6379/0"
RUN_DIR=""
CLAIM_AFTER=30
SMTP=""
MAIL_FROM=""
PUBLIC_URL=""

INSTANCES=2
WORKERS=2

usage() { sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# ---------------------------------------------------------------- deploy/run.sh upgrade

# Ask the deployment running from RUN_DIR to replace its processes (SIGUSR1 to the script, whose
# pid is in RUN_DIR/run.pid) and wait for its verdict in RUN_DIR/upgrade.status.
if [ "${1:-}" = upgrade ]; then
    shift
    RUN_DIR=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --run-dir) RUN_DIR=$2; shift 2 ;;
            -h | --help) usage; exit 0 ;;
            *) echo "deploy/run.sh upgrade: unknown option $1" >&2; exit 2 ;;
        esac
    done
    if [ -z "$RUN_DIR" ]; then echo "deploy/run.sh upgrade: give --run-dir DIR" >&2; exit 2; fi
    script=$(cat "$RUN_DIR/run.pid" 2>/dev/null || true)
    if [ -z "$script" ] || ! kill -0 "$script" 2>/dev/null; then
        echo "deploy/run.sh upgrade: no deployment runs from $RUN_DIR" >&2
        exit 1
    fi
    rm -f "$RUN_DIR/upgrade.status"
    kill -USR1 "$script"
    while [ ! -s "$RUN_DIR/upgrade.status" ]; do
        if ! kill -0 "$script" 2>/dev/null; then echo "deploy/run.sh upgrade: the deployment stopped" >&2; exit 1; fi
        sleep 0.2
    done
    cat "$RUN_DIR/upgrade.status"
    [ "$(head -n 1 "$RUN_DIR/upgrade.status")" = done ]
    exit
fi

while [ $# -gt 0 ]; do
    case "$1" in
        --port) PORT=$2; shift 2 ;;
        --db) DB=$2; shift 2 ;;
        --broker) BROKER=$2; shift 2 ;;
        --run-dir) RUN_DIR=$2; shift 2 ;;
        --claim-after) CLAIM_AFTER=$2; shift 2 ;;
        --instances) INSTANCES=$2; shift 2 ;;
        --workers) WORKERS=$2; shift 2 ;;
        --smtp) SMTP=$2; shift 2 ;;
        --mail-from) MAIL_FROM=$2; shift 2 ;;
        --public-url) PUBLIC_URL=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "deploy/run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done

case "$INSTANCES$WORKERS" in
    *[!0-9]*) echo "deploy/run.sh: --instances and --workers take numbers" >&2; exit 2 ;;
esac
if [ "$INSTANCES" -lt 1 ]; then echo "deploy/run.sh: --instances must be at least 1" >&2; exit 2; fi
if [ -z "${PYTHON:-}" ]; then
    if [ -x "$ROOT/.venv/bin/python" ]; then PYTHON=$ROOT/.venv/bin/python; else PYTHON=python3; fi
fi
NGINX=${NGINX:-/usr/sbin/nginx}
if [ -z "$RUN_DIR" ]; then
    RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kahuna-deploy.XXXXXX")
fi
mkdir -p "$RUN_DIR/tmp"
RUN_DIR=$(cd "$RUN_DIR" && pwd)
cd "$ROOT"

say() { echo "deploy/run.sh: $*" >&2; }

# Every socket is a file descriptor, two in nginx per player: take the hard limit of open files
# (any user may raise the soft one to it), for nginx and the instances alike, and let nginx have
# connections up to it (less a margin for its logs and listening socket), at most 65,536.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
NOFILE=$(ulimit -n)
if [ "$NOFILE" = unlimited ] || [ "$NOFILE" -gt 65600 ]; then CONNECTIONS=65536; else CONNECTIONS=$((NOFILE - 64)); fi

# ---------------------------------------------------------------- the database and Redis

if [ -z "$DB" ]; then
    DB=postgresql://postgres@127.0.0.1:5432/kahuna
    "$PYTHON" - "$DB" <<'EOF' || { say "PostgreSQL does not answer on 127.0.0.1:5432 (give --db URL)"; exit 1; }
import sys
import psycopg
from psycopg import sql

url = sys.argv[1]
admin = url.rsplit("/", 1)[0] + "/postgres"
with psycopg.connect(admin, autocommit=True, connect_timeout=3) as conn:
    if conn.execute("SELECT 1 FROM pg_database WHERE datname = 'kahuna'").fetchone() is None:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier("kahuna")))
        print("deploy/run.sh: created the database kahuna", file=sys.stderr)
EOF
fi
"$PYTHON" - "$BROKER" <<'EOF' || { say "Redis does not answer at $BROKER (give --broker URL)"; exit 1; }
import sys
import redis

redis.Redis.from_url(sys.argv[1], socket_connect_timeout=3).ping()
EOF

# ---------------------------------------------------------------- children

declare -A COMMAND PID PORT_OF
NAMES=()
STOPPING=0
UPGRADE=0
echo $$ >"$RUN_DIR/run.pid"  # for deploy/run.sh upgrade

start() {  # start NAME: run ${COMMAND[NAME]} in the background, output to RUN_DIR/NAME.log
    local name=$1
    # shellcheck disable=SC2086  # the command is a list of words written by this script
    eval "${COMMAND[$name]}" >>"$RUN_DIR/$name.log" 2>&1 &
    PID[$name]=$!
    echo "${PID[$name]}" >"$RUN_DIR/$name.pid"
}

stop_all() {
    trap - INT TERM EXIT
    STOPPING=1
    local i
    for ((i = ${#NAMES[@]} - 1; i >= 0; i--)); do  # the proxy first, the instances last
        kill -TERM "${PID[${NAMES[$i]}]}" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    say "stopped"
    exit 0
}
trap stop_all INT TERM EXIT
trap 'UPGRADE=1' USR1  # acted on by the supervision loop below

# The ports handed out so far, nginx's first: a port is free only until its process binds it, and
# the kernel may hand the same free port out twice (once a metrics server took nginx's port, and
# the deployment's requests were answered by Prometheus's exporter).
TAKEN_PORTS=" $PORT "
free_port() {  # free_port VAR: sets VAR to a free loopback port not handed out before
    local candidate
    while :; do
        candidate=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        case "$TAKEN_PORTS" in *" $candidate "*) continue ;; esac
        TAKEN_PORTS+="$candidate "
        printf -v "$1" '%s' "$candidate"
        return 0
    done
}

wait_http() {  # wait_http URL NAME: until URL answers (any HTTP status), at most 60 s
    wait_url "$1" "$2" any
}

wait_ready() {  # wait_ready URL NAME: until URL (an instance's /readyz) answers 200, at most 60 s
    wait_url "$1" "$2" 200
}

wait_url() {  # returns 1 (after saying so) if the URL did not answer as asked within 60 s
    "$PYTHON" - "$1" "$3" <<'EOF' || { say "$2 did not start or is not ready (log: $RUN_DIR/$2.log)"; return 1; }
import sys, time, urllib.error, urllib.request

deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        urllib.request.urlopen(sys.argv[1], timeout=3)
        sys.exit(0)
    except urllib.error.HTTPError:
        if sys.argv[2] == "any":
            sys.exit(0)
        time.sleep(0.1)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
EOF
}

q() { printf '%q' "$1"; }

# The instances see every client as 127.0.0.1 (nginx): the per-address connection cap is nginx's
# (limit_conn in nginx.conf), and the instances' own is raised to their total.
LIMITS="--limit max_connections=10000 --limit max_connections_per_ip=10000"
MAIL=""
WORKER_MAIL=""
if [ -n "$SMTP" ]; then
    PUBLIC=${PUBLIC_URL:-http://127.0.0.1:$PORT/}
    MAIL="--smtp $(q "$SMTP") --public-url $(q "$PUBLIC")"
    if [ -n "$MAIL_FROM" ]; then MAIL+=" --mail-from $(q "$MAIL_FROM")"; fi
    # the instances queue the mail and the workers send it: they need the same From
    host=${PUBLIC#*://}
    host=${host%%[:/]*}
    WORKER_MAIL="--smtp $(q "$SMTP") --mail-from $(q "${MAIL_FROM:-Kahuna <noreply@$host>}")"
    if [ "$WORKERS" -eq 0 ]; then echo "deploy/run.sh: --smtp with --workers 0: no process sends the mail" >&2; fi
fi
INSTANCE_PORTS=()
METRICS_TARGETS=()  # each process's Prometheus metrics, on loopback only (prometheus.yml in the run directory)
for ((i = 1; i <= INSTANCES; i++)); do
    free_port port
    free_port metrics
    INSTANCE_PORTS+=("$port")
    METRICS_TARGETS+=("instance$i 127.0.0.1:$metrics")
    COMMAND[instance$i]="exec $(q "$PYTHON") -m kahuna serve --host 127.0.0.1 --port $port --db $(q "$DB") --broker $(q "$BROKER") --metrics-listen 127.0.0.1:$metrics $LIMITS $MAIL"
    PORT_OF[instance$i]=$port
    NAMES+=("instance$i")
    start "instance$i"
    # one at a time: the first migrates the database; nginx gets the instances once they are ready
    wait_ready "http://127.0.0.1:$port/readyz" "instance$i" || exit 1
done
for ((i = 1; i <= WORKERS; i++)); do
    free_port metrics
    METRICS_TARGETS+=("worker$i 127.0.0.1:$metrics")
    COMMAND[worker$i]="exec $(q "$PYTHON") -m kahuna worker --db $(q "$DB") --broker $(q "$BROKER") --consumer worker$i --claim-after $CLAIM_AFTER --metrics-listen 127.0.0.1:$metrics $WORKER_MAIL"
    PORT_OF[worker$i]=$metrics
    NAMES+=("worker$i")
    start "worker$i"
done

TARGETS=""
for target in "${METRICS_TARGETS[@]}"; do
    TARGETS+="      - targets: [\"${target#* }\"]"$'\n'"        labels: {process: ${target%% *}}"$'\n'
done
PROM=$(<"$ROOT/deploy/prometheus.yml.in")
printf '%s\n' "${PROM//@TARGETS@/${TARGETS%$'\n'}}" >"$RUN_DIR/prometheus.yml"

write_nginx_conf() {  # write_nginx_conf [PORT]: RUN_DIR/nginx.conf, the instance on PORT marked down
    local servers="" port
    for port in "${INSTANCE_PORTS[@]}"; do
        if [ "$port" = "${1:-}" ]; then
            servers+="        server 127.0.0.1:$port down;"$'\n'
        else
            servers+="        server 127.0.0.1:$port max_fails=1 fail_timeout=5s;"$'\n'
        fi
    done
    local conf
    conf=$(<"$ROOT/deploy/nginx.conf.in")
    conf=${conf//@CONNECTIONS@/$CONNECTIONS}
    conf=${conf//@SERVERS@/${servers%$'\n'}}
    conf=${conf//@RUN_DIR@/$RUN_DIR}
    conf=${conf//@PORT@/$PORT}
    printf '%s\n' "$conf" >"$RUN_DIR/nginx.conf"
}

write_nginx_conf
COMMAND[nginx]="exec $(q "$NGINX") -p $(q "$RUN_DIR") -e $(q "$RUN_DIR/nginx-error.log") -c $(q "$RUN_DIR/nginx.conf") -g 'daemon off;'"
NAMES+=("nginx")
start nginx
wait_http "http://127.0.0.1:$PORT/api/levels" nginx || exit 1

echo "Kahuna deployment: open http://127.0.0.1:$PORT/  (instances on ports ${INSTANCE_PORTS[*]}, run directory $RUN_DIR)"

# ---------------------------------------------------------------- upgrading (SIGUSR1)

children_of() { cat "/proc/$1/task/$1/children" 2>/dev/null || true; }

reload_nginx() {  # reload_nginx [PORT]: nginx sends no new request to the instance on PORT (none: to all)
    local before child
    write_nginx_conf "${1:-}"
    "$NGINX" -t -q -p "$RUN_DIR" -e "$RUN_DIR/nginx-error.log" -c "$RUN_DIR/nginx.conf" || return 1
    before=" $(children_of "${PID[nginx]}") "
    kill -HUP "${PID[nginx]}"
    # The configuration is in use once the master has started a worker with it (the old workers
    # stop accepting and finish the connections they hold, WebSockets included).
    for _ in $(seq 100); do
        for child in $(children_of "${PID[nginx]}"); do
            case "$before" in *" $child "*) ;; *) return 0 ;; esac
        done
        sleep 0.1
    done
    say "nginx did not reload (log: $RUN_DIR/nginx-error.log)"
    return 1
}

stop_one() {  # stop_one NAME: SIGTERM, and wait for it to exit (SIGKILL after 60 s)
    local name=$1 pid=${PID[$1]}
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 600); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        say "$name (pid $pid) did not stop within 60 s: killed"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

replace_instance() {  # replace_instance NAME: out of nginx, drained and stopped, started anew, back in
    local name=$1 port=${PORT_OF[$1]} old=${PID[$1]}
    if [ "$INSTANCES" -gt 1 ]; then reload_nginx "$port" || return 1; fi
    stop_one "$name"  # on SIGTERM it closes its game sockets going away (1001): they reconnect elsewhere
    start "$name"
    wait_ready "http://127.0.0.1:$port/readyz" "$name" || return 1
    if [ "$INSTANCES" -gt 1 ]; then reload_nginx || return 1; fi
    echo "$name: pid $old replaced by ${PID[$name]}, ready on port $port" >>"$RUN_DIR/upgrade.log"
}

replace_worker() {  # replace_worker NAME: stopped once its job in hand is played, started anew
    local name=$1 old=${PID[$1]} started
    started=$(grep -c '"event":"worker_started"' "$RUN_DIR/$name.log" || true)
    stop_one "$name"
    start "$name"
    for _ in $(seq 600); do
        if [ "$(grep -c '"event":"worker_started"' "$RUN_DIR/$name.log" || true)" -gt "$started" ]; then
            echo "$name: pid $old replaced by ${PID[$name]}" >>"$RUN_DIR/upgrade.log"
            return 0
        fi
        kill -0 "${PID[$name]}" 2>/dev/null || break
        sleep 0.1
    done
    say "$name did not start (log: $RUN_DIR/$name.log)"
    return 1
}

upgrade() {  # every instance, then every worker, one at a time, by the code now in $ROOT
    local name
    : >"$RUN_DIR/upgrade.log"
    say "upgrade: replacing the instances and workers one at a time"
    if [ "$INSTANCES" -eq 1 ]; then say "upgrade: with one instance its players wait until the new one is ready"; fi
    for name in "${NAMES[@]}"; do
        case "$name" in
            instance*) replace_instance "$name" || { echo "failed: $name" | cat - "$RUN_DIR/upgrade.log" >"$RUN_DIR/upgrade.status"; return; } ;;
            worker*) replace_worker "$name" || { echo "failed: $name" | cat - "$RUN_DIR/upgrade.log" >"$RUN_DIR/upgrade.status"; return; } ;;
        esac
    done
    say "upgrade: done"
    echo done | cat - "$RUN_DIR/upgrade.log" >"$RUN_DIR/upgrade.status"
}

# ---------------------------------------------------------------- supervision

while [ "$STOPPING" = 0 ]; do
    sleep 1 &
    wait $! || true
    if [ "$UPGRADE" = 1 ]; then
        UPGRADE=0
        upgrade
    fi
    for name in "${NAMES[@]}"; do
        if ! kill -0 "${PID[$name]}" 2>/dev/null; then
            say "$name (pid ${PID[$name]}) is gone: starting it again"
            wait "${PID[$name]}" 2>/dev/null || true
            start "$name"
        fi
    done
done
