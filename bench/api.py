#!/usr/bin/env python3
"""What bench/run asks of the API besides load: a token, the request bodies of the write scenarios (built from ids of
the large society), and the 1,000 changes made between a full and an incremental sync. Standard library only.

    api.py token BASE EMAIL PASSWORD          prints an access token
    api.py bodies BASE TOKEN DIR              writes DIR/work_order.json and DIR/device_events.json
    api.py changes BASE TOKEN COUNT           creates COUNT plots over one keep-alive connection
    api.py feed BASE TOKEN DIR MIN_EVENTS     posts batches of DIR/device_events.json until the change feed holds
                                              MIN_EVENTS events, then writes DIR/feed_cursors.txt: the `after` of
                                              every full page of 1,000 (the first line empty: the feed's beginning)
"""

import http.client
import json
import sys
import urllib.parse

HEADERS = {"X-SVC-SYSTEM-ID": "8", "Content-Type": "application/json"}


class Api:
    def __init__(self, base, token=None):
        url = urllib.parse.urlsplit(base)
        self.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        self.headers = dict(HEADERS)
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def call(self, method, path, body=None):
        self.connection.request(method, path, None if body is None else json.dumps(body), self.headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status >= 300:
            raise SystemExit(f"{method} {path}: {response.status} {data[:300]!r}")
        return json.loads(data) if data else None

    def items(self, path):
        return self.call("GET", path)["items"]


def token(base, email, password):
    print(Api(base).call("POST", "/api/v2/login", {"email": email, "password": password})["access_token"])


def bodies(base, token, folder):
    api = Api(base, token)
    login_society = api.items("/api/v3/third_party/work_orders?size=1")[0]["header"]["extra_fields"]["company"]
    # Campaigns deep in the list are the large society's own (page 300, or the last of a small trial's society).
    last = api.call("GET", "/api/v3/third_party/campaigns?size=100")["total_pages"]
    campaigns = [c["id"] for c in api.items(f"/api/v3/third_party/campaigns?page={min(300, last)}&size=100")]
    formulateds = [f["id"] for f in api.items("/api/v3/third_party/formulateds?size=100")]
    voucher_types = [v["id"] for v in api.items("/api/v3/third_party/voucher_types?size=100")]
    labour_types = [t["id"] for t in api.items("/api/v3/third_party/application_order_labour_types?size=100")]
    contractors = [c["id"] for c in api.items("/api/v3/third_party/contractors?size=100")]
    machines = [m["id"] for m in api.items("/api/v3/third_party/machines?size=100")]
    applicators = [a["id"] for a in api.items("/api/v3/third_party/applicators?size=100")]
    state = {"pending": True, "executed": False, "confirmed": False}
    when = "2026-03-02T08:00:00-03:00"
    order = {
        "header": {
            "external_id": "@EXTERNAL_ID@", "system_id": "third_party", "name": "Pulverización de barbecho (bench)",
            "date": when, "voucher_date": "2026-03-01T00:00:00-03:00", "state": state,
            "extra_fields": {"company": login_society, "voucher_type": {"local_id": voucher_types[0]}},
        },
        "supplies": [
            {"cultivation": {"local_id": campaigns[n]}, "formulated": {"local_id": formulateds[n % len(formulateds)]},
             "area_applied": 40.0 + n, "total_applied": 80.0 + n, "date": when, "state": state}
            for n in range(5)
        ],
        "labours": [
            {"cultivation": {"local_id": campaigns[n]}, "labour_type": {"local_id": labour_types[0]},
             "area_applied": 40.0 + n, "contractors": [{"local_id": contractors[n % len(contractors)]}],
             "machines": [{"local_id": machines[n % len(machines)]}],
             "applicators": [{"local_id": applicators[n % len(applicators)]}], "date": when, "state": state}
            for n in range(5)
        ],
    }
    with open(f"{folder}/work_order.json", "w", encoding="utf-8") as out:
        json.dump(order, out, ensure_ascii=False)
    devices = [d["id"] for d in api.items("/api/v3/third_party/devices?size=500")]
    types = [t["id"] for t in api.items("/api/v3/third_party/device_event_types?size=100")]
    events = [
        {"device_id": devices[n % len(devices)], "device_event_type_id": types[n % len(types)],
         "recorded_at": f"2026-03-01T{n // 60 % 24:02d}:{n % 60:02d}:00-03:00", "value": round(n / 4.0, 2)}
        for n in range(1000)
    ]
    with open(f"{folder}/device_events.json", "w", encoding="utf-8") as out:
        json.dump(events, out)


def changes(base, token, count):
    api = Api(base, token)
    establishments = [e["id"] for e in api.items("/api/v3/third_party/establishments?page=100&size=100")]
    for n in range(int(count)):
        api.call("POST", "/api/v3/third_party/plots", {
            "name": f"Lote bench {n + 1}", "establishment_id": establishments[n % len(establishments)],
            "area": 10.0 + n % 50, "external_code": f"BENCH-CHANGE-{n + 1}",
        })


FEED = "/api/v3/third_party/events"
FEED_PAGE = 1000


def feed_starts(api):
    """The `after` of each full page of the feed from its beginning, and the number of events it holds."""
    starts, after, events = [], "", 0
    while True:
        page = api.call("GET", f"{FEED}?size={FEED_PAGE}" + (f"&after={urllib.parse.quote(after, safe='')}" if after else ""))
        events += len(page["items"])
        if len(page["items"]) == FEED_PAGE:
            starts.append(after)
        if not page["has_more"]:
            return starts, events
        after = page["next_cursor"]


def feed(base, token, folder, minimum):
    api = Api(base, token)
    starts, events = feed_starts(api)
    if events < int(minimum):
        with open(f"{folder}/device_events.json", encoding="utf-8") as body:
            batch = json.load(body)
        for _ in range((int(minimum) - events + len(batch) - 1) // len(batch)):
            api.call("POST", "/api/v3/third_party/device_events", batch)
        starts, events = feed_starts(api)
    with open(f"{folder}/feed_cursors.txt", "w", encoding="utf-8") as out:
        out.write("".join(start + "\n" for start in starts))
    print(f"the feed holds {events:,} events: {len(starts):,} full pages", file=sys.stderr)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"token": token, "bodies": bodies, "changes": changes, "feed": feed}[command](*args)
