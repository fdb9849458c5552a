#!/usr/bin/env node
// node bench/match.mjs [--sizes 1e6] [--target 5000] [--repeat 5] [--restarts 3] [--work DIR] [--bin FILE] [--results FILE]
//
// Issue 15's first benchmark: "match with children" of a ~5,000-node module on a 10^6-node compare `.vis.db` ≤ 1 s.
// The viewer benchmark's large compare file (bench/visgen, shared through --work) is copied to a temp log dir, where
// one module subtree per side (the module nearest --target nodes, with the same ids on both sides) is made unmatched
// the way msprobe writes unmatched nodes (docs/msprobe-format.md §4.2, §3: matched_node_link '[]', precision_index
// NULL, the summary compare columns absent from the NPU items). `probeboard serve` then registers one overlay
// `{op:'match', npu, bench, children:true}` (src/core/api/overlay.ts), asked again while it answers 202:
//   - cold: a fresh server's first registration (the file opened first, not measured; median of --restarts servers);
//   - reopened: the same on a fresh server using the cache the cold one left (the file's unmatched counts are kept);
//   - warm: the same server registering the match again under a different id — a leading one-leaf unmatch elsewhere
//     (a different leaf each time) makes a new overlay that replays the module's match from the file (median of --repeat).
// The match op's outcome must pair the whole subtree (done ≥ its node count, nothing failed), else the bench fails.
// Prints a markdown table and writes it to bench/results/match.md.
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { largeVisFile, machineLine, median, startServer, untilReady, writeResults } from './lib/benchKit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1e6' },
    target: { type: 'string', default: '5000' },
    repeat: { type: 'string', default: '5' },
    restarts: { type: 'string', default: '3' },
    work: { type: 'string', default: path.join(os.tmpdir(), 'probeboard-bench-viewer') },
    bin: { type: 'string', default: path.join(repo, 'bin/probeboard.js') },
    results: { type: 'string', default: path.join(repo, 'bench/results/match.md') },
  },
});
const bin = path.resolve(args.bin);
const work = path.resolve(args.work);
const target = Number(args.target);
const repeat = Math.max(1, Number(args.repeat));
const restarts = Math.max(1, Number(args.restarts));
/** @param {string} m @returns {never} */
const fail = (m) => {
  console.error(`bench:match: ${m}`);
  process.exit(2);
};
if (bin === path.join(repo, 'bin/probeboard.js') && !existsSync(path.join(repo, 'dist/server/cli/main.js'))) fail('dist/ is missing: run "npm run build" first');

/** The compare columns msprobe's summary task adds to an NPU item (msprobe-format.md §3) and the ones a manual match adds (src/core/match ADD_MATCH_KEYS): an unmatched node has none of them. */
const COMPARE_KEYS = new Set([
  'Max diff',
  'Min diff',
  'Mean diff',
  'L2norm diff',
  'MaxRelativeErr',
  'MinRelativeErr',
  'MeanRelativeErr',
  'NormRelativeErr',
  'Requires_grad Consistent',
  'MaxAbsErr',
  'MinAbsErr',
  'MeanAbsErr',
  'NormAbsErr',
]);

