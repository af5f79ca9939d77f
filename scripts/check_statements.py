"""Checks that every statement the tests' PostgreSQL ran names its society: Citus sends a statement to the one worker
that holds a society only when it names that society, as a parameter, for each society table it reads, updates or
deletes (each is distributed by `society_id`); any other statement goes to every shard.

Reads the JSON logs that `TEST_STATEMENT_LOG` has the test clusters write (crates/testkit/src/statement_log.rs), files
or directories, and parses each statement with pglast, PostgreSQL's own parser. The society tables are those that the
log's CREATE TABLE and ALTER TABLE statements give a `society_id` column, less REFERENCE_TABLES. Each reference to one
in a SELECT, UPDATE, DELETE or INSERT ... SELECT (subqueries, CTEs and joins too) must be tied to a parameter, among
the AND-ed conditions of its WHERE or of an ON that restricts it, by `alias.society_id = $n` (`society_id = $n` when
unambiguous) or by an equality to the `society_id` of another tied reference of its own query level. Neither
`= ANY($n)` nor an IN list of several ties, nor an outer query's column in a subquery: Citus cannot prune a subquery's
shards by a value that comes from each outer row. Not checked: DDL and the log records that hold it (migrations);
statements that begin with `/* all societies: ` (sweeps that must read every society: listed, with counts); the
tests' own probes (told by their application_name). Exits non-zero on a statement that does not name its society or
that the parser cannot read. `--self-test` judges check_statements_examples.sql. Run by scripts/check-statements.
"""

import json
import re
import sys
from collections import Counter
from functools import partial
from pathlib import Path
from textwrap import shorten
from types import SimpleNamespace

from pglast import ast, parse_sql
from pglast.enums.nodes import JoinType
from pglast.enums.parsenodes import A_Expr_Kind, AlterTableType, ObjectType

# Not distributed by a `society_id` column (the schema test, crates/server/tests/api/schema.rs, has the same list).
REFERENCE_TABLES = {
    "users": "logged in to by e-mail, which is unique across societies: a reference table on Citus",
    "societies": "read with its society's rows by every request, on whichever worker holds them: a reference table",
}
SWEEP = "/* all societies: "
TEST_CONNECTION = "testkit"  # crates/testkit/src/statement_log.rs, TEST_CONNECTION
LOGGED = re.compile(r"(?:statement|execute [^:]*): (.*)\Z", re.S)
QUERIES = (ast.SelectStmt, ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt)
NEUTRAL = (ast.TransactionStmt, ast.VariableSetStmt, ast.VariableShowStmt, ast.DeallocateStmt, ast.DiscardStmt)
DDL = re.compile(r"Create|Alter|Drop|Rename|Comment|Grant|Index|Define|CompositeType|View|Do|Truncate|Rule|Vacuum")
STRUCTURE = {"withClause", "fromClause", "usingClause", "larg", "rarg", "selectStmt", "relation", "whereClause"}
PARAM = "a parameter"
EXAMPLES = Path(__file__).with_name("check_statements_examples.sql")
short = partial(shorten, width=300, placeholder=" …")  # a statement as the summary shows it


class Schema(dict):
    """Each table's columns, as the DDL learnt in the order it ran made them."""

    def learn(self, stmt):
        if isinstance(stmt, ast.CreateStmt):
            elements = stmt.tableElts or ()
            self[stmt.relation.relname] = {e.colname for e in elements if isinstance(e, ast.ColumnDef)}
        elif isinstance(stmt, ast.AlterTableStmt) and stmt.relation.relname in self:
            for cmd in stmt.cmds:
                if cmd.subtype == AlterTableType.AT_AddColumn:
                    self[stmt.relation.relname].add(cmd.def_.colname)
                elif cmd.subtype == AlterTableType.AT_DropColumn:
                    self[stmt.relation.relname].discard(cmd.name)
        elif isinstance(stmt, ast.DropStmt) and stmt.removeType == ObjectType.OBJECT_TABLE:
            for name in stmt.objects:
                self.pop(name[-1].sval, None)

    def distributed(self):
        """Each society table's distribution column."""
        return {t: "society_id" for t, cols in self.items() if "society_id" in cols and t not in REFERENCE_TABLES}


class Entry:
    """A range reference: a table (`key`: its distribution column, if any), or a subquery or CTE (`body`)."""

    def __init__(self, table, key, columns, body=None):
        self.table, self.key, self.columns, self.body, self.tied = table, key, columns, body, False


