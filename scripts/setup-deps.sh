#!/usr/bin/env bash
# Installs the Debian packages trainready builds and tests with.
# Idempotent: only packages that are missing are installed, so a second run is quick.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build pkg-config
  libcli11-dev        # command-line parsing
  nlohmann-json3-dev  # JSON: catalog, IMDS, reports, snapshots
  libsimdjson-dev     # lint: large ARM templates read without a tree per value (src/iac/template_json.h)
  libcurl4-openssl-dev # IMDS over HTTP with timeouts, no proxy
  zlib1g-dev           # gzip-compressed NCCL logs, read as a stream
  libgtest-dev libgmock-dev googletest # unit tests
  libbenchmark-dev    # bench/
  clang libclang-rt-14-dev # libFuzzer fuzz targets
  clang-format clang-tidy
  python3-jsonschema  # tests: validates lint SARIF against the OASIS 2.1.0 schema
  python3-yaml        # tools/nccl_kb_coverage.py: reads the NCCL knowledge base (data/nccl-kb/*.yaml)
  libtomlplusplus-dev # plan: TOML job files, with the line of every value
  libyaml-cpp-dev     # plan: YAML job files, with the line of every value
  libopenmpi-dev openmpi-bin # bench: the MPI back end and mpirun (CPU clusters; CI without a GPU)
  liburing-dev        # bench storage: io_uring reads with registered buffers
  libmicrohttpd-dev   # watch --listen: the /metrics HTTP endpoint (GNU libmicrohttpd)
  fio                 # bench/storage_fio_ratio.py: the reference run side by side
  prometheus          # tests: promtool check metrics on the --format prom output; a real server scrapes watch --listen
  libxml2-utils       # tests: xmllint validates the JUnit XML against tests/report/junit.xsd
  chromium            # tests + make demo: the HTML report opened headless (CSP, console) and screenshotted
  dpkg-dev file       # make package: CPack's Depends comes from dpkg-shlibdeps (which needs file)
  zsh groff-base      # tests/package: the zsh completion is loaded and run; groff checks the man page
  time                # make torture: /usr/bin/time -f %M, each case's peak RSS
  munge slurmctld slurmd slurm-client # tests/slurm: a real Slurm cluster (srun fleet, --slurm-health as HealthCheckProgram)
  libxxhash-dev       # stage: XXH3-64 of every chunk, computed while it is written
  libssl-dev          # tests, bench: OpenSSL's MD5, the reference stage's own MD5 is checked against
  rsync rclone        # bench/stage: the reference copies side by side (cp -a is coreutils)
  libxml2-dev         # stage: the Blob source parses List Blobs XML responses with libxml2
  openssl             # tests: a self-signed certificate for Azurite over HTTPS (certificate checks)
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all build dependencies present"
fi

# Azurite (the Azure Storage emulator) for the Blob tests, the Blob benchmark and `make demo`:
# from the npm registry, at the version tools/azurite/package-lock.json pins, into the
# git-ignored tools/azurite/node_modules (never globally). Node.js and npm come from Debian
# when the machine has none (a NodeSource nodejs already carries npm).
if ! command -v npm > /dev/null 2>&1; then
  echo "setup: installing nodejs npm (Azurite)"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi
AZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tools/azurite"
AZ_STAMP="$AZ_DIR/node_modules/.trainready-lock.sha256"
AZ_LOCK_SUM="$(sha256sum "$AZ_DIR/package-lock.json" | cut -d' ' -f1)"
if [[ ! -x "$AZ_DIR/node_modules/.bin/azurite-blob" || "$(cat "$AZ_STAMP" 2>/dev/null)" != "$AZ_LOCK_SUM" ]]; then
  echo "setup: installing Azurite into tools/azurite/node_modules (npm ci)"
  # --ignore-scripts: Azurite needs no install scripts; none of its dependencies' run here.
  (cd "$AZ_DIR" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
  echo "$AZ_LOCK_SUM" > "$AZ_STAMP"
else
  echo "setup: Azurite present (tools/azurite)"
fi
