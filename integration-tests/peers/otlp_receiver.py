"""An OTLP/HTTP trace receiver built on the official OTLP protobuf definitions
(`opentelemetry-proto`): each POST to /v1/traces is parsed as an ExportTraceServiceRequest —
JSON by the protobuf JSON mapping, unknown fields refused, or binary protobuf — and every span is
written as one JSON line to RECORD (resource attributes, span ids as hex, attributes as plain
values), then answered with an ExportTraceServiceResponse. Usage: otlp_receiver.py PORT RECORD"""

import base64
import http.server
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

PORT, RECORD = int(sys.argv[1]), sys.argv[2]


def hex_ids_to_base64(doc):
    """OTLP/JSON writes trace and span ids as hex, where the protobuf JSON mapping reads bytes
    as base64: convert them (refusing ids that are not hex of the right length)."""
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key, size in (("traceId", 16), ("spanId", 8), ("parentSpanId", 8)):
                    if key in span:
                        raw = bytes.fromhex(span[key])
                        if len(raw) != size:
                            raise ValueError(f"{key} {span[key]!r} is not {size} bytes of hex")
                        span[key] = base64.b64encode(raw).decode()
    return doc


def plain(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def attributes(kvs):
    return {kv.key: plain(kv.value) for kv in kvs}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/v1/traces":
            return self.answer(404, b"")
        request = ExportTraceServiceRequest()
        try:
            if self.headers.get("Content-Type", "").startswith("application/json"):
                json_format.ParseDict(hex_ids_to_base64(json.loads(body)), request, ignore_unknown_fields=False)
            else:
                request.ParseFromString(body)
        except Exception as e:  # a malformed export is the exporter's bug: say so, record it
            with open(RECORD, "a") as rec:
                rec.write(json.dumps({"error": str(e)}) + "\n")
            return self.answer(400, str(e).encode())
        with open(RECORD, "a") as rec:
            for rs in request.resource_spans:
                resource = attributes(rs.resource.attributes)
                for ss in rs.scope_spans:
                    for span in ss.spans:
                        rec.write(json.dumps({
                            "resource": resource,
                            "scope": ss.scope.name,
                            "trace_id": span.trace_id.hex(),
                            "span_id": span.span_id.hex(),
                            "parent_span_id": span.parent_span_id.hex(),
                            "name": span.name,
                            "start": span.start_time_unix_nano,
                            "end": span.end_time_unix_nano,
                            "status": span.status.code,
                            "attributes": attributes(span.attributes),
                            "events": len(span.events),
                        }) + "\n")
        self.answer(200, json_format.MessageToJson(ExportTraceServiceResponse()).encode())

    def answer(self, code, body):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