class Statement:
    """The references of one statement, and the equalities that may tie them to a parameter."""

    def __init__(self, schema):
        self.keys, self.columns, self.entries, self.links = schema.distributed(), schema, [], []

    def query(self, node, parent, ctes):
        """The scopes of `node`'s branches (several for a UNION)."""
        ctes = dict(ctes)
        for cte in node.withClause.ctes if node.withClause else ():
            ctes[cte.ctename] = []  # a recursive CTE's reference to itself ties nothing
            ctes[cte.ctename] = self.query(cte.ctequery, parent, ctes)
        if isinstance(node, ast.SelectStmt) and node.larg is not None:
            return self.query(node.larg, parent, ctes) + self.query(node.rarg, parent, ctes)
        scope, conditions = SimpleNamespace(parent=parent, ctes=ctes, entries={}), []
        if isinstance(node, ast.InsertStmt) and node.selectStmt is not None:
            self.query(node.selectStmt, parent, ctes)
        elif isinstance(node, (ast.UpdateStmt, ast.DeleteStmt)):
            self.relation(node.relation, scope)
        for item in getattr(node, "fromClause", None) or getattr(node, "usingClause", None) or ():
            self.from_item(item, scope, conditions)
        conditions.append((getattr(node, "whereClause", None), set(scope.entries.values())))
        for condition, restricted in conditions:
            for conjunct in conjuncts(condition):
                self.link(conjunct, scope, restricted)
            self.sublinks(condition, scope)
        for name in set(type(node).__slots__) - STRUCTURE:
            self.sublinks(getattr(node, name), scope)
        return [scope]

    def add(self, scope, name, entry):
        scope.entries[name] = entry
        self.entries.append(entry)
        return {entry}

    def relation(self, rv, scope):
        name = rv.alias.aliasname if rv.alias else rv.relname
        if rv.schemaname is None and rv.relname in scope.ctes:
            return self.add(scope, name, Entry(rv.relname, "society_id", None, scope.ctes[rv.relname]))
        key = rv.schemaname in (None, "public", "pg_temp") and self.keys.get(rv.relname)
        return self.add(scope, name, Entry(rv.relname, key, self.columns.get(rv.relname)))

    def from_item(self, item, scope, conditions):
        """Adds `item`'s references to `scope`, and its ON conditions to `conditions`; the references it added."""
        if isinstance(item, ast.RangeVar):
            return self.relation(item, scope)
        if isinstance(item, ast.JoinExpr):
            left = self.from_item(item.larg, scope, conditions)
            right = self.from_item(item.rarg, scope, conditions)
            # An outer join's ON restricts only its nullable side: the other keeps every row, whatever the ON.
            restricted = {JoinType.JOIN_INNER: left | right, JoinType.JOIN_LEFT: right, JoinType.JOIN_RIGHT: left}
            conditions.append((item.quals, restricted.get(item.jointype, set())))
            return left | right
        alias = getattr(item, "alias", None)
        if isinstance(item, ast.RangeSubselect):
            body = self.query(item.subquery, scope, scope.ctes)
            columns = {c.sval for c in alias.colnames or ()} or None
            return self.add(scope, alias.aliasname, Entry(alias.aliasname, "society_id", columns, body))
        self.sublinks(item, scope)
        if alias is not None:
            scope.entries[alias.aliasname] = Entry(alias.aliasname, None, None)
        return set()

    def sublinks(self, node, scope):
        """Takes the queries nested in the expression `node` as scopes inside `scope`."""
        if isinstance(node, QUERIES):
            self.query(node, scope, scope.ctes)
        elif isinstance(node, ast.Node):
            for name in type(node).__slots__:
                self.sublinks(getattr(node, name), scope)
        elif isinstance(node, (list, tuple)):
            for item in node:
                self.sublinks(item, scope)

    def link(self, expr, scope, restricted):
        if not isinstance(expr, ast.A_Expr) or expr.name[-1].sval != "=":
            return
        right = expr.rexpr
        if expr.kind == A_Expr_Kind.AEXPR_IN and len(right) == 1:
            right = right[0]
        elif expr.kind != A_Expr_Kind.AEXPR_OP:
            return
        pairs = [(expr.lexpr, right)]
        if isinstance(expr.lexpr, ast.RowExpr) and isinstance(right, ast.RowExpr):
            pairs = zip(expr.lexpr.args, right.args)
        level = set(scope.entries.values())
        for a, b in pairs:
            a, b = self.term(a, scope), self.term(b, scope)
            if a is not None and b is not None:
                self.links.append((a, b, restricted, level))

    def term(self, node, scope):
        """A parameter, the reference whose key column `node` is, or None."""
        while isinstance(node, ast.TypeCast):
            node = node.arg
        if isinstance(node, ast.ParamRef):
            return PARAM
        if not isinstance(node, ast.ColumnRef) or not all(isinstance(f, ast.String) for f in node.fields):
            return None
        *qualifier, column = (f.sval for f in node.fields)
        while scope is not None:
            if qualifier:
                found = [scope.entries[qualifier[-1]]] if qualifier[-1] in scope.entries else []
            else:
                found = [e for e in scope.entries.values() if e.columns and column in e.columns]
            if found:
                return found[0] if len(found) == 1 and found[0].key == column else None
            scope = scope.parent
        return None

    def untied(self):
        """The society tables that the statement reads without a parameter naming their society."""
        changed = True
        while changed:
            changed = False
            for entry in self.entries:
                if not entry.tied and entry.body and all(tied_branch(scope) for scope in entry.body):
                    entry.tied = changed = True
            for a, b, restricted, level in self.links:
                for x, y in ((a, b), (b, a)):
                    if (x is PARAM or x.tied and x in level) and y in restricted and not y.tied:
                        y.tied = changed = True
        return sorted({e.table for e in self.entries if e.key and e.body is None and not e.tied})


