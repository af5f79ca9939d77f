#!/usr/bin/env python3
"""bench/run's bookkeeping.

    report.py record KEY LABEL BACKEND ITEMS CPU_SECONDS RSS_KB [OWN_CPU_SECONDS] < wrk-output
                                                                                prints one result as a JSON line
    report.py pgbench KEY LABEL CPU_SECONDS < pgbench-output                  the same for a pgbench run
    report.py alone KEY LABEL CHECKED [RESULTS STATEMENTS LOOKUP] < alone-output
                                                                                the same for a run of the "SQLite alone"
                                                                                reference (bench/reference); CHECKED
                                                                                says whether its page matched the API's.
                                                                                With the rest ("PostgreSQL alone"), the
                                                                                run serialised rows, which the pgbench
                                                                                row STATEMENTS of RESULTS read less its
                                                                                row LOOKUP: a page costs both
    report.py table RESULTS MACHINE [DOCUMENT]                                  prints the table (and rewrites the
                                                                                marked section of DOCUMENT)

The table is the one of docs/performance.md: every scenario with its throughput, cost per server core, latency and
memory, its ratios to the ceiling (nginx) and the peer (datasette), and the issue's target marked met or not met."""

import json
import sys

START = "<!-- bench:table:start -->"
END = "<!-- bench:table:end -->"


def load(path):
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def find(results, key, backend=None):
    for result in results:
        if result.get("key") == key and (backend is None or result.get("backend") == backend):
            return result
    return None


def find_all(results, key, backend):
    return [result for result in results if result.get("key") == key and result.get("backend") == backend]


def pooled(rounds):
    """Rounds of one scenario as one: their requests over their CPU seconds, their failures added."""
    cpu = sum(result.get("cpu_s") or 0 for result in rounds)
    if not rounds or cpu <= 0:
        return None
    requests = sum(result["requests"] for result in rounds)
    return {"per_core": requests / cpu, "non_2xx": sum(result.get("non_2xx", 0) for result in rounds)}


def number(value, digits=0):
    if value is None:
        return "–"
    if digits == 0:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


def milliseconds(value):
    return "–" if value is None else number(value, 1) + " ms"


def ratio(value):
    return "–" if value is None else f"{value:.2f}×" if value < 10 else f"{value:.0f}×"


def verdict(ok):
    if ok is None:
        return "not measured"
    return "**met**" if ok else "**not met**"


def per_core(result):
    return result.get("per_core") if result else None


