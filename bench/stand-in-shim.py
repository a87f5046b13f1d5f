#!/usr/bin/env python3
"""A stand-in dstack-shim for the daemon benchmarks: answers its tasks and its own health at once.
  stand-in-shim.py PORT"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TASKS = json.dumps({"tasks": [{"id": "t%d" % i, "status": "running"} for i in range(40)]}).encode()
HEALTH = json.dumps({"dcgm": {"overall_health": 0, "incidents": []}}).encode()


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16              # one write per response: headers and body in one segment
    disable_nagle_algorithm = True

    def do_GET(self):
        body = HEALTH if self.path == "/api/instance/health" else TASKS
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
