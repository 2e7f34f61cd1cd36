#!/bin/bash
# The entrypoint of the cassandra:5.0 image scripts/cassandra builds where no image registry
# answers. It honours the environment variables of the official image (docker-library's
# cassandra), so testcontainers-go's cassandra module and a user's `docker run -e ...` behave
# as they do there:
#   CASSANDRA_CLUSTER_NAME, CASSANDRA_NUM_TOKENS, CASSANDRA_DC, CASSANDRA_RACK,
#   CASSANDRA_ENDPOINT_SNITCH, CASSANDRA_SEEDS, CASSANDRA_LISTEN_ADDRESS, CASSANDRA_RPC_ADDRESS,
#   CASSANDRA_BROADCAST_ADDRESS, CASSANDRA_BROADCAST_RPC_ADDRESS,
#   MAX_HEAP_SIZE and HEAP_NEWSIZE (set both or neither, as cassandra-env.sh wants), JVM_OPTS.
# An argument starting with '-' is passed to Cassandra; any other command runs instead of it.
set -euo pipefail

conf=${CASSANDRA_CONF:-/etc/cassandra}
yaml="$conf/cassandra.yaml"

if [ "${1:0:1}" = '-' ]; then set -- cassandra -f "$@"; fi
if [ "$1" != cassandra ]; then exec "$@"; fi
shift
[ "${1:-}" = -f ] && shift

# set_yaml KEY VALUE: rewrite the top-level KEY of cassandra.yaml, commented out or not.
set_yaml() {
  local key=$1 value=$2
  if grep -qE "^(# )?$key:" "$yaml"; then
    sed -ri "s|^(# )?($key:).*|\2 $value|" "$yaml"
  else
    echo "$key: $value" >> "$yaml"
  fi
}

# The container's own address, for what the official image calls "auto".
own_ip() { hostname -i | awk '{print $1}'; }
listen=${CASSANDRA_LISTEN_ADDRESS:-auto}
[ "$listen" = auto ] && listen=$(own_ip)
broadcast=${CASSANDRA_BROADCAST_ADDRESS:-$listen}
[ "$broadcast" = auto ] && broadcast=$(own_ip)
broadcast_rpc=${CASSANDRA_BROADCAST_RPC_ADDRESS:-$broadcast}
[ "$broadcast_rpc" = auto ] && broadcast_rpc=$(own_ip)
seeds=${CASSANDRA_SEEDS:-$broadcast}

set_yaml listen_address "$listen"
set_yaml broadcast_address "$broadcast"
set_yaml broadcast_rpc_address "$broadcast_rpc"
set_yaml rpc_address "${CASSANDRA_RPC_ADDRESS:-0.0.0.0}"
sed -ri "s|(- seeds:).*|\1 \"$seeds\"|" "$yaml"
[ -z "${CASSANDRA_CLUSTER_NAME:-}" ] || set_yaml cluster_name "'$CASSANDRA_CLUSTER_NAME'"
[ -z "${CASSANDRA_NUM_TOKENS:-}" ] || set_yaml num_tokens "$CASSANDRA_NUM_TOKENS"
[ -z "${CASSANDRA_ENDPOINT_SNITCH:-}" ] || set_yaml endpoint_snitch "$CASSANDRA_ENDPOINT_SNITCH"
for rackdc in dc rack; do
  var="CASSANDRA_${rackdc^^}"
  if [ -n "${!var:-}" ]; then
    sed -ri "s|^($rackdc=).*|\1${!var}|" "$conf/cassandra-rackdc.properties"
  fi
done

# cassandra-env.sh's rule: both or neither. With G1 (the JDK 17 default here) the new
# generation is left to the collector, as cassandra-env.sh does; HEAP_NEWSIZE is checked only.
if [ -n "${MAX_HEAP_SIZE:-}${HEAP_NEWSIZE:-}" ] && { [ -z "${MAX_HEAP_SIZE:-}" ] || [ -z "${HEAP_NEWSIZE:-}" ]; }; then
  echo "please set or unset MAX_HEAP_SIZE and HEAP_NEWSIZE in pairs" >&2
  exit 1
fi
heap=${MAX_HEAP_SIZE:-1G}

mapfile -t jpms < "$conf/jvm17.options"
# shellcheck disable=SC2086 # JVM_OPTS is a list of options, split on spaces as cassandra-env.sh does
exec java -Xms"$heap" -Xmx"$heap" -XX:+UseG1GC -XX:+CrashOnOutOfMemoryError -Xss512k \
  "${jpms[@]}" \
  -javaagent:"$(ls "$CASSANDRA_HOME"/lib/jamm-*.jar | head -n 1)" \
  -Dcassandra-foreground=yes \
  -Dcassandra.config="file://$yaml" \
  -Dcassandra.storagedir=/var/lib/cassandra \
  -Dcassandra.logdir=/var/log/cassandra \
  -Dlogback.configurationFile="$conf/logback.xml" \
  -Dcassandra.jmx.local.port=7199 \
  -Djava.net.preferIPv4Stack=true \
  ${JVM_OPTS:-} "$@" \
  -cp "$conf:$CASSANDRA_HOME/lib/*" org.apache.cassandra.service.CassandraDaemon