def judge(result, results, ceiling, peer):
    """The issue's target for one scenario row, and whether the row meets it."""
    key, backend = result["key"], result.get("backend")
    core = per_core(result)
    share = core / ceiling if core and ceiling else None
    if key == "v2_plots_p1" and backend == "sqlite":
        over_peer = core / peer if core and peer else None
        ok = None if share is None or over_peer is None else share >= 0.25 and over_peer >= 50
        return "≥ 0.25× ceiling and ≥ 50× peer per core", ok
    if key == "v2_plots_p1":
        return "≥ 0.15× ceiling per core", None if share is None else share >= 0.15
    if key == "v3_work_orders":
        return "≥ 0.10× ceiling per core", None if share is None else share >= 0.10
    if key == "v2_plots_deep":
        first = find(results, "v2_plots_p1", backend)
        if not first or not first.get("rps"):
            return "≥ 0.9× page 1", None
        result["deep_ratio"] = result["rps"] / first["rps"]
        shown = f"is {result['deep_ratio']:.2f}×"
        sql = find(results, "deep_sql", backend)
        if not sql or not sql.get("statements"):
            return f"≥ 0.9× page 1, no OFFSET scan, no count per request (is {result['deep_ratio']:.2f}×; " \
                   "no statement captured)", None
        scans = sql["count"] or sql["offset"]
        if scans:
            shown += "; its SQL has " + " and ".join(
                word for word, present in (("COUNT(*)", sql["count"]), ("OFFSET", sql["offset"])) if present)
        target = f"≥ 0.9× page 1, no OFFSET scan, no count per request ({shown})"
        return target, result["deep_ratio"] >= 0.9 and not scans
    if key == "conditional_get":
        not_modified = result.get("statuses", {}).get("304", 0)
        shown = f"{not_modified:,} of {result['requests']:,} were 304"
        if backend == "postgres":
            shown += conditional_get_reach(results, ceiling)
        if not not_modified:
            return f"304s, ≥ 0.5× ceiling per core ({shown})", False
        return f"304s, ≥ 0.5× ceiling per core ({shown})", None if share is None else share >= 0.5
    if key == "audit_filter":
        plan = find(results, "audit_plan", backend)
        if not plan:
            return "answered from an index", None
        return f"answered from an index ({plan['summary']})", plan["indexed"]
    if key == "work_order_create":
        rounds = find_all(results, key, backend)
        if result is not rounds[-1]:
            return "", None
        reach = create_reach(rounds, results) if backend == "postgres" else ""
        rps = sum(r["rps"] for r in rounds) / len(rounds)
        failures = sum(r.get("non_2xx", 0) for r in rounds)
        shown = f" ({rps:,.0f} a second over {len(rounds)} rounds)" if len(rounds) > 1 else ""
        return f"≥ 2,000 creates/s, no failures{shown}{reach}", rps >= 2000 and failures == 0
    if key == "work_order_create_baseline":
        target, ok = events_cost(result, pooled(find_all(results, "work_order_create", backend)))
        return target + " (against the build before the feed)", ok
    if key == "events_feed":
        core = result.get("items_per_s") and per_core(result) and per_core(result) * 1000
        shown = f" (is {core:,.0f})" if core else ""
        if backend == "sqlite":
            return f"≥ 50,000 events/s per server core{shown}", None if not core else core >= 50_000
        return f"events/s per server core{shown}", None
    for measured, against in SIDE_BY_SIDE.items():
        if key.startswith(measured):
            return side_by_side(result, results, key.replace(measured, against, 1))
        if key.startswith(against):
            return "", None
    if key in UNCACHED:
        return uncached(result, results)
    if key == "device_events":
        target = "≥ 100,000 events/s, no failures" + (readings_reach(results) if backend == "postgres" else "")
        return target, result["items_per_s"] >= 100_000 and result.get("non_2xx", 0) == 0
    return "", None


# Rows measured side by side with another in the same run, alternating rounds: the measured side's key prefix, and
# its counterpart's. A comparison, not a target.
SIDE_BY_SIDE = {"pooler_pgbouncer_": "pooler_direct_", "limits_on_": "limits_off_", "citus_citus_": "citus_postgres_"}
# The backend of a measured side's counterpart, where it is not the measured side's own: Citus is set against plain
# PostgreSQL.
COUNTERPART_BACKEND = {"citus": "postgres"}
SIDE_BY_SIDE_PREFIXES = tuple(SIDE_BY_SIDE) + tuple(SIDE_BY_SIDE.values())


def side_by_side(result, results, against_key):
    """One side against the other, on the last round's row: all rounds pooled on each side, per core of what serves
    the requests (the API server, PostgreSQL or the bench database's processes on each Citus node, and PgBouncer when
    it is on the path) and in requests a second."""
    backend = result.get("backend")
    rounds = find_all(results, result["key"], backend)
    if result is not rounds[-1]:
        return "", None
    against_rounds = find_all(results, against_key, COUNTERPART_BACKEND.get(backend, backend))
    measured, against = pooled(rounds), pooled(against_rounds)
    if not measured or not against or not per_core(against):
        return "", None
    rps = sum(r["rps"] for r in rounds) / sum(r["rps"] for r in against_rounds)
    counted = f"{len(rounds)} round" + "s" * (len(rounds) > 1)
    return (f"against {against_rounds[0]['scenario'].rsplit(', ', 1)[-1]}, {counted}: "
            f"{per_core(measured) / per_core(against):.2f}× per core, {rps:.2f}× req/s"), None


