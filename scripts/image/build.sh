# shellcheck shell=bash
# Sourced by scripts/cassandra: its `docker` and `image` commands. See docs/containers.md.
#
# `docker` makes a Docker engine answer on this machine: when `docker info` fails it installs
# Debian's docker.io where dockerd is missing (apt-get, as root) and starts dockerd in the
# background, logging to $cache/dockerd.log. With DOCKER_HOST=unix:///some/path the engine
# listens on that socket only: processes without that DOCKER_HOST (scripts/test, testcontainers'
# default lookup) do not see it, so container work can run beside a test run on local nodes.
#
# `image` makes the images the container path needs present in the local engine:
# cassandra:5.0 (and cassandra:5.0.9, the same image) and testcontainers-go's reaper
# (reaper_image below). Each is pulled when a registry answers; else it is built here from
# what these machines reach: a Debian base from debootstrap and Debian's JRE 17, the
# cassandra-all jars `fetch` put in the cache, cqlsh from PyPI, and the reaper from this
# repository's Go source (internal/reaper). A present image is left alone.

# The reaper image and tag testcontainers-go v0.44.0 starts (its internal/config's
# ReaperDefaultImage): bumping testcontainers-go means checking this name again.
reaper_image=testcontainers/ryuk:0.14.0
cassandra_tags=("cassandra:${version%.*}" "cassandra:$version")
image_cache="$cache/image"
# Pinned, so that the image is the same wherever it is built.
cqlsh_pins=(cqlsh==6.2.2 cassandra-driver==3.30.1 pure-sasl==0.5.1)

say() { echo "cassandra: $*" >&2; }

engine_answers() { command -v docker >/dev/null 2>&1 && timeout 20 docker info >/dev/null 2>&1; }

docker_engine() {
  if engine_answers; then say "a Docker engine answers (docker info): nothing to do"; return 0; fi
  [ "$(id -u)" = 0 ] || die "no Docker engine answers, and starting one needs root: start Docker yourself"
  if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
    say "installing Debian's docker.io (apt-get)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
  fi
  mkdir -p "$cache"
  local log="$cache/dockerd.log" listen=()
  case "${DOCKER_HOST:-}" in
    "") ;;
    unix://*) mkdir -p "$(dirname "${DOCKER_HOST#unix://}")"; listen=(-H "$DOCKER_HOST") ;;
    *) die "DOCKER_HOST=$DOCKER_HOST does not answer, and an engine started here listens on a unix socket only (unix:///path)" ;;
  esac
  # setsid and no inherited descriptors: the engine outlives this script and its caller.
  ( close_fds; exec setsid nohup dockerd "${listen[@]}" ) >> "$log" 2>&1 < /dev/null &
  local pid=$! deadline=$((SECONDS + 60))
  until engine_answers; do
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$log" >&2; die "dockerd exited at start (log: $log)"; }
    [ $SECONDS -lt $deadline ] || die "dockerd (pid $pid) did not answer within 60 s (log: $log)"
    sleep 1
  done
  say "started dockerd (pid $pid, log $log${DOCKER_HOST:+, on $DOCKER_HOST}); docker info answers"
}

image_present() { docker image inspect "$1" >/dev/null 2>&1; }
# recipe is a digest of what goes into the Cassandra image built here besides the jars: an
# image built from an older recipe is built again.
recipe() { cat "$here/image/build.sh" "$here/image/entrypoint.sh" "$here/image/cassandra.yaml" "$here/image/cassandra-rackdc.properties" \
  "$here/image/logback.xml" "$here/image/logback-tools.xml" "$here/image/cqlsh" "$here/image/tool" | sha256sum | cut -c1-16; }
