"""Scrapes Blindfold's /metrics and parses it with the official Prometheus Python client:
the text exposition format with `prometheus_client.parser`, and the OpenMetrics form (asked for
with its Accept header) with `prometheus_client.openmetrics.parser`. Writes one JSON object
to OUT: {"text": [sample…], "openmetrics": [sample…], "content_types": {…}}, a sample being
{"name", "labels", "value", "type"}. Usage: metrics_parse.py URL OUT [BEARER_TOKEN]"""

import json
import sys
import urllib.request

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from prometheus_client.parser import text_string_to_metric_families as parse_text

url, out = sys.argv[1], sys.argv[2]
token = sys.argv[3] if len(sys.argv) > 3 else None


def fetch(accept):
    req = urllib.request.Request(url, headers={"Accept": accept})
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers.get("Content-Type"), r.read().decode()


def samples(families):
    return [{"name": s.name, "labels": s.labels, "value": s.value, "type": f.type}
            for f in families for s in f.samples]


text_type, text = fetch("text/plain")
om_type, om = fetch("application/openmetrics-text; version=1.0.0")
with open(out, "w") as f:
    json.dump({
        "text": samples(parse_text(text)),
        "openmetrics": samples(parse_openmetrics(om)),
        "content_types": {"text": text_type, "openmetrics": om_type},
    }, f)
