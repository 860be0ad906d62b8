// sql.js (SQLite compiled with Emscripten): a database built and queried
// through the package's API: schema with constraints, triggers, views and
// generated columns; thousands of inserts through prepared statements; joins,
// aggregates, window functions, recursive CTEs, JSON, FTS3, math, string,
// date and printf functions; UPSERT/RETURNING; JS-defined functions and
// aggregates; error messages; export, re-open, VACUUM and integrity check.
//
// The wasm goes in through sql.js's own `wasmBinary` option. The release
// build (sql-wasm) runs the whole script; the debug build (sql-wasm-debug,
// its own JS glue) runs it too, and the two must agree with each other.

import { corpusEntry } from "../../corpus/corpus.js";
import { bytesOut, requireFrom, rng, sha256, toOutput, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";
import { firstDifference } from "../compare.js";

interface QueryExecResult {
  columns: string[];
  values: unknown[][];
}
interface Statement {
  bind(values: unknown[] | Record<string, unknown>): boolean;
  step(): boolean;
  get(): unknown[];
  getAsObject(): Record<string, unknown>;
  reset(): void;
  run(values?: unknown[]): void;
  free(): boolean;
}
interface Database {
  run(sql: string, params?: unknown[] | Record<string, unknown>): Database;
  exec(sql: string, params?: unknown[]): QueryExecResult[];
  prepare(sql: string): Statement;
  export(): Uint8Array;
  close(): void;
  getRowsModified(): number;
  create_function(name: string, f: (...args: never[]) => unknown): Database;
  create_aggregate(name: string, f: { init?: () => unknown; step: (state: never, ...args: never[]) => unknown; finalize: (state: never) => unknown }): Database;
}
interface SqlJsStatic {
  Database: new (data?: Uint8Array) => Database;
}
type InitSqlJs = (config: { wasmBinary: ArrayBuffer; useOldExtensionFunctions: boolean }) => Promise<SqlJsStatic>;

const WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega " +
  "Ärger Öl Übel straße façade naïve résumé 東京 北京 Москва Ελλάδα 😀 🚀 ∑ ∞").split(" ");

