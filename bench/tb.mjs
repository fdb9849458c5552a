#!/usr/bin/env node
// node bench/tb.mjs [--cases graphdef,events,browser] [--work DIR] [--bin FILE] [--repeat 5] [--expand-repeat 20]
//                   [--event-mb 500] [--results FILE] [--chromium PATH]
//
// TensorBoard-side graphs at scale (issue 16). Generates, with protobufjs from our own tensorboard.proto:
//   - model.pb: a 100,000-node GraphDef of a deep model — 96 encoder layers (attention, layer norms, 42 MoE experts,
//     `add_1 … add_40` series), control inputs, `T` / `_output_shapes` attributes on every node — and one scope,
//     model/head, holding 1,000 ops directly (op types cycle, so no series folds them);
//   - events.out.tfevents.*: that graph as the `graph_def` of an event file followed by one-scalar events up to
//     --event-mb MB (as SummaryWriter writes them).
// Measures, with `probeboard serve` (this build or --bin) in a child process:
//   graphdef — cold open: /api/runs lists the file → the first 200 answer of /api/graph/children for the root
//              (decode + hierarchy, 202s meanwhile; then the same on a server restarted on that cache directory);
//              meanwhile a probe request every 20 ms (meta of a tiny graph,
//              answered from memory) whose worst latency is the server's longest event-loop stall; peak RSS;
//   events   — the same for the event file: listing (the whole file scanned), open, stall and peak RSS (its scalars
//              must not be read into memory: compare with the GraphDef alone);
//   browser  — headless Chromium through playwright-core: first paint (navigation to the graph's link, cold server →
//              the root's children drawn; then a server restarted on the same cache directory, which keeps the
//              decoded graph: server/store/tbGraph/tbDiskCache.ts) and expand of model/head (double click → its
//              children drawn, edges too when the viewer draws them), p50 / p95.
// Writes bench/results/tb.md. Targets (issue 16): decode + first paint ≤ 2 s; expand p50 ≤ 150 ms including edge
// layout; (this benchmark) probe latency ≤ 100 ms while a graph opens.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { benchCommandLine, generatedOnce, machineLine, median, startServer, writeResults } from './lib/benchKit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CASES = [{ id: 'graphdef' }, { id: 'events' }, { id: 'browser' }];
const { args, fail, selected, bin, work } = benchCommandLine('tb', repo, CASES, {
  repeat: { type: 'string', default: '5' },
  'expand-repeat': { type: 'string', default: '20' },
  'event-mb': { type: 'string', default: '500' },
  chromium: { type: 'string', default: process.env.PROBEBOARD_CHROMIUM ?? '/usr/bin/chromium' },
});
const repeat = Number(args.repeat);
const expandRepeat = Number(args['expand-repeat']);
const eventMb = Number(args['event-mb']);
if (!existsSync(bin)) fail(`${bin} is missing: run "npm run build" first`);

// ---------------------------------------------------------------------------------------------------------------
// Generation

const LAYERS = 96;
const EXPERTS = 42;
const HEAD_OPS = 1000;
const HEAD = 'model/head';
const ROOT_CHILDREN = ['input', 'model', 'loss', 'global_step', 'save'];
const DEVICE = '/job:localhost/replica:0/task:0/device:GPU:0';
const DT_FLOAT = 1;

const proto = protobuf.parse(readFileSync(path.join(repo, 'src/core/formats/tb/proto/tensorboard.proto'), 'utf8'), { keepCase: true }).root;
const GraphDef = proto.lookupType('tensorboard.GraphDef');
const Event = proto.lookupType('tensorboard.Event');

