#!/usr/bin/env python3
"""Webhook deliveries from one server process to a local receiver (issue 17).

    deliveries.py BASE TOKEN FOLDER RECEIVER_URL RECEIVER_LOG BACKEND

The receiver is nginx answering 204 and logging, per request, the time it arrived and its `webhook-id`. The script
registers an endpoint for `device_event.created`, then:

1. backlog: writes 20,000 device events in batches of 1,000 as fast as the API takes them, and counts how fast the
   one process delivers them (from the first delivery to the last);
2. rate: writes 2,000 events a second for 10 s, in batches of 100 every 50 ms, and measures each event's time from
   its commit (when the API answered its batch) to its arrival at the receiver.

Prints one JSON line for bench/report.py.
"""

import json
import sys
import time
import urllib.parse

from api import Api

BACKLOG = 20_000
RATE = 2_000
RATE_SECONDS = 10
RATE_BATCH = 100


def arrivals(log_path):
    """webhook-id → arrival time (epoch seconds) of its first delivery, from the receiver's log."""
    seen = {}
    with open(log_path, encoding="utf-8") as log:
        for line in log:
            parts = line.split()
            if len(parts) == 2 and parts[1].startswith("evt_"):
                seen.setdefault(int(parts[1][4:]), float(parts[0]))
    return seen


def wait_for(log_path, ids, limit):
    deadline = time.time() + limit
    while time.time() < deadline:
        seen = arrivals(log_path)
        if all(i in seen for i in ids):
            return seen
        time.sleep(0.2)
    return arrivals(log_path)


def events_since(api, cursor):
    """The ids of every device_event.created after `cursor`, and the cursor after them."""
    found = []
    while True:
        page = api.call("GET", "/api/v3/third_party/events?size=1000&types=device_event.created&after="
                        + urllib.parse.quote(cursor, safe=""))
        found.extend(event["id"] for event in page["items"])
        cursor = page["next_cursor"]
        if not page["has_more"]:
            return found, cursor


def main(base, token, folder, receiver_url, receiver_log, backend):
    api = Api(base, token)
    with open(f"{folder}/device_events.json", encoding="utf-8") as body:
        batch = json.load(body)
    api.call("POST", "/api/v3/third_party/webhook_endpoints",
             {"url": receiver_url, "types": ["device_event.created"], "description": "bench receiver"})
    head = api.call("GET", "/api/v3/third_party/events?after=now")["next_cursor"]

    for _ in range(BACKLOG // len(batch)):
        api.call("POST", "/api/v3/third_party/device_events", batch)
    backlog, cursor = events_since(api, head)
    seen = wait_for(receiver_log, backlog, 120)
    times = sorted(seen[i] for i in backlog if i in seen)
    per_second = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else 0.0

    # A new connection: the wait for the backlog can outlast the server's idle time-out (30 s,
    # TRANQUERA_HEADER_READ_TIMEOUT), which closes the kept one.
    api = Api(base, token)

    # At the rate: each batch's write time (when its answer came back, so after its commit) is what its events'
    # latency is measured from.
    small = batch[:RATE_BATCH]
    written = []
    started = time.time()
    for n in range(RATE * RATE_SECONDS // RATE_BATCH):
        due = started + n * RATE_BATCH / RATE
        pause = due - time.time()
        if pause > 0:
            time.sleep(pause)
        api.call("POST", "/api/v3/third_party/device_events", small)
        written.append(time.time())
    rated, _ = events_since(api, cursor)
    ids = sorted(rated)
    seen = wait_for(receiver_log, ids, 120)
    latencies = []
    for index, event_id in enumerate(ids):
        if event_id in seen:
            latencies.append(max(0.0, seen[event_id] - written[min(index // RATE_BATCH, len(written) - 1)]))
    latencies.sort()
    lost = len(ids) - len(latencies) + len(backlog) - len(times)

    def quantile(q):
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else None

    print(json.dumps({
        "key": "webhook_deliveries", "backend": backend, "per_second": per_second, "backlog": len(backlog),
        "rate": RATE, "p50_ms": quantile(0.5), "p99_ms": quantile(0.99), "undelivered": lost,
    }))


if __name__ == "__main__":
    main(*sys.argv[1:])