/** Python `json.dumps` (ASCII-escaped, `", "` / `": "` separators), as msprobe writes the TEXT columns. @param {unknown} v @returns {string} */
function pyDumps(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(v)) return `[${v.map(pyDumps).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${pyDumps(k)}: ${pyDumps(x)}`)
    .join(', ')}}`;
}

/** @param {string} text */
function stripCompare(text) {
  const items = JSON.parse(text);
  for (const key of Object.keys(items)) {
    const item = items[key];
    if (item && typeof item === 'object') items[key] = Object.fromEntries(Object.entries(item).filter(([k]) => !COMPARE_KEYS.has(k)));
  }
  return pyDumps(items);
}

/**
 * Copies the file into `logdir` and unmatches, on both sides of its first graph, the module subtree nearest `target`
 * nodes; also picks `repeat` matched NPU leaves outside it for the warm runs' leading ops.
 * @param {string} from @param {string} logdir
 */
function prepare(from, logdir) {
  const file = path.join(logdir, path.basename(from));
  const t0 = performance.now();
  copyFileSync(from, file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const { step, rank } = db.prepare('SELECT step, rank FROM tb_nodes LIMIT 1').get();
  const rows = db.prepare("SELECT node_name, up_node, node_type, sub_nodes, matched_node_link FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = 'NPU'").raw().all(step, rank);
  const parent = new Map(rows.map((r) => [r[0], r[1]]));
  const size = new Map();
  for (const [name] of rows) for (let p = name; p; p = parent.get(p)) size.set(p, (size.get(p) ?? 0) + 1);
  const subtree = (/** @type {string} */ side, /** @type {string} */ root) =>
    db
      .prepare(
        `WITH RECURSIVE sub(name) AS (SELECT ? UNION ALL SELECT n.node_name FROM sub CROSS JOIN tb_nodes n ON n.up_node = sub.name
         WHERE n.step = ? AND n.rank = ? AND n.data_source = ?) SELECT name FROM sub`,
      )
      .pluck()
      .all(root, step, rank, side);
  // Modules nearest the target first; the first whose Bench subtree has the same ids.
  const modules = rows.filter((r) => r[2] === '0' && r[1] !== '').sort((a, b) => Math.abs(size.get(a[0]) - target) - Math.abs(size.get(b[0]) - target));
  let module = null;
  let ids = [];
  for (const [name] of modules.slice(0, 20)) {
    const npu = subtree('NPU', name);
    const bench = new Set(subtree('Bench', name));
    if (npu.length === bench.size && npu.every((id) => bench.has(id))) {
      module = name;
      ids = npu;
      break;
    }
  }
  if (!module) fail(`${from}: no module of about ${target} nodes with the same subtree on both sides`);
  const inside = new Set(ids);
  const leaves = rows
    .filter((r) => r[3] === '' && r[4] !== '[]' && r[4] !== '' && !inside.has(r[0]) && !inside.has(parent.get(r[0])))
    .filter((r) => {
      for (let p = r[0]; p; p = parent.get(p)) if (p === module) return false;
      return true;
    })
    .slice(0, repeat)
    .map((r) => r[0]);
  if (leaves.length < repeat) fail(`${from}: only ${leaves.length} matched leaves outside ${module}`);
  const read = db.prepare('SELECT input_data, output_data FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?');
  const write = db.prepare(
    "UPDATE tb_nodes SET matched_node_link = '[]', precision_index = NULL, input_data = ?, output_data = ? WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?",
  );
  db.transaction(() => {
    for (const side of ['NPU', 'Bench']) {
      for (const id of ids) {
        const r = read.get(step, rank, side, id);
        // The Bench side's items carry no compare columns in msprobe's files; only the NPU side's are rewritten.
        const input = side === 'NPU' ? stripCompare(r.input_data) : r.input_data;
        const output = side === 'NPU' ? stripCompare(r.output_data) : r.output_data;
        write.run(input, output, step, rank, side, id);
      }
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('journal_mode = DELETE');
  db.close();
  return { file, step, rank, module, moduleNodes: ids.length, leaves, prepareSeconds: (performance.now() - t0) / 1000 };
}

/** As the viewer asks: again after 300 ms while 202 (client.ts INDEXING_POLL_MS), again after a 503 (overlayActions.ts). */
const ready = (port, method, p, body) => untilReady(port, method, p, body, { pollMs: 300, retry503Ms: 60_000 });

async function measure(/** @type {number} */ nodes) {
  const f = await largeVisFile(work, nodes, 'db');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'probeboard-bench-match-'));
  try {
    const logdir = path.join(scratch, 'logs');
    mkdirSync(logdir);
    console.error(`preparing ${path.basename(f.out)} …`);
    const p = prepare(f.out, logdir);
    console.error(`  ${p.module}: ${p.moduleNodes} nodes per side unmatched in ${p.prepareSeconds.toFixed(1)} s`);
    const tag = path.basename(p.file).replace(/\.vis\.db$/, '');
    const q = new URLSearchParams({ run: '.', tag, format: 'db', step: String(p.step), rank: String(p.rank) }).toString();
    const match = { op: 'match', npu: p.module, bench: p.module, children: true };
    /** Checks the match op's outcome: the whole subtree paired, nothing failed. */
    const check = (/** @type {any} */ answer, /** @type {number} */ index) => {
      const o = answer.outcomes[index];
      if (!o || o.done < p.moduleNodes || o.failed.length > 0) fail(`${nodes}: match of ${p.module} (${p.moduleNodes} nodes) answered ${JSON.stringify(o).slice(0, 300)}`);
      return o;
    };
    const cold = [];
    const reopened = [];
    const warm = [];
    let outcome = null;
    let counts = null;
    for (let s = 0; s < restarts; s++) {
      // A fresh server on an empty cache (cold), then another on the cache it left (the file reopened).
      const cache = mkdtempSync(path.join(scratch, 'cache-'));
      for (const times of [cold, reopened]) {
        const server = await startServer(bin, logdir, cache);
        try {
          await ready(server.port, 'GET', `/api/graph/meta?${q}`);
          const first = await ready(server.port, 'POST', `/api/overlay?${q}`, { ops: [match] });
          outcome = check(first.json, 0);
          counts = first.json.counts;
          times.push(first);
          // Warm runs on the first server only: the same file, caches and find worker, a new overlay each time.
          for (let i = 0; s === 0 && times === cold && i < repeat; i++) {
            const leaf = p.leaves[i];
            const again = await ready(server.port, 'POST', `/api/overlay?${q}`, { ops: [{ op: 'unmatch', npu: leaf, bench: leaf, children: false }, match] });
            check(again.json, 1);
            warm.push(again);
          }
        } finally {
          await server.stop();
        }
      }
    }
    return { nodes, mb: f.bytes / 1e6, ...p, cold, reopened, warm, outcome, counts };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const loadBefore = os.loadavg()[0];
const rows = [];
for (const size of String(args.sizes).split(',')) rows.push(await measure(Number(size)));

const ms = (/** @type {Array<{ ms: number }>} */ xs) => median(xs.map((x) => x.ms)).toFixed(0);
const asks = (/** @type {Array<{ asks: number }>} */ xs) => Math.max(...xs.map((x) => x.asks));
writeResults(args.results, [
  '# Match with children (bench/match.mjs)',
  '',
  `${machineLine()}; load average ${loadBefore.toFixed(1)} before the run, ${os.loadavg()[0].toFixed(1)} after it.`,
  'The viewer benchmark\'s compare `.vis.db` (bench/visgen), copied, with one module subtree per side made unmatched as',
  'msprobe writes unmatched nodes (matched_node_link `[]`, precision_index NULL, no compare columns in the NPU items).',
  '`POST /api/overlay` with `{op: "match", npu, bench, children: true}` on that module, asked again every 300 ms while',
  'it answers 202 (as the viewer does). Cold = a fresh server\'s first registration, its file opened (median of',
  `${restarts} servers, each on an empty cache); reopened = then a fresh server on the cache the cold one left (the`,
  'file\'s unmatched counts kept there); warm = a new overlay on the first server (a different one-leaf unmatch first,',
  `then the same match; median of ${repeat}). Target (issue 15): ≤ 1 s for a 5,000-node module of a 10^6-node file.`,
  '',
  '| file | module nodes per side | cold ms (asks) | reopened ms (asks) | warm ms (asks) | done / unchanged / failed | ≤ 1 s (reopened, warm) |',
  '|---|---:|---:|---:|---:|---:|---|',
  ...rows.map((r) => {
    const worst = Math.max(median(r.reopened.map((x) => x.ms)), median(r.warm.map((x) => x.ms)));
    const o = r.outcome;
    return [
      `| db ${r.nodes.toExponential(0).replace('+', '')} (${r.mb.toFixed(0)} MB)`,
      `${r.moduleNodes} (\`${r.module}\`)`,
      `${ms(r.cold)} (${asks(r.cold)})`,
      `${ms(r.reopened)} (${asks(r.reopened)})`,
      `${ms(r.warm)} (${asks(r.warm)})`,
      `${o.done} / ${o.unchanged ?? 0} / ${o.failedTotal ?? o.failed.length}`,
      `${worst <= 1000 ? 'yes' : 'no'} |`,
    ].join(' | ');
  }),
  '',
  'Asks = the most requests one registration took (1 = answered at once; each 202 adds a 300 ms wait). Every cold run:',
  ...rows.map((r) => `${r.nodes.toExponential(0).replace('+', '')}: ${r.cold.map((x) => Math.round(x.ms)).join(', ')} ms; reopened ${r.reopened.map((x) => Math.round(x.ms)).join(', ')} ms; warm ${r.warm.map((x) => Math.round(x.ms)).join(', ')} ms; unmatched counts after the match ${JSON.stringify(r.counts)}.`),
  '',
]);