/** The GraphDef's nodes as protobufjs objects. */
function modelNodes() {
  /** @type {any[]} */
  const nodes = [];
  const shapeAttr = (dims) => ({ list: { shape: [{ dim: dims.map((size) => ({ size })) }] } });
  const HIDDEN = [-1, 128, 1024];
  const add = (name, op, input = [], dims = HIDDEN) => {
    nodes.push({ name, op, input, device: DEVICE, attr: { T: { type: DT_FLOAT }, _output_shapes: shapeAttr(dims) } });
    return name;
  };
  /** A chain of ops in a scope, the first fed by `from`; returns the last. */
  const chain = (scope, ops, from, extra = []) => {
    let prev = from;
    for (const [i, [name, op]] of ops.entries()) prev = add(`${scope}/${name}`, op, i === 0 ? [prev, ...extra] : [prev]);
    return prev;
  };
  const dense = (scope, from) => {
    const kernel = add(`${scope}/kernel`, 'VarHandleOp', [], [1024, 1024]);
    const k = add(`${scope}/MatMul/ReadVariableOp`, 'ReadVariableOp', [kernel], [1024, 1024]);
    const bias = add(`${scope}/bias`, 'VarHandleOp', [], [1024]);
    const b = add(`${scope}/BiasAdd/ReadVariableOp`, 'ReadVariableOp', [bias], [1024]);
    const mm = add(`${scope}/MatMul`, 'MatMul', [from, k]);
    return add(`${scope}/BiasAdd`, 'BiasAdd', [mm, b]);
  };
  const layerNorm = (scope, from) => {
    const mean = add(`${scope}/moments/mean`, 'Mean', [from]);
    const sg = add(`${scope}/moments/StopGradient`, 'StopGradient', [mean]);
    const sq = add(`${scope}/moments/SquaredDifference`, 'SquaredDifference', [from, sg]);
    const v = add(`${scope}/moments/variance`, 'Mean', [sq]);
    const eps = add(`${scope}/batchnorm/add/y`, 'Const', [], []);
    const a = add(`${scope}/batchnorm/add`, 'AddV2', [v, eps]);
    const r = add(`${scope}/batchnorm/Rsqrt`, 'Rsqrt', [a]);
    const gamma = add(`${scope}/gamma`, 'VarHandleOp', [], [1024]);
    const m = add(`${scope}/batchnorm/mul`, 'Mul', [r, gamma]);
    const m1 = add(`${scope}/batchnorm/mul_1`, 'Mul', [from, m]);
    const m2 = add(`${scope}/batchnorm/mul_2`, 'Mul', [mean, m]);
    const beta = add(`${scope}/beta`, 'VarHandleOp', [], [1024]);
    const s = add(`${scope}/batchnorm/sub`, 'Sub', [beta, m2]);
    return add(`${scope}/batchnorm/add_1`, 'AddV2', [m1, s]);
  };
  const step = add('global_step', 'VarHandleOp', [], []);
  let x = chain('input', [['IteratorGetNext', 'IteratorGetNext'], ['Cast', 'Cast'], ['embedding/Gather', 'GatherV2'], ['embedding/mul', 'Mul']], '');
  nodes[nodes.length - 4].input = [];
  for (let l = 0; l < LAYERS; l++) {
    const L = `model/encoder/layer_${l}`;
    const att = `${L}/attention/self`;
    const q = dense(`${att}/query`, x);
    const k = dense(`${att}/key`, x);
    const v = dense(`${att}/value`, x);
    let s = chain(att, [['Reshape', 'Reshape'], ['transpose', 'Transpose']], q);
    const kt = chain(att, [['Reshape_1', 'Reshape'], ['transpose_1', 'Transpose']], k);
    const vt = chain(att, [['Reshape_2', 'Reshape'], ['transpose_2', 'Transpose']], v);
    s = add(`${att}/MatMul`, 'BatchMatMulV2', [s, kt]);
    s = add(`${att}/Mul`, 'Mul', [s]);
    s = add(`${att}/add`, 'AddV2', [s]);
    // The masks and position terms: TensorFlow's add_1 … add_40 and mul_1 … mul_40 (series add[0-40], mul[1-40]).
    for (let i = 1; i <= 40; i++) s = add(`${att}/add_${i}`, 'AddV2', [s]);
    for (let i = 1; i <= 40; i++) s = add(`${att}/mul_${i}`, 'Mul', [s]);
    s = add(`${att}/Softmax`, 'Softmax', [s]);
    s = chain(`${att}/dropout`, [['rate', 'Const'], ['random_uniform', 'RandomUniform'], ['GreaterEqual', 'GreaterEqual'], ['Cast', 'Cast'], ['mul', 'Mul']], s, [`^${step}`]);
    s = add(`${att}/MatMul_1`, 'BatchMatMulV2', [s, vt]);
    s = chain(att, [['transpose_3', 'Transpose'], ['Reshape_3', 'Reshape']], s);
    s = dense(`${L}/attention/output/dense`, s);
    s = add(`${L}/attention/output/add`, 'AddV2', [s, x]);
    x = layerNorm(`${L}/attention/output/LayerNorm`, s);
    // Mixture of experts: a router and EXPERTS experts of a dense in, gelu and a dense out (series expert[0-41]).
    const router = add(`${L}/moe/router/Softmax`, 'Softmax', [dense(`${L}/moe/router`, x)]);
    const outs = [];
    for (let e = 0; e < EXPERTS; e++) {
      const E = `${L}/moe/expert_${e}`;
      let h = dense(`${E}/dense_in`, x);
      h = chain(`${E}/gelu`, [['Pow', 'Pow'], ['mul', 'Mul'], ['add', 'AddV2'], ['mul_1', 'Mul'], ['Tanh', 'Tanh'], ['add_1', 'AddV2'], ['mul_2', 'Mul'], ['mul_3', 'Mul']], h);
      h = dense(`${E}/dense_out`, h);
      outs.push(add(`${E}/gate`, 'Mul', [h, router]));
    }
    s = add(`${L}/moe/AddN`, 'AddN', outs);
    s = add(`${L}/output/add`, 'AddV2', [s, x]);
    // The next layer waits for this one's step counter read (a control input, drawn dashed).
    x = add(`${L}/output/Identity`, 'Identity', [layerNorm(`${L}/output/LayerNorm`, s), `^${step}`]);
  }
  // model/head: HEAD_OPS ops directly in one scope, op types cycling so that no series folds them; a chain with skips.
  const TYPES = ['MatMul', 'AddV2', 'Relu', 'Mul', 'Sub', 'Tanh', 'Sigmoid'];
  for (let i = 0; i < HEAD_OPS; i++) {
    const input = [i === 0 ? x : `${HEAD}/node_${i - 1}`];
    if (i >= 5 && i % 3 === 0) input.push(`${HEAD}/node_${i - 5}`);
    if (i % 50 === 0) input.push(`^${step}`);
    add(`${HEAD}/node_${i}`, TYPES[i % TYPES.length], input);
  }
  const logits = `${HEAD}/node_${HEAD_OPS - 1}`;
  chain('loss', [['SparseSoftmaxCrossEntropyWithLogits', 'SparseSoftmaxCrossEntropyWithLogits'], ['Mean', 'Mean']], logits);
  chain('save', [['Const', 'Const'], ['SaveV2', 'SaveV2']], step);
  return nodes;
}

