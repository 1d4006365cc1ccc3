#!/usr/bin/env bash
# Offline checks of the deployment files (no Docker engine, no cluster needed):
#   1. docker-compose.yml resolves (`docker compose config -q`, or the v1 `docker-compose`);
#   2. every YAML file under deploy/k8s parses;
#   3. both overlays render with `kubectl kustomize` (when kubectl is installed) and the rendered
#      documents parse;
#   4. the Prometheus scrape configuration passes `promtool check config` (when promtool is installed)
#      and the Grafana dashboard is valid JSON.
# A missing tool is reported and its check skipped; any failing check makes the script exit 1.
# Run from anywhere: bash deploy/validate.sh
set -uo pipefail

cd "$(dirname "$0")/.."
status=0
fail() { echo "FAIL: $*"; status=1; }

echo "== compose"
if docker compose version >/dev/null 2>&1; then
  docker compose -f docker-compose.yml config -q && echo "ok: docker compose config" || fail "docker compose config"
elif command -v docker-compose >/dev/null 2>&1; then
  docker-compose -f docker-compose.yml config -q && echo "ok: docker-compose config" || fail "docker-compose config"
else
  echo "skip: neither 'docker compose' nor 'docker-compose' is installed"
fi

echo "== k8s YAML"
if python3 -c 'import yaml' 2>/dev/null; then
  mapfile -t files < <(find deploy/k8s -name '*.yaml' | sort)
  python3 -c 'import yaml,sys; [list(yaml.safe_load_all(open(f))) for f in sys.argv[1:]]; print("ok:", len(sys.argv)-1, "files parse")' \
    "${files[@]}" || fail "YAML parse"
else
  echo "skip: python3 with PyYAML is not installed"
fi

echo "== kustomize"
if command -v kubectl >/dev/null 2>&1; then
  for overlay in deploy/k8s/overlays/*/; do
    name=$(basename "$overlay")
    if out=$(kubectl kustomize "$overlay" 2>&1); then
      count=$(grep -c '^kind:' <<<"$out")
      if python3 -c 'import yaml,sys; list(yaml.safe_load_all(sys.stdin))' <<<"$out" 2>/dev/null; then
        echo "ok: overlays/$name renders ($count objects)"
      else
        fail "overlays/$name rendered output does not parse"
      fi
    else
      echo "$out"
      fail "kubectl kustomize overlays/$name"
    fi
  done
else
  echo "skip: kubectl is not installed"
fi

echo "== prometheus and grafana"
if command -v promtool >/dev/null 2>&1; then
  promtool check config deploy/prometheus/prometheus.yml >/dev/null && echo "ok: promtool check config" \
    || fail "promtool check config deploy/prometheus/prometheus.yml"
else
  echo "skip: promtool is not installed (Debian: apt-get install prometheus)"
fi
for dashboard in deploy/grafana/dashboards/*.json; do
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["panels"], "no panels"' "$dashboard" \
    && echo "ok: $dashboard parses" || fail "$dashboard"
done

exit $status