/** Statements whose results make up most of the output (each run with exec). */
const QUERIES: readonly string[] = [
  // Aggregates and grouping.
  "SELECT count(*), sum(qty), total(price), round(avg(price), 6), min(name), max(name) FROM items",
  "SELECT category, count(*), sum(qty), round(avg(price), 4), group_concat(id, '|') FILTER (WHERE id % 97 = 0) FROM items GROUP BY category ORDER BY category",
  "SELECT category, count(*) AS n FROM items GROUP BY category HAVING n > 150 ORDER BY n DESC, category",
  "SELECT count(DISTINCT category), count(DISTINCT qty % 10), sum(DISTINCT qty % 7) FROM items",
  "SELECT qty % 5 AS k, min(price), max(price), sum(price * qty) FROM items GROUP BY k ORDER BY k",
  // Joins, subqueries, compound selects.
  "SELECT c.name, count(o.id), coalesce(sum(o.amount), 0) FROM customers c LEFT JOIN orders o ON o.customer = c.id GROUP BY c.id ORDER BY 3 DESC, c.id LIMIT 25",
  "SELECT o.id, c.name, i.name, o.amount FROM orders o JOIN customers c ON c.id = o.customer JOIN items i ON i.id = o.item WHERE o.amount > 900 ORDER BY o.id LIMIT 40",
  "SELECT name FROM customers WHERE id IN (SELECT customer FROM orders GROUP BY customer HAVING count(*) >= 12) ORDER BY name",
  "SELECT id FROM items WHERE price > (SELECT avg(price) FROM items) AND qty < 5 ORDER BY id LIMIT 30",
  "SELECT category FROM items WHERE qty > 90 UNION SELECT 'extra' ORDER BY 1",
  "SELECT id % 13 FROM items INTERSECT SELECT id % 7 FROM orders ORDER BY 1",
  "SELECT id % 17 FROM items EXCEPT SELECT id % 5 FROM orders ORDER BY 1",
  "SELECT EXISTS (SELECT 1 FROM orders WHERE amount < 0), NOT EXISTS (SELECT 1 FROM items WHERE qty > 1000)",
  // Window functions.
  "SELECT id, category, price, row_number() OVER w, rank() OVER w, dense_rank() OVER w, round(percent_rank() OVER w, 6), ntile(4) OVER w FROM items WINDOW w AS (PARTITION BY category ORDER BY price DESC) ORDER BY category, 4 LIMIT 60",
  "SELECT id, amount, sum(amount) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW), lag(amount, 2, -1) OVER (ORDER BY id), lead(amount) OVER (ORDER BY id), first_value(amount) OVER (PARTITION BY customer ORDER BY id) FROM orders WHERE id <= 80 ORDER BY id",
  "SELECT customer, amount, round(cume_dist() OVER (PARTITION BY customer ORDER BY amount), 6), nth_value(amount, 2) OVER (PARTITION BY customer ORDER BY amount RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM orders WHERE customer <= 6 ORDER BY customer, amount, id",
  // Recursive CTEs.
  "WITH RECURSIVE fib(n, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT n + 1, b, a + b FROM fib WHERE n < 90) SELECT group_concat(a, ',') FROM fib",
  "WITH RECURSIVE x(i) AS (VALUES(0) UNION ALL SELECT i + 1 FROM x WHERE i < 2000) SELECT sum(i * i), count(*), max(i) FROM x",
  `WITH RECURSIVE
     xaxis(x) AS (VALUES(-2.0) UNION ALL SELECT x + 0.05 FROM xaxis WHERE x < 1.2),
     yaxis(y) AS (VALUES(-1.0) UNION ALL SELECT y + 0.1 FROM yaxis WHERE y < 1.0),
     m(iter, cx, cy, x, y) AS (
       SELECT 0, x, y, 0.0, 0.0 FROM xaxis, yaxis
       UNION ALL
       SELECT iter + 1, cx, cy, x * x - y * y + cx, 2.0 * x * y + cy FROM m WHERE (x * x + y * y) < 4.0 AND iter < 28
     ),
     m2(iter, cx, cy) AS (SELECT max(iter), cx, cy FROM m GROUP BY cx, cy),
     a(t) AS (SELECT group_concat(substr(' .+*#', 1 + min(iter / 7, 4), 1), '') FROM m2 GROUP BY cy)
   SELECT group_concat(rtrim(t), char(10)) FROM a`,
  "WITH RECURSIVE tree(id, depth, path) AS (SELECT id, 0, name FROM nodes WHERE parent IS NULL UNION ALL SELECT n.id, t.depth + 1, t.path || '/' || n.name FROM nodes n JOIN tree t ON n.parent = t.id) SELECT depth, path FROM tree ORDER BY path",
  // Strings, numbers, types.
  "SELECT upper(name), lower(name), length(name), substr(name, 2, 3), instr(name, 'a'), replace(name, 'a', '@'), trim('  ' || name || '  '), hex(name) FROM items WHERE id <= 40 ORDER BY id",
  "SELECT printf('%5d|%-8s|%08.3f|%x|%e|%g|%c|%%|%q|%w', id, name, price, id * 7919, price * 1e10, price / 3, name, name, name) FROM items WHERE id % 250 = 1 ORDER BY id",
  "SELECT name LIKE '%a%', name GLOB '*[0-9]', name LIKE 'x!_%' ESCAPE '!', name COLLATE NOCASE = upper(name), unicode(name), char(72, 105, 0x1F600) FROM items WHERE id <= 30 ORDER BY id",
  "SELECT typeof(1), typeof(1.5), typeof('x'), typeof(x'00ff'), typeof(NULL), CAST('12abc' AS INTEGER), CAST(3.99 AS INTEGER), CAST(-7 AS REAL), CAST(x'414243' AS TEXT), 9223372036854775807 + 1, -9223372036854775808 - 1",
  "SELECT 0.1 + 0.2, 1e308 * 10, -1e308 * 10, 1.0 / 3, 2.0 / 3, 1e-310, 123456789012345678, 4.0 * atan(1), round(2.5), round(-2.5), round(1234.5678, -2), abs(-9223372036854775807), 7 / 2, 7 % 3, -7 / 2, -7 % 3",
  "SELECT sqrt(2), exp(1), ln(10), log10(1000), log2(1024), pow(2, 0.5), sin(1), cos(1), tan(1), asin(0.5), acos(0.5), degrees(pi()), radians(180), ceil(-1.5), floor(-1.5), trunc(-1.5), mod(10.5, 3), sign(-3)",
  "SELECT zeroblob(5), length(zeroblob(1000)), hex(x'DEADBEEF' || x'00'), quote(x'0102'), quote('it''s'), quote(1.5), unhex('48656c6c6f'), octet_length('héllo'), concat('a', NULL, 'b', 3), concat_ws('-', 'a', 'b', NULL, 'c')",
  "SELECT iif(id % 2, 'odd', 'even'), CASE WHEN qty > 50 THEN 'many' WHEN qty > 10 THEN 'some' ELSE 'few' END, coalesce(NULL, NULL, id), nullif(qty, 0), ifnull(note, '-'), min(id, qty, 50), max(id, qty, 50) FROM items WHERE id <= 25 ORDER BY id",
  "SELECT format('%.20f', 1.0/7), format('%!.20g', 1.0/7), format('%,d', 1234567890), format('%010.4f', -3.14159), format('%s', 1e100), format('%.3s', 'abcdef')",
  // Dates (fixed, never 'now').
  "SELECT date('2024-02-29', '+1 year'), date('2024-01-31', '+1 month'), datetime('2000-01-01 12:34:56', '+90 minutes', 'start of day'), julianday('2024-03-01') - julianday('2024-02-01'), strftime('%Y-%j %W %w %H:%M:%f %s', '2023-12-31 23:59:59.123'), unixepoch('1970-01-02'), date(2460000.5), time('12:00', '-30 seconds'), datetime(1700000000, 'unixepoch'), timediff('2024-03-01', '2023-02-01')",
  // JSON.
  "SELECT json_object('id', id, 'name', name, 'price', price, 'tags', json_array(category, qty)) FROM items WHERE id <= 20 ORDER BY id",
  "SELECT json_group_array(json_object('c', category, 'n', cnt)) FROM (SELECT category, count(*) AS cnt FROM items GROUP BY category ORDER BY category)",
  "SELECT json_group_object(name, amount) FROM (SELECT c.name, sum(o.amount) AS amount FROM customers c JOIN orders o ON o.customer = c.id GROUP BY c.id ORDER BY c.id LIMIT 15)",
  "SELECT id, doc ->> '$.a', doc -> '$.b', json_extract(doc, '$.c[1]'), json_type(doc, '$.c'), json_array_length(doc, '$.c'), json_valid(doc) FROM docs ORDER BY id",
  "SELECT json_set(doc, '$.a', 99, '$.z', json('[1,2]')), json_insert(doc, '$.new', 'v'), json_replace(doc, '$.b', NULL), json_remove(doc, '$.c[0]'), json_patch(doc, '{\"a\":null,\"q\":{\"r\":1}}') FROM docs ORDER BY id",
  "SELECT d.id, j.key, j.value, j.type, j.fullkey FROM docs d, json_tree(d.doc) j WHERE d.id <= 3 ORDER BY d.id, j.fullkey",
  "SELECT value, count(*) FROM docs, json_each(docs.doc, '$.c') GROUP BY value ORDER BY value",
  "SELECT json('{\"b\":[1,2.50,\"x\\u00e9\"],\"a\":{}}'), json_quote('a\"b'), json_array(1, 2.5, 'x', NULL, json('true')), jsonb_object('k', 1) IS NOT NULL, json(jsonb_array(1, 2, 3)), json_pretty('{\"a\":[1,{\"b\":2}]}')",
  // Full-text search (FTS3/FTS4).
  "SELECT rowid, title FROM notes WHERE notes MATCH 'gamma' ORDER BY rowid LIMIT 20",
  "SELECT count(*) FROM notes WHERE notes MATCH 'alpha OR omega'",
  "SELECT rowid, snippet(notes, '[', ']', '...', -1, 8) FROM notes WHERE notes MATCH 'body:delta NOT beta' ORDER BY rowid LIMIT 10",
  "SELECT rowid, offsets(notes) FROM notes WHERE notes MATCH '\"sigma tau\"' ORDER BY rowid LIMIT 10",
  // Views, triggers, generated columns, audit log.
  "SELECT * FROM big_spenders ORDER BY total DESC, name LIMIT 10",
  "SELECT id, net, gross FROM lines ORDER BY id LIMIT 20",
  "SELECT action, count(*), sum(delta) FROM audit GROUP BY action ORDER BY action",
  // Plans and introspection.
  "EXPLAIN QUERY PLAN SELECT c.name, sum(o.amount) FROM customers c JOIN orders o ON o.customer = c.id WHERE o.amount > 10 GROUP BY c.id",
  "SELECT type, name, tbl_name FROM sqlite_schema ORDER BY type, name",
  "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('items') ORDER BY cid",
  "SELECT * FROM pragma_index_list('orders') ORDER BY name",
  "PRAGMA integrity_check",
  "PRAGMA foreign_key_check",
];