def tied_branch(scope):
    keyed = [e for e in scope.entries.values() if e.key]
    return any(e.tied for e in keyed) and all(e.tied for e in keyed if e.body is None)


def conjuncts(expr):
    if isinstance(expr, ast.BoolExpr) and expr.boolop == 0:  # AND
        return [conjunct for arg in expr.args for conjunct in conjuncts(arg)]
    return [] if expr is None else [expr]


def verdict(sql, schema):
    """'ddl', 'sweep', 'ok', or what is wrong with the statement."""
    try:
        stmts = [raw.stmt for raw in parse_sql(sql)]
    except Exception as error:  # pglast's ParseError, or a statement its AST cannot hold
        return f"not parsed: {error}"
    if any(DDL.match(type(s).__name__) for s in stmts):
        return "ddl"
    if sql.startswith(SWEEP):
        return "sweep"
    wrong = []
    for stmt in stmts:
        if isinstance(stmt, QUERIES):
            checked = Statement(schema)
            checked.query(stmt, None, {})
            wrong += checked.untied()
        elif not isinstance(stmt, NEUTRAL):
            return f"not understood: {type(stmt).__name__}"
    return f"does not name its society for: {', '.join(wrong)}" if wrong else "ok"


def statements(paths):
    """How many times each statement ran, in the order first seen; and how many the tests' own connections ran."""
    runs, probes = Counter(), 0
    for path in map(Path, paths):
        for file in sorted(path.rglob("*.json")) if path.is_dir() else [path]:
            with open(file, encoding="utf-8") as lines:
                for line in lines:
                    record = json.loads(line) if line.endswith("\n") else {}  # not the end of a cluster killed
                    found = LOGGED.match(record.get("message", ""))
                    if found and record.get("error_severity") == "LOG":
                        if record.get("application_name") == TEST_CONNECTION:
                            probes += 1
                        else:
                            runs[found.group(1)] += 1
    return runs, probes


def check(paths):
    runs, probes = statements(paths)
    if not runs:
        sys.exit(f"check-statements: no statement logged in {' '.join(paths)} (was TEST_STATEMENT_LOG set?)")
    schema = Schema()
    for sql in runs:
        try:
            for raw in parse_sql(sql):
                schema.learn(raw.stmt)
        except Exception:
            pass  # verdict() reports it
    verdicts = {sql: verdict(sql, schema) for sql in runs}
    kinds = Counter(v if v in ("ddl", "sweep", "ok") else "wrong" for v in verdicts.values())
    print(f"check-statements: {sum(runs.values())} statements checked ({len(runs)} distinct), {probes} more by the "
          f"tests' own connections; society tables: {', '.join(sorted(schema.distributed()))}")
    print(f"  distinct statements: {kinds['ok']} name their society or read no society table, {kinds['ddl']} are DDL"
          f" or migrations, {kinds['sweep']} are sweeps of all societies, {kinds['wrong']} do not name their society")
    for sql, found in verdicts.items():
        if found == "sweep":
            print(f"  sweep, run {runs[sql]} times: {short(sql)}")
    wrong = sorted(((-runs[sql], sql, v) for sql, v in verdicts.items() if v not in ("ddl", "sweep", "ok")))
    for count, sql, found in wrong:
        print(f"\nrun {-count} times; {found}\n  {short(sql)}")
    return 1 if wrong else 0


def self_test():
    """Judges the examples: a wrong verdict on any fails."""
    blocks = [block.split("\n", 1) for block in EXAMPLES.read_text(encoding="utf-8").split("\n\n")[1:]]
    schema, failed = Schema(), []
    for raw in parse_sql(blocks[0][1]):
        schema.learn(raw.stmt)
    for head, sql in blocks[1:]:
        found = verdict(sql.strip(), schema)
        if (found in ("ok", "sweep", "ddl")) != head.startswith("-- names"):
            failed.append(f"check-statements self-test: {head[3:]}: wrongly {found!r}: {sql.strip()}")
    passed = len(blocks) - 1 - len(failed)
    print("\n".join([*failed, f"check-statements self-test: {passed} passed, {len(failed)} failed"]))
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if not sys.argv[1:] or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    sys.exit(check(sys.argv[1:]))