def uncached(result, results):
    """The issue's target for a list page no kept answer serves: at least 0.75× its reference, per core, with no
    failures, on the last round's row. Each side's rounds are pooled (bench/run alternates them); the reference counts
    only when its page matched the API's."""
    backend = result.get("backend")
    rounds = find_all(results, result["key"], backend)
    if result is not rounds[-1]:
        return "", None
    name = "SQLite alone" if backend == "sqlite" else "PostgreSQL alone"
    references = find_all(results, f"{backend}_alone_{UNCACHED[result['key']]}", backend)
    measured, alone = pooled(rounds), pooled(references)
    if not measured or not alone or not per_core(alone) or not per_core(measured):
        return f"≥ 0.75× {name} per core", None
    if not all(reference.get("checked") for reference in references):
        return f"≥ 0.75× {name} per core (its page did not match the API's: no verdict)", False
    share = per_core(measured) / per_core(alone)
    each = ", ".join(f"{per_core(api) / per_core(reference):.2f}×" for api, reference in zip(rounds, references)
                     if per_core(api) and per_core(reference))
    failures = sum(api.get("non_2xx", 0) + api.get("socket_errors", 0) for api in rounds)
    ok = share >= 0.75 and failures == 0
    return (f"≥ 0.75× {name} per core (is {share:.2f}× of {per_core(alone):,.0f}, {len(rounds)} rounds alternating"
            f" with it: {each})"), ok


def creates_against_writes(result, results):
    """Issue 19's bound on PostgreSQL's creates, on the last round of "PostgreSQL alone: one create's writes": the
    API's creates per core (the server's CPU and PostgreSQL's) at least 0.75× the reference's (PostgreSQL's), with no
    failures. bench/run alternates the two; each side's rounds are pooled."""
    references = find_all(results, "pg_create", "postgres")
    if result is not references[-1]:
        return "reference", None
    creates = find_all(results, "work_order_create", "postgres")
    measured, alone = pooled(creates), pooled(references)
    target = "reference; the API's creates ≥ 0.75× it per core"
    if not measured or not alone or not per_core(measured) or not per_core(alone):
        return target, None
    share = per_core(measured) / per_core(alone)
    each = ", ".join(f"{per_core(api) / per_core(writes):.2f}×" for api, writes in zip(creates, references)
                     if per_core(api) and per_core(writes))
    failures = sum(api.get("non_2xx", 0) + api.get("socket_errors", 0) for api in creates)
    alternating = f", {len(creates)} rounds alternating with it: {each}" if len(creates) > 1 else ""
    shown = f"{target} (is {share:.2f}×: {per_core(measured):,.0f} of {per_core(alone):,.0f}{alternating})"
    return shown, share >= 0.75 and failures == 0


def events_cost(without, with_events):
    """The issue's bound on what events add to a create: the CPU a create costs with events at most 1.1× its cost
    without (per server core, PostgreSQL's included), and no failures."""
    if not with_events or not per_core(with_events) or not per_core(without):
        return "events add ≤ 10 % a create", None
    cost = per_core(without) / per_core(with_events)
    failures = without.get("non_2xx", 0) + with_events.get("non_2xx", 0)
    return f"events add ≤ 10 % a create (add {(cost - 1) * 100:+.0f} %)", cost <= 1.1 and failures == 0


def micros(per_second):
    return 1e6 / per_second


def conditional_get_reach(results, ceiling):
    """How fast a 304 could be on PostgreSQL with one query per request: the work of SQLite's 304 (its HTTP work and
    an in-process lookup) plus PostgreSQL's CPU for the cheapest query, both measured in this run. An estimate: the
    in-process lookup it counts is about what the database driver costs on PostgreSQL, which it does not count."""
    sqlite, select = per_core(find(results, "conditional_get", "sqlite")), per_core(find(results, "pg_select_1"))
    if not sqlite or not select or not ceiling:
        return ""
    reach = 1e6 / (micros(sqlite) + micros(select))
    return (f"; with a query a request at most about {reach:,.0f} per core, {reach / ceiling:.2f}×: SQLite's 304, "
            f"{micros(sqlite):.1f} µs, and PostgreSQL's SELECT 1, {micros(select):.1f} µs")


