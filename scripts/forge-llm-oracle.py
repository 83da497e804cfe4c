#!/usr/bin/env python3
"""A stand-in model for measuring `classlab forge --llm` without a model: an OpenAI-compatible
chat server that answers each prompt with ClassEval's own hand-written tests of the class the
prompt names (one fenced block; streamed when asked).

    scripts/forge-llm-oracle.py 18778 ../shared/data/classeval/ClassEval_data.json &
    # config.toml: [endpoints.oracle] base_url = "http://127.0.0.1:18778/v1", model = "classeval-hand-written"
    classlab --json forge ../shared/data/classeval/ClassEval_data.json 'ClassEval_1?' --out ce1 --llm oracle
"""
import json, re, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
tasks = json.load(open(sys.argv[2]))
by_class = {t['class_name']: t['test'] for t in tasks}
class H(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        user = body['messages'][-1]['content']
        m = re.search(r'class `(\w+)`', user)
        text = "```python\n%s\n```" % by_class.get(m.group(1) if m else '', '')
        out = json.dumps({"choices":[{"message":{"role":"assistant","content":text},"finish_reason":"stop","index":0}]}).encode()
        if body.get('stream'):
            self.send_response(200); self.send_header('Content-Type', 'text/event-stream'); self.end_headers()
            for chunk in [{"choices":[{"delta":{"role":"assistant","content":text},"index":0}]}, {"choices":[{"delta":{},"finish_reason":"stop","index":0}]}]:
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.write(b"data: [DONE]\n\n")
            return
        self.send_response(200); self.send_header('Content-Type','application/json'); self.send_header('Content-Length', str(len(out))); self.end_headers(); self.wfile.write(out)
    def log_message(self, *a): pass
HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