function crcTable() {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}
const CRC = crcTable();
/** TFRecord's masked CRC-32C (src/core/formats/tb/crc32c.ts), bytewise: only a template's records are checked. */
function maskedCrc(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  c = (c ^ 0xffffffff) >>> 0;
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}
function tfRecord(data) {
  const out = Buffer.alloc(16 + data.length);
  out.writeUInt32LE(data.length, 0);
  out.writeUInt32LE(0, 4);
  out.writeUInt32LE(maskedCrc(out.subarray(0, 8)), 8);
  out.set(data, 12);
  out.writeUInt32LE(maskedCrc(data), 12 + data.length);
  return out;
}
/** One SummaryWriter scalar event: wall_time, step, summary { value { tag, simple_value } } (field 5, not in our proto). */
function scalarEvent(stepNo, tag, value) {
  const value_ = protobuf.Writer.create().uint32((1 << 3) | 2).string(tag).uint32((2 << 3) | 5).float(value).finish();
  const summary = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(value_).finish();
  return protobuf.Writer.create().uint32((1 << 3) | 1).double(1.7e9 + stepNo).uint32((2 << 3) | 0).int64(stepNo).uint32((5 << 3) | 2).bytes(summary).finish();
}

function generate(dir) {
  mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const nodes = modelNodes();
  const bytes = GraphDef.encode({ node: nodes, versions: { producer: 1087 } }).finish();
  writeFileSync(path.join(dir, 'logs/model.pb'), bytes);
  writeFileSync(path.join(dir, 'logs/tiny.pbtxt'), 'node { name: "x" op: "Const" }\nnode { name: "y" op: "Neg" input: "x" }\n');
  // The event file in its own log dir: the same graph at step 0, then scalars.
  mkdirSync(path.join(dir, 'events'), { recursive: true });
  writeFileSync(path.join(dir, 'events/tiny.pbtxt'), 'node { name: "x" op: "Const" }\n');
  const file = path.join(dir, 'events/events.out.tfevents.1795000000.bench.1.0');
  const fd = openSync(file, 'w');
  writeSync(fd, tfRecord(Event.encode({ wall_time: 1.7e9, file_version: 'brain.Event:2' }).finish()));
  writeSync(fd, tfRecord(Event.encode({ wall_time: 1.7e9, step: 0, graph_def: bytes }).finish()));
  // A block of 20,000 scalar records (4 tags), written again and again: the reader checks every CRC regardless.
  const block = [];
  for (let i = 0; i < 20_000; i++) block.push(tfRecord(scalarEvent(i, ['loss/train', 'loss/eval', 'lr', 'grad_norm'][i % 4], Math.random())));
  const chunk = Buffer.concat(block);
  let written = statSync(file).size;
  let scalars = 0;
  while (written + chunk.length <= eventMb * 1e6) {
    writeSync(fd, chunk);
    written += chunk.length;
    scalars += block.length;
  }
  closeSync(fd);
  return { nodes: nodes.length, pbBytes: bytes.length, eventBytes: written, scalars };
}