def create_reach(rounds, results):
    """How many creates a second one core can do on PostgreSQL: the API server's own CPU for one create (these rounds)
    plus PostgreSQL's for what the create writes (pgbench, no lookups, no answer), both measured in this run."""
    own = sum(r.get("own_cpu_s") or 0 for r in rounds)
    requests = sum(r.get("requests") or 0 for r in rounds)
    writes = per_core(pooled(find_all(results, "pg_create", "postgres")))
    if not own or not writes or not requests:
        return ""
    server = own / requests * 1e6
    reach = 1e6 / (server + micros(writes))
    shown = (f"; one core allows at most {reach:,.0f}: the API server's own {server:.0f} µs a create and "
             f"PostgreSQL's {micros(writes):.0f} µs for its writes alone (pgbench rows)")
    unkeyed = per_core(find(results, "pg_create_unkeyed"))
    if unkeyed:
        shown += f"; {1e6 / (server + micros(unkeyed)):,.0f} were the writes not checked by foreign keys"
    return shown


def readings_reach(results):
    """What the change feed leaves of a batch's speed on PostgreSQL at most: PostgreSQL's CPU for a batch's writes with
    its events against without them (pgbench rows, their rounds pooled), both measured in this run."""
    without = per_core(pooled(find_all(results, "pg_readings", "postgres")))
    with_events = per_core(pooled(find_all(results, "pg_readings_events", "postgres")))
    if not without or not with_events:
        return ""
    return (f"; PostgreSQL alone stores a batch with its events at {with_events / without:.2f}× the batch without "
            f"them ({with_events:,.1f} and {without:,.1f} batches a core-second, pgbench rows)")


# Rows measured for comparison, with no target of their own: the ceiling, the peer, the plots page read afresh every
# request (the targets' page 1 is answered from the kept body after its first request), and PostgreSQL alone.
REFERENCES = ("nginx", "datasette_count", "datasette_nocount", "pg_select_1", "pg_create", "pg_create_unkeyed",
              "pg_readings", "pg_readings_events") + tuple(
    f"{prefix}_{name}" for prefix in ("sqlite_alone", "postgres_alone", "postgres_statements", "postgres_lookup")
    for name in ("plots", "campaigns", "work_orders"))

# The uncached list rows (issue 19), and the reference each is judged against: "SQLite alone" reading and serialising
# the same pages on one thread, or "PostgreSQL alone": PostgreSQL's CPU for the same pages' statements (pgbench) and
# the same decoding and serialisation of their rows.
UNCACHED = {"v2_plots_cold": "plots", "v3_campaigns_cold": "campaigns", "v3_work_orders_cold": "work_orders"}


