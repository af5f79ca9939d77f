#!/usr/bin/env python3
"""Reads the SQL a server logged while answering one request (JSON logs with
RUST_LOG=sqlx::query=debug,store::inline=debug,store::pg_readers=debug) and prints one bench/run result line about
it.

    sql_plans.py audit BACKEND LOG SQLITE_FILE PG_BIN PG_PORT
        the plan of every statement on `work_orders t` (EXPLAIN QUERY PLAN on SQLite; on PostgreSQL, EXPLAIN EXECUTE
        of the generic plan), and whether the filter is answered from an index: some statement (the one that finds
        the matching ids, on a list's first request) searches the `updated_at` index, and none reads the whole table
        (SQLite `SCAN t`, PostgreSQL `Seq Scan`); pages are then read by id
    sql_plans.py deep BACKEND LOG
        whether the statements of a deep page (`plots t`) count the rows or skip them with OFFSET
"""

import json
import re
import sqlite3
import subprocess
import sys


def statements(log, table_alias):
    found = []
    with open(log, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                fields = json.loads(line).get("fields", {})
            except ValueError:
                continue
            sql = " ".join((fields.get("db.statement") or "").split())
            if re.search(table_alias, sql) and sql not in found:
                found.append(sql)
    return found


def audit(backend, log, sqlite_path, pg_bin, pg_port):
    # Answered from an index: some statement finds the rows by the updated_at index, and none reads the whole table.
    captured = statements(log, r"\bwork_orders\s+t\b")
    plans, by_updated, scans = [], False, False
    for sql in captured:
        if backend == "sqlite":
            names = {n: None for n in re.findall(r"\$(\d+)", sql)}
            connection = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
            plan = [row[-1] for row in connection.execute("EXPLAIN QUERY PLAN " + sql, names).fetchall()]
            by_updated |= any(re.match(r"SEARCH t USING .*INDEX .*updated_at", step) for step in plan)
            scans |= any(re.match(r"SCAN t\b", step) for step in plan)
        else:
            count = max([int(n) for n in re.findall(r"\$(\d+)", sql)] or [0])
            script = ("SET plan_cache_mode = force_generic_plan;\nPREPARE q AS " + sql + ";\nEXPLAIN EXECUTE q("
                      + ", ".join(["NULL"] * count) + ");\n")
            out = subprocess.run([f"{pg_bin}/psql", "-h", "127.0.0.1", "-p", pg_port, "-U", "postgres", "-d",
                                  "bench_run", "-qAt", "-v", "ON_ERROR_STOP=1"],
                                 input=script, capture_output=True, text=True, check=False)
            plan = [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]
            by_updated |= out.returncode == 0 and any("Index Cond" in step and "updated_at" in step for step in plan)
            scans |= out.returncode != 0 or any("Seq Scan on work_orders" in step for step in plan)
        plans.append({"sql": sql, "plan": plan})
    indexed = by_updated and not scans
    steps = [step.strip().lstrip("-> ").split("  (cost")[0] for p in plans for step in p["plan"]
             if "work_orders" in step or "Cond" in step or "Filter" in step]
    summary = "; ".join(dict.fromkeys(steps)) or "no statement captured"
    print(json.dumps({"key": "audit_plan", "backend": backend, "indexed": indexed, "summary": summary,
                      "plans": plans}))


def deep(backend, log):
    captured = statements(log, r"\bplots\s+t\b")
    print(json.dumps({
        "key": "deep_sql", "backend": backend, "statements": captured,
        "count": any("COUNT(" in sql.upper() for sql in captured),
        "offset": any(re.search(r"\bOFFSET\b", sql, re.IGNORECASE) for sql in captured),
    }))


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    {"audit": audit, "deep": deep}[command](*arguments)