async function runOnce(initSqlJs: InitSqlJs, wasm: Uint8Array, ctx: RunContext, label: string): Promise<Output> {
  const wasmBinary = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer;
  const SQL = await initSqlJs({ wasmBinary, useOldExtensionFunctions: false });
  const out: Record<string, Output> = {};
  const db = new SQL.Database();
  const r = rng(20240611);
  const pick = <T>(a: readonly T[]): T => a[(r() * a.length) | 0]!;

  db.run("PRAGMA foreign_keys = ON");
  db.run(`
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, country TEXT, joined TEXT);
    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, price REAL CHECK (price >= 0), qty INTEGER DEFAULT 0, note TEXT);
    CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, customer INTEGER NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
                         item INTEGER NOT NULL REFERENCES items(id), amount REAL NOT NULL, day TEXT);
    CREATE INDEX orders_customer ON orders(customer, amount);
    CREATE INDEX items_cat_price ON items(category, price DESC);
    CREATE UNIQUE INDEX items_name_cat ON items(name, category);
    CREATE TABLE audit (seq INTEGER PRIMARY KEY, action TEXT, ref INTEGER, delta REAL);
    CREATE TRIGGER orders_ins AFTER INSERT ON orders BEGIN INSERT INTO audit(action, ref, delta) VALUES ('insert', NEW.id, NEW.amount); END;
    CREATE TRIGGER orders_upd AFTER UPDATE OF amount ON orders BEGIN INSERT INTO audit(action, ref, delta) VALUES ('update', NEW.id, NEW.amount - OLD.amount); END;
    CREATE TRIGGER orders_del AFTER DELETE ON orders BEGIN INSERT INTO audit(action, ref, delta) VALUES ('delete', OLD.id, -OLD.amount); END;
    CREATE VIEW big_spenders AS SELECT c.name, sum(o.amount) AS total, count(*) AS n FROM customers c JOIN orders o ON o.customer = c.id GROUP BY c.id HAVING total > 5000;
    CREATE TABLE lines (id INTEGER PRIMARY KEY, net REAL, rate REAL, gross REAL GENERATED ALWAYS AS (round(net * (1 + rate), 2)) STORED) STRICT;
    CREATE TABLE docs (id INTEGER PRIMARY KEY, doc TEXT);
    CREATE TABLE nodes (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES nodes(id), name TEXT);
    CREATE VIRTUAL TABLE notes USING fts4(title, body);
    CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;
  `);

  // Bulk inserts through prepared statements inside transactions.
  db.run("BEGIN");
  const insCustomer = db.prepare("INSERT INTO customers (name, country, joined) VALUES (?, ?, ?)");
  for (let i = 0; i < 300; i++) {
    insCustomer.run([`${pick(WORDS)}-${i}`, pick(["DE", "FR", "JP", "US", "BR", "GR"]), `20${10 + (i % 14)}-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")}`]);
  }
  insCustomer.free();
  const insItem = db.prepare("INSERT INTO items (name, category, price, qty, note) VALUES ($name, $cat, $price, $qty, $note)");
  for (let i = 0; i < 2500; i++) {
    insItem.run({
      $name: `${pick(WORDS)} ${pick(WORDS)} ${i}`,
      $cat: pick(["tools", "food", "books", "toys", "garden", "music", "sport"]),
      $price: Math.round(r() * 100000) / 100,
      $qty: (r() * 100) | 0,
      $note: r() < 0.3 ? null : pick(WORDS).repeat(1 + ((r() * 4) | 0)),
    } as unknown as unknown[]);
  }
  insItem.free();
  const insOrder = db.prepare("INSERT INTO orders (customer, item, amount, day) VALUES (?, ?, ?, date('2023-01-01', '+' || ? || ' days'))");
  for (let i = 0; i < 6000; i++) insOrder.run([1 + ((r() * 300) | 0), 1 + ((r() * 2500) | 0), Math.round(r() * 100000) / 100, (r() * 365) | 0]);
  insOrder.free();
  db.run("COMMIT");

  db.run("BEGIN");
  const insLine = db.prepare("INSERT INTO lines (net, rate) VALUES (?, ?)");
  for (let i = 0; i < 400; i++) insLine.run([Math.round(r() * 1e6) / 100, [0, 0.07, 0.19, 0.2][i % 4]!]);
  insLine.free();
  const insDoc = db.prepare("INSERT INTO docs (doc) VALUES (?)");
  for (let i = 0; i < 30; i++) {
    insDoc.run([JSON.stringify({ a: i, b: { s: pick(WORDS), f: i / 7 }, c: [i % 3, pick(WORDS), i % 2 === 0, null], u: "é\u2028😀" })]);
  }
  insDoc.free();
  db.run("INSERT INTO nodes VALUES (1, NULL, 'root'), (2, 1, 'usr'), (3, 1, 'etc'), (4, 2, 'lib'), (5, 2, 'bin'), (6, 4, 'node'), (7, 3, 'hosts'), (8, 6, 'modules'), (9, 8, 'sql.js')");
  const insNote = db.prepare("INSERT INTO notes (title, body) VALUES (?, ?)");
  for (let i = 0; i < 800; i++) {
    const words: string[] = [];
    const n = 8 + ((r() * 40) | 0);
    for (let k = 0; k < n; k++) words.push(pick(WORDS));
    insNote.run([`${pick(WORDS)} ${i}`, words.join(" ")]);
  }
  insNote.free();
  db.run("COMMIT");

  // Updates, deletes, UPSERT, RETURNING, REPLACE.
  db.run("UPDATE orders SET amount = amount * 1.1 WHERE customer % 10 = 3");
  out.updated = db.getRowsModified();
  db.run("DELETE FROM orders WHERE amount < 50");
  out.deleted = db.getRowsModified();
  db.run("DELETE FROM customers WHERE id % 50 = 0"); // cascades into orders
  out.cascaded = toOutput(db.exec("SELECT count(*) FROM orders")[0]!.values);
  for (let i = 0; i < 200; i++) db.run("INSERT INTO kv (k, v) VALUES (?, 1) ON CONFLICT (k) DO UPDATE SET v = v + excluded.v", [pick(WORDS)]);
  out.upsert = toOutput(db.exec("SELECT k, v FROM kv ORDER BY k"));
  out.returning = toOutput(db.exec("UPDATE items SET qty = qty + 1 WHERE id % 400 = 7 RETURNING id, qty, name"));
  out.replace = toOutput(db.exec("INSERT OR REPLACE INTO kv VALUES ('alpha', -1), ('zzz', 5) RETURNING *"));

  // JS-defined scalar functions and aggregates (calls from wasm into JS and back).
  db.create_function("js_mix", (a: never, b: never) => (typeof a === "number" && typeof b === "string" ? `${(b as string).length * (a as number)}:${Array.from(b as string).reverse().join("")}` : null));
  db.create_function("js_bytes", (n: never) => {
    const b = new Uint8Array(Number(n));
    for (let i = 0; i < b.length; i++) b[i] = (i * 31 + 7) & 255;
    return b;
  });
  db.create_aggregate("js_var", {
    init: () => ({ n: 0, s: 0, q: 0 }),
    step: (st: never, x: never) => {
      const s = st as { n: number; s: number; q: number };
      const v = Number(x);
      s.n++;
      s.s += v;
      s.q += v * v;
      return s;
    },
    finalize: (st: never) => {
      const s = st as { n: number; s: number; q: number };
      return s.n < 2 ? null : (s.q - (s.s * s.s) / s.n) / (s.n - 1);
    },
  });
  out.jsFunctions = toOutput(db.exec("SELECT js_mix(id, name), hex(js_bytes(id % 9)) FROM items WHERE id <= 15 ORDER BY id"));
  out.jsAggregate = toOutput(db.exec("SELECT category, js_var(price) FROM items GROUP BY category ORDER BY category"));

  // Iterating a statement row by row with bound parameters.
  const stmt = db.prepare("SELECT id, name, price FROM items WHERE category = :cat AND price BETWEEN :lo AND :hi ORDER BY price, id");
  const rows: Output[] = [];
  for (const [cat, lo, hi] of [["books", 10, 60], ["toys", 500, 520], ["food", 0, 5]] as const) {
    stmt.bind({ ":cat": cat, ":lo": lo, ":hi": hi });
    while (stmt.step()) rows.push(toOutput(stmt.getAsObject()));
    stmt.reset();
  }
  stmt.free();
  out.statementRows = rows;

  // Queries.
  const results: Output[] = [];
  for (const q of QUERIES) {
    try {
      results.push(toOutput(db.exec(q)));
    } catch (e) {
      results.push(`error: ${(e as Error).message}`);
    }
  }
  out.queries = results;

  // Schema changes, savepoints, attached databases, statistics and maintenance.
  const maintenance: Output[] = [];
  for (const sql of [
    "ALTER TABLE items ADD COLUMN weight REAL DEFAULT 1.5",
    "ALTER TABLE items RENAME COLUMN note TO remark",
    "ALTER TABLE kv RENAME TO kv2",
    "ALTER TABLE lines DROP COLUMN rate",
    "SELECT id, weight, remark FROM items WHERE id IN (1, 2, 3) ORDER BY id",
    "SAVEPOINT a; INSERT INTO kv2 VALUES ('sp', 1); SAVEPOINT b; DELETE FROM kv2; ROLLBACK TO b; RELEASE a; SELECT count(*) FROM kv2",
    "BEGIN; UPDATE items SET qty = 0; ROLLBACK; SELECT sum(qty) FROM items",
    "ATTACH ':memory:' AS aux; CREATE TABLE aux.t AS SELECT category, count(*) AS n FROM items GROUP BY category; SELECT * FROM aux.t JOIN main.items i ON i.category = aux.t.category WHERE i.id < 5 ORDER BY i.id",
    "CREATE TEMP TABLE tmp AS SELECT customer, sum(amount) AS s FROM orders GROUP BY customer; SELECT count(*), round(max(s), 2) FROM tmp",
    "CREATE INDEX items_expr ON items(lower(name)); CREATE INDEX orders_big ON orders(amount) WHERE amount > 500; SELECT count(*) FROM orders WHERE amount > 900",
    "ANALYZE; SELECT tbl, idx, stat FROM sqlite_stat1 ORDER BY tbl, idx",
    "REINDEX; PRAGMA optimize",
    "INSERT INTO kv2 (k, v) SELECT name, qty FROM items WHERE id < 20 ON CONFLICT DO NOTHING; SELECT changes(), total_changes() > 0, last_insert_rowid() >= 0",
    "WITH t(c, n) AS (SELECT category, count(*) FROM items GROUP BY category) UPDATE items SET qty = t.n FROM t WHERE items.category = t.c AND items.id < 10 RETURNING id, qty",
    "SELECT * FROM pragma_table_xinfo('lines') ORDER BY cid",
    "SELECT * FROM pragma_index_xinfo('items_name_cat') ORDER BY seqno",
    "SELECT likelihood(id > 5, 0.9), unlikely(qty > 50), sqlite_compileoption_used('ENABLE_FTS3'), typeof(sqlite_source_id()) FROM items WHERE id = 7",
    "INSERT INTO notes(notes) VALUES ('optimize'); SELECT count(*) FROM notes WHERE notes MATCH 'al*'",
    "SELECT count(*) FROM notes WHERE notes MATCH 'omega OR sigma NEAR/3 tau'",
    "SELECT count(*) FROM notes WHERE notes MATCH 'title:omega -body:alpha'",
    "CREATE TABLE big(x BLOB); INSERT INTO big VALUES (zeroblob(300000)); UPDATE big SET x = x || x'0102'; SELECT length(x), hex(substr(x, -3)) FROM big",
    "SELECT group_concat(DISTINCT category ORDER BY category DESC) FROM items",
    "SELECT string_agg(name, ';' ORDER BY id) FROM (SELECT name, id FROM items WHERE id <= 6)",
    "SELECT category, sum(qty) FILTER (WHERE qty > 50), round(avg(DISTINCT qty), 3) FROM items GROUP BY category ORDER BY 2 DESC",
    "VALUES (1, 'a'), (2, 'b') UNION ALL SELECT 3, 'c' ORDER BY 1 DESC LIMIT 2 OFFSET 1",
    "DETACH aux; PRAGMA page_count; PRAGMA freelist_count; PRAGMA schema_version",
  ]) {
    try {
      maintenance.push(toOutput(db.exec(sql)));
    } catch (e) {
      maintenance.push(`error: ${(e as Error).message}`);
    }
  }
  out.maintenance = maintenance;

  // Error paths: messages come from SQLite inside the wasm.
  const errors: Output[] = [];
  for (const bad of [
    "SELEC 1",
    "SELECT * FROM missing_table",
    "INSERT INTO customers (id, name) VALUES (1, 'dup')",
    "INSERT INTO items (name, category, price) VALUES ('x', 'y', -1)",
    "INSERT INTO orders (customer, item, amount) VALUES (99999, 1, 1)",
    "INSERT INTO lines (net, rate) VALUES ('abc', 0)",
    "SELECT json_extract('{bad json', '$.a')",
    "SELECT 1 +",
  ]) {
    try {
      db.exec(bad);
      errors.push("no error");
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  out.errors = errors;

  // Export, re-open, query the copy, VACUUM, export again.
  const image = db.export();
  out.exportSize = image.length;
  out.exportHash = sha256(image);
  const copy = new SQL.Database(image);
  out.reopened = toOutput(copy.exec("SELECT count(*), sum(amount) FROM orders; SELECT count(*) FROM notes WHERE notes MATCH 'psi'; PRAGMA integrity_check"));
  copy.run("DELETE FROM orders WHERE id % 3 = 0; VACUUM");
  const vacuumed = copy.export();
  out.vacuumed = bytesOut(vacuumed);
  copy.close();
  db.close();
  ctx.check(image.length > 100000, `${label}: the exported database is implausibly small (${image.length} bytes)`);
  const first = (results[0] as Output[])[0] as { values: Output[][] };
  ctx.check(first.values[0]![0] === 2500, `${label}: expected 2500 items`);
  return out;
}

export const workload: Workload = {
  name: "sql.js",
  size: "small",
  description: "SQLite: schema, 10k inserts, 50 queries (joins, windows, CTEs, JSON, FTS, math, dates), UDFs, errors, export/VACUUM; release and debug builds",
  wasm: () => ["sql-wasm", "sql-wasm-debug"].map((name) => ({ name, bytes: corpusEntry(name).bytes() })),
  async run(wasm, ctx) {
    return withTempDir("sqljs", async (dir) => {
      // A fresh copy of the glue: sql.js caches its initialization promise per module instance.
      const release = requireFrom<InitSqlJs>(dir.copyFromPackage("sql.js", "dist/sql-wasm.js"));
      const debug = requireFrom<InitSqlJs>(dir.copyFromPackage("sql.js", "dist/sql-wasm-debug.js"));
      const a = await runOnce(release, wasm[0]!, ctx, "release");
      const b = await runOnce(debug, wasm[1]!, ctx, "debug");
      const diff = firstDifference(a, b);
      ctx.check(diff === null, `the release and debug builds of sql.js disagree: ${diff}`);
      return { release: a, debugAgrees: diff === null };
    });
  },
};