def rows(results):
    nginx = find(results, "nginx")
    peer = find(results, "datasette_nocount")
    ceiling = per_core(nginx)
    peer_core = per_core(peer)
    table = []
    for result in results:
        if "rps" not in result:
            continue
        core = per_core(result)
        if result["key"] == "pg_create":
            target, ok = creates_against_writes(result, results)
        elif result["key"] in REFERENCES:
            target, ok = "reference", None
        else:
            target, ok = judge(result, results, ceiling, peer_core)
        table.append([
            result["scenario"],
            result.get("backend", "–"),
            number(result["rps"]),
            number(result.get("items_per_s")),
            number(core),
            milliseconds(result.get("p50_ms")),
            milliseconds(result.get("p99_ms")),
            number(result.get("non_2xx", 0) + result.get("socket_errors", 0)),
            "–" if result.get("rss_mb") is None else number(result["rss_mb"], 1) + " MB",
            ratio(core / ceiling) if core and ceiling else "–",
            ratio(core / peer_core) if core and peer_core else "–",
            target,
            "" if target in ("reference", "") or result["key"].startswith(SIDE_BY_SIDE_PREFIXES) else verdict(ok),
        ])
    for backend in ("sqlite", "postgres"):
        full = find(results, "sync_full", backend)
        incremental = find(results, "sync_incremental", backend)
        walk = find(results, "sync_incremental_walk", backend)
        # Issue 19's bounds: the full sync in 15 s, the incremental one over the feed in 1 s.
        for label, result, limit in (("full sync", full, 15), ("incremental sync after 1,000 changes, over the change feed", incremental, 1),
                                     ("incremental sync after 1,000 changes, walking every list (--no-feed)", walk, 2)):
            if not result:
                continue
            seconds = result["seconds"]
            shown = f"{seconds:.1f} s" + ("" if result.get("finished", True) else " (stopped: time limit)")
            ok = result.get("finished", True) and seconds <= limit
            table.append([label, backend, "–", "–", "–", shown, "–", "–",
                          "–", "–", "–", f"≤ {limit} s", verdict(ok)])
    for backend in ("sqlite", "postgres"):
        deliveries = find(results, "webhook_deliveries", backend)
        if not deliveries:
            continue
        per_second = deliveries["per_second"]
        table.append([f"webhook deliveries, a backlog of {deliveries['backlog']:,}, one process", backend, "–",
                      number(per_second), "–", "–", "–", number(deliveries["undelivered"]), "–", "–", "–",
                      "≥ 2,000 deliveries/s", verdict(per_second >= 2000 and deliveries["undelivered"] == 0)])
        p99 = deliveries["p99_ms"]
        table.append([f"commit → delivery at {deliveries['rate']:,} events/s", backend, "–", "–", "–",
                      milliseconds(deliveries["p50_ms"]), milliseconds(p99), number(deliveries["undelivered"]),
                      "–", "–", "–", "p99 < 1 s", verdict(p99 is not None and p99 < 1000)])
    memory = find(results, "memory")
    if memory:
        login = memory.get("login_rss_mb")
        target = "≤ 40 MB" + (f" (the login before it, Argon2id at 19 MiB: {number(login, 1)} MB)" if login else "")
        table.append(["memory, 64 connections (reads)", "sqlite", "–", "–", "–", "–", "–", "–",
                      number(memory["rss_mb"], 1) + " MB", "–", "–", target, verdict(memory["rss_mb"] <= 40)])
    table.append(["token check on every request", "both", "–", "–", "–", "–", "–", "–", "–", "–", "–",
                  "no hashing but one SHA-256, one indexed lookup", "**met** (by the code: store::auth::authenticate)"])
    return table