reaper_recipe() { cat "$root"/internal/reaper/*.go "$root"/internal/reaper/cmd/ryuk/*.go | sha256sum | cut -c1-16; }
# stale IMAGE DIGEST: the image was built here from another recipe.
stale() { built_here "$1" && [ "$(docker image inspect -f '{{index .Config.Labels "org.cqlsize.recipe"}}' "$1")" != "$2" ]; }
built_here() { [ -n "$(docker image inspect -f '{{index .Config.Labels "org.cqlsize.built-from"}}' "$1" 2>/dev/null)" ]; }

# try_pull IMAGE: true when a registry gave us the image.
try_pull() {
  local out
  if out=$(timeout 600 docker pull -q "$1" 2>&1); then say "pulled $1"; return 0; fi
  say "could not pull $1 (${out##*$'\n'}): building it here"
  return 1
}

# apt_mirror prints the Debian mirror this machine's apt uses (deb.debian.org otherwise).
apt_mirror() {
  local m
  m=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v -- '-security' | head -n 1)
  [ -n "$m" ] || m=$(grep -hsE '^deb +(\[[^]]*\] +)?https?://' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    grep -v -- '-security' | sed -E 's/^deb +(\[[^]]*\] +)?//' | awk '/debian/ {print $1; exit}')
  echo "${m:-http://deb.debian.org/debian}"
}

# base_rootfs makes (once) the Debian bookworm root file system with JRE 17 and Python 3, as a
# tar in the cache: debootstrap's minbase variant, then what a server never reads is removed.
base_rootfs() {
  local tar="$image_cache/base-bookworm-jre17.tar" dir="$image_cache/rootfs"
  [ -f "$tar" ] && { echo "$tar"; return 0; }
  command -v debootstrap >/dev/null 2>&1 || {
    say "installing debootstrap (apt-get)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  }
  local mirror; mirror=$(apt_mirror)
  say "debootstrap bookworm (minbase, openjdk-17-jre-headless, python3) from $mirror"
  rm -rf "$dir"; mkdir -p "$dir"
  if ! debootstrap --variant=minbase --include=openjdk-17-jre-headless,python3 bookworm "$dir" "$mirror" \
      > "$image_cache/debootstrap.log" 2>&1; then
    tail -n 20 "$image_cache/debootstrap.log" >&2
    die "debootstrap failed (log: $image_cache/debootstrap.log)"
  fi
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* "$dir"/usr/share/doc/* \
    "$dir"/usr/share/man/* "$dir"/usr/share/locale/* "$dir"/usr/share/info/* "$dir"/var/log/*.log
  tar -C "$dir" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
  rm -rf "$dir"
  echo "$tar"
}

# cqlsh_dir installs (once) cqlsh and its driver for CPython 3.11 on x86_64 Linux, Debian
# bookworm's Python, from PyPI's wheels whatever Python runs here.
cqlsh_dir() {
  local dir="$image_cache/cqlsh"
  [ -f "$dir/.complete" ] && { echo "$dir"; return 0; }
  say "installing ${cqlsh_pins[*]} from PyPI for the image"
  rm -rf "$dir"
  python3 -m pip install -q --disable-pip-version-check --no-compile --target "$dir" \
    --python-version 3.11 --implementation cp --abi cp311 --only-binary=:all: \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    "${cqlsh_pins[@]}" >&2 || die "pip could not install ${cqlsh_pins[*]}"
  touch "$dir/.complete"
  echo "$dir"
}

build_cassandra() {
  local start=$SECONDS base cq ctx
  fetch
  base=$(base_rootfs)
  if ! image_present cqlsize/debian-jre17:bookworm; then
    docker import "$base" cqlsize/debian-jre17:bookworm >/dev/null
  fi
  cq=$(cqlsh_dir)
  ctx=$(mktemp -d)
  # shellcheck disable=SC2064 # expand now: the trap must remove this very directory
  trap "rm -rf '$ctx'" RETURN
  mkdir -p "$ctx/lib" "$ctx/conf" "$ctx/bin"
  cp "$lib"/*.jar "$ctx/lib/"
  cp -r "$cq" "$ctx/cqlsh"; rm -f "$ctx/cqlsh/.complete"; rm -rf "$ctx/cqlsh/bin"
  cp "$here/image"/{cassandra.yaml,cassandra-rackdc.properties,logback.xml,logback-tools.xml} "$ctx/conf/"
  printf '%s\n' "${jpms_flags[@]}" > "$ctx/conf/jvm17.options"
  cp "$here/image"/{entrypoint.sh,cqlsh,tool} "$ctx/bin/"
  cat > "$ctx/Dockerfile" <<DOCKERFILE
FROM cqlsize/debian-jre17:bookworm
ENV CASSANDRA_HOME=/opt/cassandra CASSANDRA_CONF=/etc/cassandra CASSANDRA_VERSION=$version \
    PATH=/opt/cassandra/bin:/opt/cassandra/tools/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8
COPY lib /opt/cassandra/lib
COPY cqlsh /opt/cqlsh
COPY conf /etc/cassandra
COPY bin/entrypoint.sh /usr/local/bin/docker-entrypoint.sh
COPY bin/cqlsh /opt/cassandra/bin/cqlsh
COPY bin/tool /opt/cassandra/bin/nodetool
COPY bin/tool /opt/cassandra/tools/bin/sstablepartitions
RUN mkdir -p /var/lib/cassandra /var/log/cassandra
LABEL org.cqlsize.recipe=$(recipe)
LABEL org.cqlsize.built-from="Debian bookworm (debootstrap), openjdk-17-jre-headless, cassandra-all $version from Maven Central, ${cqlsh_pins[*]} from PyPI"
VOLUME /var/lib/cassandra
EXPOSE 7000 7001 7199 9042
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["cassandra", "-f"]
DOCKERFILE
  say "building ${cassandra_tags[0]} from the base, the jars in $lib and cqlsh"
  DOCKER_BUILDKIT=0 docker build -q -t "${cassandra_tags[0]}" "$ctx" >/dev/null 2>"$image_cache/build.log" ||
    { tail -n 20 "$image_cache/build.log" >&2; die "docker build of ${cassandra_tags[0]} failed (log: $image_cache/build.log)"; }
  say "built ${cassandra_tags[0]} in $((SECONDS - start)) s"
}

# build_reaper builds the reaper testcontainers-go starts, from internal/reaper: a static Go
# binary alone in an image (no base: it talks to the engine over its socket and to the tests
# over TCP, nothing else).
build_reaper() {
  local start=$SECONDS ctx
  command -v go >/dev/null 2>&1 || die "go is not installed: the reaper image is built from this repository's Go source"
  ctx=$(mktemp -d)
  # shellcheck disable=SC2064 # expand now: the trap must remove this very directory
  trap "rm -rf '$ctx'" RETURN
  mkdir -p "$ctx/bin"
  (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$ctx/bin/ryuk" ./internal/reaper/cmd/ryuk) ||
    die "go build of the reaper failed"
  tar -C "$ctx" -cf - bin | docker import \
    --change 'ENTRYPOINT ["/bin/ryuk"]' --change 'EXPOSE 8080' \
    --change 'LABEL org.cqlsize.built-from=github.com/cqlsize/cqlsize/internal/reaper' \
    --change "LABEL org.cqlsize.recipe=$(reaper_recipe)" \
    - "$reaper_image" >/dev/null
  say "built $reaper_image in $((SECONDS - start)) s"
}

images() {
  engine_answers || die "no Docker engine answers: run 'scripts/cassandra docker' first"
  mkdir -p "$image_cache"
  if stale "${cassandra_tags[0]}" "$(recipe)"; then
    say "${cassandra_tags[0]} was built here from an older recipe (scripts/image): building it again"
    build_cassandra
    docker tag "${cassandra_tags[0]}" "${cassandra_tags[1]}"
    # The older image, now untagged, goes once no container uses it.
    docker image prune -f --filter label=org.cqlsize.recipe >/dev/null || true
  elif image_present "${cassandra_tags[0]}"; then
    say "${cassandra_tags[0]} is present"
  elif ! try_pull "${cassandra_tags[0]}"; then
    build_cassandra
  fi
  if ! image_present "${cassandra_tags[1]}"; then
    # The image built here is 5.0.9 under both names; a pulled 5.0 may be a later patch release.
    if built_here "${cassandra_tags[0]}"; then
      docker tag "${cassandra_tags[0]}" "${cassandra_tags[1]}"
      say "tagged ${cassandra_tags[0]} as ${cassandra_tags[1]}"
    elif ! try_pull "${cassandra_tags[1]}"; then
      die "${cassandra_tags[0]} was not built here, and ${cassandra_tags[1]} could not be pulled"
    fi
  fi
  if stale "$reaper_image" "$(reaper_recipe)"; then
    say "$reaper_image was built here from an older internal/reaper: building it again"
    build_reaper
  elif image_present "$reaper_image"; then
    say "$reaper_image is present"
  elif ! try_pull "$reaper_image"; then
    build_reaper
  fi
}

# container_tool TOOL ARGS...: nodetool or sstablepartitions in the node of the container
# $CQLSIZE_NODE_CONTAINER (cassandratest's container). Paths under its data volume's directory
# on this machine become the container's /var/lib/cassandra paths, and back in the output.
container_tool() {
  local id=$CQLSIZE_NODE_CONTAINER tool=$1 src a args=()
  shift
  src=$(docker inspect -f '{{range .Mounts}}{{if eq .Destination "/var/lib/cassandra"}}{{.Source}}{{end}}{{end}}' "$id") ||
    die "CQLSIZE_NODE_CONTAINER=$id: no such container"
  [ -n "$src" ] || die "CQLSIZE_NODE_CONTAINER=$id: the container has no volume at /var/lib/cassandra"
  for a in "$@"; do
    case "$a" in "$src"|"$src"/*) a="/var/lib/cassandra${a#"$src"}" ;; esac
    args+=("$a")
  done
  # Where the official image has them: nodetool on the PATH, the other tools in tools/bin.
  [ "$tool" = nodetool ] || tool=/opt/cassandra/tools/bin/$tool
  docker exec "$id" "$tool" "${args[@]}" | sed "s#/var/lib/cassandra/#$src/#g"
}