const gen = generatedOnce(path.join(work, 'files'), `v1:${LAYERS}:${EXPERTS}:${HEAD_OPS}:${eventMb}`, () => generate(path.join(work, 'files')));
const files = path.join(work, 'files');
console.error(`model.pb: ${gen.nodes} nodes, ${(gen.pbBytes / 1e6).toFixed(1)} MB; event file ${(gen.eventBytes / 1e6).toFixed(0)} MB, ${gen.scalars} scalars${gen.reused ? ' (reused)' : ''}`);

// ---------------------------------------------------------------------------------------------------------------
// Server side

/**
 * GET → status and parsed body, with its latency. A connection each (no keep-alive): a reused socket that the server
 * closes while idle would reset a request that raced it.
 */
function get(port, p) {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json = null;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON: the status is what counts
          }
          resolve({ status: res.statusCode ?? 0, json, ms: performance.now() - t0 });
        });
      })
      .on('error', reject);
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const q = (o) => new URLSearchParams(o).toString();

/** Until /api/runs lists `tag` (run "."), s. */
async function waitListed(port, tag) {
  const t0 = performance.now();
  for (;;) {
    const r = await get(port, '/api/runs');
    const entry = r.json?.runs?.find((x) => x.run === '.')?.tags?.find((t) => t.tag === tag);
    if (entry?.error) throw new Error(`${tag}: ${entry.error}`);
    if (entry) return (performance.now() - t0) / 1000;
    await sleep(50);
  }
}

/**
 * A request every 20 ms (the next one 20 ms after the previous one was sent, or at once when it took longer) until
 * `stop()`; the worst latency and the count.
 */
function probe(port, p) {
  let running = true;
  const lat = [];
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      const r = await get(port, p);
      if (r.status !== 200) throw new Error(`probe ${p}: ${r.status}`);
      lat.push(r.ms);
      await sleep(Math.max(0, 20 - (performance.now() - t0)));
    }
  })();
  return async () => {
    running = false;
    await done;
    return { max: Math.max(...lat), n: lat.length, p50: median(lat) };
  };
}

