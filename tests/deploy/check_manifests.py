#!/usr/bin/env python3
"""check_manifests.py: the Compose file and Kubernetes manifests of deploy/
parse (python3-yaml) and agree with the Dockerfile: the port it exposes, the
NOISETILE_* variables it sets, the health path its health check asks for.
Prints one "ok"/"not ok" line per check; exits 1 if any failed."""
import glob
import os
import re
import sys

import yaml

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
failed = 0


def check(cond, what):
    global failed
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failed += 1


def load_all(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


# What the Dockerfile says.
dockerfile = open(os.path.join(root, "Dockerfile")).read()
expose = re.search(r"^EXPOSE\s+(\d+)", dockerfile, re.M)
port = int(expose.group(1)) if expose else None
env_block = re.search(r"^ENV\s+((?:.*\\\n)*.*)$", dockerfile, re.M)
env_names = set(re.findall(r"(NOISETILE_[A-Z_]+)=", env_block.group(1))) if env_block else set()
flags = open(os.path.join(root, "server", "service", "config.c")).read()
known_env = set(re.findall(r"NOISETILE_[A-Z_]+", flags)) | env_names
health_script = re.search(r'HEALTHCHECK.*?CMD \["([^"]+)"\]', dockerfile, re.S)
health_src = open(os.path.join(root, "scripts", "container-healthcheck.sh")).read()
health_path = re.search(r"GET (/\S+) HTTP", health_src).group(1)
check(port == 8080 and "NOISETILE_PORT" in env_names and health_path == "/healthz",
      f"Dockerfile: EXPOSE {port}, ENV {sorted(env_names)}, health check GET {health_path}")

# Compose.
compose = load_all(os.path.join(root, "deploy", "compose.yaml"))[0]
services = compose["services"]
replicas = [s for n, s in services.items() if n.startswith("noisetile-")]
check(len(replicas) == 2, "compose: two noisetile replicas")
for n, s in services.items():
    if not n.startswith("noisetile-"):
        continue
    env = s.get("environment", {})
    check(set(env) <= known_env and env.get("NOISETILE_PORT") == str(port)
          and env.get("NOISETILE_BIND") == "0.0.0.0",
          f"compose {n}: variables {sorted(env)} are the daemon's, port {env.get('NOISETILE_PORT')}")
    check(s["build"]["dockerfile"] == "Dockerfile" and str(port) in [str(p) for p in s["expose"]],
          f"compose {n}: built from the Dockerfile, exposes {port}")
    check(health_script is not None and s["healthcheck"]["test"][-1] == health_script.group(1),
          f"compose {n}: health check is the image's ({s['healthcheck']['test'][-1]})")
proxy = services["proxy"]
check(any("nginx/noisetile.conf" in v for v in proxy["volumes"]), "compose proxy: runs deploy/nginx/noisetile.conf")
conf = open(os.path.join(root, "deploy", "nginx", "noisetile.conf")).read()
upstreams = re.findall(r"server\s+([\w.-]+):(\d+)", conf)
check(sorted(h for h, _ in upstreams) == sorted(n for n in services if n.startswith("noisetile-"))
      and all(int(p) == port for _, p in upstreams),
      f"nginx upstreams {upstreams} are the compose replicas on port {port}")

# Kubernetes.
docs = {}
for path in sorted(glob.glob(os.path.join(root, "deploy", "k8s", "*.yaml"))):
    for d in load_all(path):
        docs.setdefault(d["kind"], []).append(d)
check(all(k in docs for k in ("Deployment", "Service", "HorizontalPodAutoscaler", "Job")),
      f"k8s: kinds {sorted(docs)}")
dep = docs["Deployment"][0]
c = dep["spec"]["template"]["spec"]["containers"][0]
ports = {p["name"]: p["containerPort"] for p in c["ports"]}
env = {e["name"]: e.get("value") for e in c["env"]}
check(ports.get("http") == port and env.get("NOISETILE_PORT") == str(port) and set(env) <= known_env,
      f"k8s Deployment: containerPort {ports}, variables {sorted(env)}")
for probe in ("readinessProbe", "livenessProbe"):
    g = c[probe]["httpGet"]
    check(g["path"] == health_path and g["port"] in ("http", port), f"k8s Deployment: {probe} GET {g['path']} on {g['port']}")
check("cpu" in c["resources"]["requests"] and "memory" in c["resources"]["requests"],
      "k8s Deployment: cpu and memory requests")
svc = docs["Service"][0]
check(svc["spec"]["selector"] == dep["spec"]["selector"]["matchLabels"]
      and svc["spec"]["ports"][0]["targetPort"] in (port, "http"),
      f"k8s Service: selects the Deployment's pods, targetPort {svc['spec']['ports'][0]['targetPort']}")
hpa = docs["HorizontalPodAutoscaler"][0]
check(hpa["spec"]["scaleTargetRef"]["name"] == dep["metadata"]["name"]
      and hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu",
      "k8s HorizontalPodAutoscaler: the Deployment, on CPU")
job = [j for j in docs["Job"] if j["spec"].get("completionMode") == "Indexed"]
check(len(job) == 1, "k8s: an Indexed Job for exports")
if job:
    spec = job[0]["spec"]
    jc = spec["template"]["spec"]["containers"][0]
    args = " ".join(jc["args"])
    n = spec["completions"]
    check(args.startswith("export ") and f"--shard=$(SHARD)/{n}" in args
          and any(e["name"] == "SHARD" and "job-completion-index" in str(e) for e in jc["env"]),
          f"k8s export Job: {n} completions, each `noisetile export --shard=$(SHARD)/{n}`")
    merge = [j for j in docs["Job"] if j is not job[0]][0]
    margs = " ".join(merge["spec"]["template"]["spec"]["containers"][0]["args"])
    check(margs.count("shard-") == n and "noisetile merge" in margs,
          f"k8s merge Job: joins the {n} shards")

sys.exit(1 if failed else 0)