def markdown(table, machine):
    head = ["scenario", "backend", "req/s", "items/s", "req/s per server core", "p50", "p99", "failed", "peak RSS",
            "× ceiling", "× peer", "target", "met"]
    lines = [machine, "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in table]
    return "\n".join(lines)


def record(key, label, backend, items, cpu_seconds, rss_kb, own_cpu_seconds=None):
    """One scenario's result from wrk's output (the JSON line report.lua prints) and the server's /proc figures:
    CPU_SECONDS of what serves the scenario (with PostgreSQL's), OWN_CPU_SECONDS of the measured process alone."""
    figures = None
    for line in sys.stdin:
        if line.startswith("BENCH "):
            figures = json.loads(line[len("BENCH "):])
    if figures is None:
        raise SystemExit(f"{key}: wrk printed no result")
    seconds = figures["duration_us"] / 1e6
    rps = figures["requests"] / seconds if seconds else 0
    cpu = float(cpu_seconds)
    result = {
        "key": key, "scenario": label, "backend": backend, "requests": figures["requests"], "rps": rps,
        "cpu_s": cpu, "per_core": figures["requests"] / cpu if cpu > 0 else None,
        "p50_ms": figures["p50_us"] / 1000, "p99_ms": figures["p99_us"] / 1000,
        "rss_mb": int(rss_kb) / 1024 if rss_kb else None, "bytes_per_response": figures["bytes"] / max(figures["requests"], 1),
        "non_2xx": figures["non_2xx_3xx"], "socket_errors": figures["socket_errors"], "statuses": figures["statuses"],
    }
    if own_cpu_seconds is not None:
        result["own_cpu_s"] = float(own_cpu_seconds)
    if int(items) > 0:
        result["items_per_s"] = rps * int(items)
    print(json.dumps(result))


def pgbench(key, label, cpu_seconds):
    """One pgbench run's result: its transactions a second and PostgreSQL's CPU seconds over them."""
    transactions = rps = failed = None
    for line in sys.stdin:
        if line.startswith("number of transactions actually processed:"):
            transactions = int(line.split(":")[1].split("/")[0])
        elif line.startswith("number of failed transactions:"):
            failed = int(line.split(":")[1].split()[0])
        elif line.startswith("tps = "):
            rps = float(line.split()[2])
    if transactions is None or rps is None:
        raise SystemExit(f"{key}: pgbench printed no result")
    cpu = float(cpu_seconds)
    print(json.dumps({
        "key": key, "scenario": label, "backend": "postgres", "requests": transactions, "rps": rps, "cpu_s": cpu,
        "per_core": transactions / cpu if cpu > 0 else None, "p50_ms": None, "p99_ms": None, "rss_mb": None,
        "non_2xx": failed or 0, "socket_errors": 0, "statuses": {},
    }))


def alone(key, label, checked, results_path=None, statements_key=None, lookup_key=None):
    """One run of a reference: the pages it read and serialised over its own CPU seconds. For "PostgreSQL alone", the
    run only decoded and serialised rows, and a page also costs PostgreSQL's CPU for its statements: the pgbench row
    STATEMENTS_KEY (a page's arguments looked up, then its statements) less the row LOOKUP_KEY (the lookup alone). The
    figure is pages per CPU second of the two added."""
    figures = json.loads(sys.stdin.read())
    seconds_a_page = 1 / figures["pages_per_cpu_second"]
    backend, rps = "sqlite", figures["pages"] / figures["seconds"]
    if statements_key:
        backend = "postgres"
        results = load(results_path)
        # This round's: the pgbench rows just measured.
        statements = (find_all(results, statements_key, "postgres") or [None])[-1]
        lookup = (find_all(results, lookup_key, "postgres") or [None])[-1]
        if not per_core(statements) or not per_core(lookup):
            raise SystemExit(f"{key}: no pgbench rows {statements_key} and {lookup_key}")
        seconds_a_page += 1 / per_core(statements) - 1 / per_core(lookup)
        rps = 1 / seconds_a_page
    print(json.dumps({
        "key": key, "scenario": label, "backend": backend, "requests": figures["pages"],
        "rps": rps, "cpu_s": figures["pages"] * seconds_a_page, "per_core": 1 / seconds_a_page,
        "items_per_s": rps * 100, "serialised_per_core": figures["pages_per_cpu_second"],
        "p50_ms": None, "p99_ms": None, "rss_mb": None, "non_2xx": 0, "socket_errors": 0, "statuses": {},
        "bytes_per_response": figures["bytes_per_page"], "checked": checked == "true",
    }))


def table(results_path, machine, document=None):
    text = markdown(rows(load(results_path)), machine)
    print(text)
    if document:
        with open(document, encoding="utf-8") as source:
            content = source.read()
        if START in content and END in content:
            before, rest = content.split(START, 1)
            _, after = rest.split(END, 1)
            content = before + START + "\n" + text + "\n" + END + after
            with open(document, "w", encoding="utf-8") as target:
                target.write(content)


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    {"record": record, "pgbench": pgbench, "alone": alone, "table": table}[command](*arguments)