/**
 * User + system CPU seconds of the main thread of this process's one child (the server started last), from /proc:
 * the thread whose id is the process id.
 */
function mainThreadCpu() {
  const kids = readFileSync(`/proc/self/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  const pid = kids.at(-1);
  return () => {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
}

/** A cold server: /api/runs lists `tag` → children of the root answered 200, probing meanwhile. */
async function coldOpen(logdir, tag, repIndex) {
  const cacheDir = path.join(work, `cache-${repIndex}`);
  rmSync(cacheDir, { recursive: true, force: true });
  const server = await startServer(bin, logdir, cacheDir);
  try {
    // The listing scans an event file whole in the server's thread, in chunks: probed too (the app's page).
    const stopListing = probe(server.port, '/');
    const listS = await waitListed(server.port, tag);
    const listStall = await stopListing();
    const probeQ = `/api/graph/meta?${q({ run: '.', tag: 'tiny.pbtxt' })}`;
    if ((await get(server.port, probeQ)).status !== 200) throw new Error('the probe graph does not open');
    const rssBefore = server.peakRssMb();
    // CPU the server's own thread spends while the graph opens: what it cannot spend answering others, whatever the
    // machine's load does to the probes' latencies.
    const mainCpu = mainThreadCpu();
    const cpu0 = mainCpu();
    const stop = probe(server.port, probeQ);
    const t0 = performance.now();
    let first;
    for (;;) {
      const r = await get(server.port, `/api/graph/children?${q({ run: '.', tag, side: 'npu' })}`);
      if (r.status === 200) {
        first = r.json;
        break;
      }
      if (r.status !== 202) throw new Error(`children: ${r.status} ${JSON.stringify(r.json)}`);
      await sleep(25);
    }
    const openS = (performance.now() - t0) / 1000;
    // Then an op's details (they may follow the structure), probing all along, and a little after: a stall right
    // after an answer counts too.
    for (;;) {
      const r = await get(server.port, `/api/graph/node?${q({ run: '.', tag, side: 'npu', node: `${HEAD}/node_0` })}`);
      if (r.status === 200) break;
      if (r.status !== 202) throw new Error(`node: ${r.status} ${JSON.stringify(r.json)}`);
      await sleep(25);
    }
    const detailsS = (performance.now() - t0) / 1000;
    await sleep(300);
    const stall = await stop();
    const mainCpuS = mainCpu() - cpu0;
    const ids = first.children.map((c) => c.id);
    const expected = ROOT_CHILDREN.filter((c) => !ids.includes(c));
    if (expected.length) throw new Error(`root children lack ${expected.join(', ')}: ${ids.join(', ')}`);
    const meta = await get(server.port, `/api/graph/meta?${q({ run: '.', tag })}`);
    const head = await get(server.port, `/api/graph/children?${q({ run: '.', tag, side: 'npu', node: HEAD })}`);
    if (head.json?.total !== HEAD_OPS) throw new Error(`${HEAD}: ${head.status} ${head.json?.total} children`);
    const result = { listS, listStallMs: listStall.max, openS, detailsS, stallMs: stall.max, mainCpuS, probes: stall.n, rssMb: server.peakRssMb(), rssBeforeMb: rssBefore, nodes: meta.json.nodeCounts.npu, headMs: head.ms, headBytes: JSON.stringify(head.json).length, headEdges: head.json.edges?.length ?? 0 };
    await server.stop();
    return { ...result, cachedOpenS: await cachedOpen(logdir, tag, cacheDir) };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

/** A server restarted on the cache directory a cold open filled: listed → the root's children answered, s. */
async function cachedOpen(logdir, tag, cacheDir) {
  const server = await startServer(bin, logdir, cacheDir);
  try {
    await waitListed(server.port, tag);
    const t0 = performance.now();
    while ((await get(server.port, `/api/graph/children?${q({ run: '.', tag, side: 'npu' })}`)).status === 202) await sleep(25);
    return (performance.now() - t0) / 1000;
  } finally {
    await server.stop();
  }
}

const spread = (xs, d = 2) => `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})`;
const lines = [
  '# TensorBoard graphs at 10^5 nodes (bench/tb.mjs)',
  '',
  `${machineLine()}. Build: \`${path.relative(repo, bin) || bin}\`. model.pb: ${gen.nodes.toLocaleString('en')} nodes (96 layers, 42 experts each, series, control inputs), ${(gen.pbBytes / 1e6).toFixed(1)} MB; event file: that graph + ${gen.scalars.toLocaleString('en')} scalars, ${(gen.eventBytes / 1e6).toFixed(0)} MB. Median of ${repeat} cold servers (min–max).`,
  '',
];

async function serverCase(logdir, tag, label) {
  const reps = [];
  for (let i = 0; i < repeat; i++) {
    const r = await coldOpen(logdir, tag, i);
    console.error(`${label} #${i + 1}: ${JSON.stringify(r)}`);
    reps.push(r);
  }
  return reps;
}

const serverRows = [];
if (selected.some((c) => c.id === 'graphdef')) serverRows.push(['model.pb', await serverCase(path.join(files, 'logs'), 'model.pb', 'graphdef')]);
if (selected.some((c) => c.id === 'events')) {
  const tag = `${path.basename(path.join(files, 'events/events.out.tfevents.1795000000.bench.1.0'))}#graph_def`;
  serverRows.push([`event file ${(gen.eventBytes / 1e6).toFixed(0)} MB`, await serverCase(path.join(files, 'events'), tag, 'events')]);
}
if (serverRows.length) {
  lines.push(
    '## Server: cold open',
    '',
    'listed = /api/runs names the graph (an event file: scanned whole; "stall" = worst latency of a GET / every 20 ms meanwhile); open = from then to the first 200 answer of the root\'s',
    '/api/graph/children (decode + hierarchy in the worker thread, 202 meanwhile); details = to the first 200 answer of an op\'s',
    '/api/graph/node; stall = worst latency of a request sent every 20 ms meanwhile (meta of a tiny graph, answered from memory)',
    'until 0.3 s after the details, and the CPU the server\'s own thread used meanwhile (/proc: what it could not spend on others,',
    'whatever the machine\'s load does to latencies); RSS = the server\'s peak (VmHWM, worker threads included), before opening and after;',
    `${HEAD} = its children answer (1,000 ops and their edges) once open.`,
    '',
    '| file | nodes | listed s | stall while listing ms | open s | open (cache) s | details s | stall (max probe) ms | server thread CPU s | probes | peak RSS before → after MB | model/head answer ms | bytes | edges |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...serverRows.map(([label, reps]) => {
      const m = (k) => reps.map((r) => r[k]);
      return `| ${label} | ${reps[0].nodes} | ${spread(m('listS'))} | ${spread(m('listStallMs'), 0)} | ${spread(m('openS'))} | ${spread(m('cachedOpenS'))} | ${spread(m('detailsS'))} | ${spread(m('stallMs'), 0)} | ${spread(m('mainCpuS'))} | ${median(m('probes'))} | ${median(m('rssBeforeMb')).toFixed(0)} → ${median(m('rssMb')).toFixed(0)} | ${median(m('headMs')).toFixed(0)} | ${median(m('headBytes'))} | ${reps[0].headEdges} |`;
    }),
    '',
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Browser

const pct = (list, p) => {
  const s = [...list].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function browserCase() {
  if (!existsSync(args.chromium)) fail(`${args.chromium} is missing (apt-get install -y chromium)`);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: args.chromium,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const logdir = path.join(files, 'logs');
  const link = (origin, node) => `${origin}/#graphs?run=.&tag=model.pb${node ? `&side=npu&node=${encodeURIComponent(node)}` : ''}`;
  const rootDrawn = (ids) =>
    ids.every((id) => document.querySelector(`[data-testid="pane-npu"] [data-node-id="${CSS.escape(id)}"]`)) ? performance.now() : false;
  const paints = [];
  const warm = [];
  const restarted = [];
  const expands = [];
  try {
    for (let i = 0; i < repeat; i++) {
      const cacheDir = path.join(work, `cache-browser-${i}`);
      rmSync(cacheDir, { recursive: true, force: true });
      const server = await startServer(bin, logdir, cacheDir);
      try {
        const origin = `http://127.0.0.1:${server.port}`;
        await waitListed(server.port, 'model.pb');
        const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
        const page = await context.newPage();
        page.on('pageerror', (e) => console.error(`  page error: ${e.message}`));
        // Cold: the first request for the graph is the page's.
        await page.goto(link(origin));
        paints.push(await paintTime(page, rootDrawn));
        // Warm: the graph is open on the server, its op details too (they follow the structure); a fresh page.
        while ((await get(server.port, `/api/graph/node?${q({ run: '.', tag: 'model.pb', side: 'npu', node: `${HEAD}/node_0` })}`)).status === 202) await sleep(100);
        await page.goto('about:blank');
        await page.goto(link(origin));
        warm.push(await paintTime(page, rootDrawn));
        await context.close();
        if (i === 0) {
          for (let k = 0; k < expandRepeat; k++) expands.push(await expandOnce(browser, link(origin, HEAD)));
        }
      } finally {
        await server.stop();
      }
      // A server restarted on the same cache directory: the graph is read from the cache, not decoded.
      const again = await startServer(bin, logdir, cacheDir);
      try {
        await waitListed(again.port, 'model.pb');
        const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
        const page = await context.newPage();
        await page.goto(link(`http://127.0.0.1:${again.port}`));
        restarted.push(await paintTime(page, rootDrawn));
        await context.close();
      } finally {
        await again.stop();
      }
      console.error(`browser #${i + 1}: first paint ${paints.at(-1)?.toFixed(0)} ms, warm ${warm.at(-1)?.toFixed(0)} ms, restarted server ${restarted.at(-1)?.toFixed(0)} ms`);
    }
  } finally {
    await browser.close();
  }
  return { paints, warm, restarted, expands };
}

/** The frame the root's children were first found drawn in, ms since navigation (the page's clock). */
async function paintTime(page, rootDrawn) {
  const handle = await page.waitForFunction(rootDrawn, ROOT_CHILDREN, { timeout: 60_000, polling: 'raf' });
  return Number(await handle.jsonValue());
}

/**
 * Double click on `clickSel` → ms until `doneSel` (CSS) matches in the pane and the next frame ran; then, for up to
 * `edgeGraceMs` more, until an edge whose source is inside `edgePrefix` is drawn (null: none came).
 */
function timeExpand(page, clickSel, doneSel, edgePrefix, edgeGraceMs) {
  return page.evaluate(
    ([clickSel, doneSel, edgePrefix, edgeGraceMs]) =>
      new Promise((resolve, reject) => {
        const pane = document.querySelector('[data-testid="pane-npu"]');
        const el = pane?.querySelector(clickSel);
        if (!el) return reject(new Error(`missing ${clickSel}`));
        const edges = () => [...pane.querySelectorAll('[data-edge]')].filter((e) => (e.getAttribute('data-from') ?? '').startsWith(edgePrefix)).length;
        const t0 = performance.now();
        let drawn = null;
        let timer;
        const finish = (edgeMs) => {
          observer.disconnect();
          clearTimeout(timer);
          requestAnimationFrame(() => resolve({ ms: drawn, edgeMs, edges: edges(), nodes: pane.querySelectorAll(doneSel).length }));
        };
        const check = () => {
          if (drawn === null && pane.querySelector(doneSel)) {
            drawn = performance.now() - t0;
            clearTimeout(timer);
            timer = setTimeout(() => finish(null), edgeGraceMs);
          }
          if (drawn !== null && edges() > 0) finish(performance.now() - t0);
        };
        const observer = new MutationObserver(check);
        timer = setTimeout(() => {
          observer.disconnect();
          reject(new Error(`timeout waiting for ${doneSel}`));
        }, 30_000);
        observer.observe(pane, { subtree: true, childList: true, attributes: true });
        el.dispatchEvent(new MouseEvent('dblclick', { bubbles: true, cancelable: true }));
        check();
      }),
    [clickSel, doneSel, edgePrefix, edgeGraceMs],
  );
}

const EDGE_GRACE_MS = 2000;

/**
 * A fresh page on the link that selects model/head, a double click on it → its children (or, for a group the viewer
 * splits, its sub-group boxes) drawn; then, when split, a double click on the [400-799] sub-group → its ops drawn.
 * Each also waits up to EDGE_GRACE_MS for the edges among model/head's ops.
 */
async function expandOnce(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  await page.goto(url);
  const head = `[data-node-id="${HEAD}"]`;
  await page.waitForSelector(`[data-testid="pane-npu"] ${head}[data-selected="true"]`, { timeout: 60_000 });
  const kids = `[data-node-id^="${HEAD}/"], [data-split-of="${HEAD}"]`;
  const expand = await timeExpand(page, head, kids, `${HEAD}/`, EDGE_GRACE_MS);
  let split = null;
  const sub = `[data-split-of="${HEAD}"][data-split="400-799"]`;
  if (await page.$(`[data-testid="pane-npu"] ${sub}`)) split = await timeExpand(page, sub, `[data-node-id^="${HEAD}/node_4"]`, `${HEAD}/`, EDGE_GRACE_MS);
  await context.close();
  return { expand, split };
}

if (selected.some((c) => c.id === 'browser')) {
  const b = await browserCase();
  const ex = b.expands.map((e) => e.expand);
  const sp = b.expands.map((e) => e.split).filter(Boolean);
  const edgeMs = [...ex, ...sp].map((e) => e.edgeMs).filter((x) => x !== null);
  const p5095 = (xs) => (xs.length ? `${median(xs).toFixed(0)} / ${pct(xs, 95).toFixed(0)}` : '—');
  lines.push(
    '## Viewer: first paint and expand (headless Chromium, 1600×1000)',
    '',
    "first paint = navigation to `#graphs?run=.&tag=model.pb` on a cold server → the root's children (input, model, loss,",
    'global_step, save) in the DOM: decode + hierarchy + first layout and draw; warm = the same on a fresh page once the',
    'server holds the graph; restarted = the same on a new server on the cache directory the cold one filled (no decode).',
    `Expand = a fresh page on the link selecting ${HEAD}, double click → its children in the DOM`,
    '(a group with dataflow of up to 2,000 children is drawn whole; an older build drew sub-groups of 400) and the frame',
    `after; sub-group = then, on a build that splits, a double click on its [400-799] sub-group → its ops drawn; edges =`,
    `until an edge from one of ${HEAD}'s ops is drawn (waited for ${EDGE_GRACE_MS} ms after the nodes). ${b.expands.length} pages.`,
    '',
    '| case | ms |',
    '|---|---:|',
    `| first paint, cold (median of ${b.paints.length}, min–max) | ${spread(b.paints, 0)} |`,
    `| first paint, restarted server with its cache | ${spread(b.restarted, 0)} |`,
    `| first paint, warm | ${spread(b.warm, 0)} |`,
    `| expand ${HEAD} (1,000 ops) → children drawn, p50 / p95 | ${p5095(ex.map((e) => e.ms))} |`,
    `| expand its [400-799] sub-group → ops drawn, p50 / p95 | ${p5095(sp.map((e) => e.ms))} |`,
    `| … → edges among the ops drawn, p50 / p95 | ${edgeMs.length ? p5095(edgeMs) : 'not drawn by this build'} |`,
    '',
    `Elements after the expand: ${ex[0]?.nodes ?? 0} children / sub-groups; after the sub-group's: ${sp[0]?.nodes ?? 0} of its ops in view, ${sp[0]?.edges ?? ex[0]?.edges ?? 0} edges from ${HEAD}'s ops.`,
    '',
  );
}

lines.push('Targets (issue 16): decode + first paint of the 100,000-node GraphDef ≤ 2 s; expand of a 1,000-node scope p50 ≤ 150 ms including edge layout. This benchmark: probe latency ≤ 100 ms while a graph opens.', '');
writeResults(String(args.results), lines);
