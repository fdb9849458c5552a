import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildrenResponse, NodeDetail, RunsResponse } from '../../src/core/api/types.js';
import { tbType } from '../../src/core/formats/tb/protos.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { rawGet, tagsOf } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { concat, detailsEventFile, event, frame, graphDef, LABEL, LONG_NOTE, onnxModel, recordOffset, runMetadata, unknownVarint } from '../helpers/tbEncode.js';

/**
 * Issue 16's bad input through the real server, on files encoded with protobufjs (test/helpers/tbEncode.ts): a bad
 * CRC and a truncated record after a good graph, unknown fields, a newer ONNX IR version, a GraphDef with a missing
 * input and a cycle, 0-byte files. Each damaged file is listed with one line naming it and the offset; the records
 * before the damage, the other files and the server keep working; a file that opens with a reader's note lists it.
 * Also the node details' `tb` block with the event file's run metadata.
 */
let tmp: string;
let logdir: string;
let served: ServedApp;
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
const get = (p: string) => rawGet(served.port, p);

const graphOf = (names: string[]) => graphDef({ node: names.map((name, i) => ({ name, op: 'Relu', input: i ? [names[i - 1]] : [] })) });
const okFrames = [frame(event({ wall_time: 1, file_version: 'brain.Event:2' })), frame(event({ wall_time: 2, step: 3, graph_def: graphOf(['a', 'b']) }))];
const afterFrame = frame(event({ wall_time: 4, step: 9, graph_def: graphOf(['late']) }));
const badCrc = (() => {
  const f = frame(event({ wall_time: 3, step: 4 }));
  f[f.length - 1] ^= 0xff;
  return f;
})();
const BAD_CRC_AT = recordOffset([...okFrames, badCrc], 2);

/** A NodeDef with a field from a newer writer, inside a GraphDef and an Event that carry one too. */
function withUnknownFields(): Uint8Array {
  const node = concat([tbType('NodeDef').encode({ name: 'n', op: 'Relu', input: ['m'] }).finish(), unknownVarint(111)]);
  const other = tbType('NodeDef').encode({ name: 'm', op: 'Placeholder' }).finish();
  const graph = concat([new Uint8Array([0x0a, other.length]), other, new Uint8Array([0x0a, node.length]), node, unknownVarint(99)]);
  return concat([frame(event({ wall_time: 1, file_version: 'brain.Event:2' })), frame(concat([event({ wall_time: 2, step: 1, graph_def: graph }), unknownVarint(100)]))]);
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-tbbad-'));
  logdir = path.join(tmp, 'logs');
  const put = (rel: string, data: Uint8Array | string) => {
    mkdirSync(path.dirname(path.join(logdir, rel)), { recursive: true });
    writeFileSync(path.join(logdir, rel), data);
  };
  put('bad/events.out.tfevents.1.crc', concat([...okFrames, badCrc, afterFrame]));
  const whole = frame(event({ wall_time: 3, step: 5, graph_def: graphOf(['c', 'd', 'e']) }));
  put('bad/events.out.tfevents.2.cut', concat([...okFrames, whole.subarray(0, whole.length - 10)]));
  put('bad/events.out.tfevents.3.unknown', withUnknownFields());
  put('bad/empty.pb', '');
  put('bad/empty.onnx', '');
  put('bad/events.out.tfevents.4.empty', '');
  put('bad/newer.onnx', concat([
    onnxModel({ ir_version: 99, graph: { node: [{ op_type: 'Relu', name: 'r', input: ['x'], output: ['y'] }], input: [{ name: 'x' }], output: [{ name: 'y' }] } }),
    unknownVarint(77),
  ]));
  // `a` reads a node no one defines; b and c read each other (a cycle).
  put('bad/loop.pb', graphDef({ node: [{ name: 'a', op: 'Relu', input: ['ghost'] }, { name: 'b', op: 'Add', input: ['a', 'c'] }, { name: 'c', op: 'Relu', input: ['b'] }] }));
  put('good/events.out.tfevents.5.details', detailsEventFile());
  const appDir = path.join(tmp, 'app');
  mkdirSync(appDir);
  writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><title>probeboard test app</title>');
  const stores = createStoreCache({ cacheDir: null, indexWorkerScript: null, findWorkerScript: null, tbWorkerScript: null });
  served = await serveApp(createApp({ logdir, appDir, lang: 'en', stores }));
});

afterAll(async () => {
  await served?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('damaged and unusual TensorBoard files', () => {
  it('lists the graphs before a bad CRC or a truncated record, and the file with one line naming the offset', async () => {
    const bad = tagsOf((await get('/api/runs')).json as RunsResponse, 'bad');
    const byTag = new Map(bad.map((t) => [t.tag, t]));
    expect(byTag.get('events.out.tfevents.1.crc#graph_def')).toMatchObject({ format: 'tfevents', step: 3, error: null });
    expect(byTag.get('events.out.tfevents.1.crc')?.error).toBe(`bad/events.out.tfevents.1.crc: bad data CRC at offset ${BAD_CRC_AT}`);
    // The scan stops at the damage: the graph written after it is not listed.
    expect(bad.filter((t) => t.tag.startsWith('events.out.tfevents.1.crc#'))).toHaveLength(1);
    const cutAt = recordOffset(okFrames, 2);
    expect(byTag.get('events.out.tfevents.2.cut#graph_def')).toMatchObject({ step: 3, error: null });
    expect(byTag.get('events.out.tfevents.2.cut')?.error).toMatch(new RegExp(`^bad/events\\.out\\.tfevents\\.2\\.cut: truncated record at offset ${cutAt} \\(`));
    for (const t of bad) if (t.error) expect(t.error, t.tag).not.toContain('\n');
    // The graphs before the damage open.
    for (const tag of ['events.out.tfevents.1.crc#graph_def', 'events.out.tfevents.2.cut#graph_def']) {
      const kids = await get(`/api/graph/children?${q({ run: 'bad', tag })}`);
      expect(kids.status, tag).toBe(200);
      expect((kids.json as ChildrenResponse).children.map((c) => c.id), tag).toEqual(['a', 'b']);
    }
  });

  it('lists 0-byte files with their problem before anyone opens them; opening one is a one-line 422', async () => {
    const bad = tagsOf((await get('/api/runs')).json as RunsResponse, 'bad');
    for (const name of ['empty.pb', 'empty.onnx', 'events.out.tfevents.4.empty'])
      expect(bad.find((t) => t.tag === name)?.error, name).toBe(`bad/${name}: empty file (0 bytes)`);
    const res = await get(`/api/graph/meta?${q({ run: 'bad', tag: 'empty.onnx' })}`);
    expect(res.status).toBe(422);
    expect(res.json.error).toMatch(/^bad\/empty\.onnx: [^\n]*empty/);
  });

  it('skips unknown fields of Event, GraphDef and NodeDef, and of a newer ONNX model', async () => {
    const bad = tagsOf((await get('/api/runs')).json as RunsResponse, 'bad');
    expect(bad.find((t) => t.tag === 'events.out.tfevents.3.unknown#graph_def')).toMatchObject({ step: 1, error: null });
    const n = await get(`/api/graph/node?${q({ run: 'bad', tag: 'events.out.tfevents.3.unknown#graph_def', node: 'n' })}`);
    expect(n.status).toBe(200);
    expect(Object.values((n.json as NodeDetail).inputData).map((i) => i.source)).toEqual(['m']);
    const onnx = await get(`/api/graph/children?${q({ run: 'bad', tag: 'newer.onnx' })}`);
    expect(onnx.status).toBe(200);
    expect((onnx.json as ChildrenResponse).children.map((c) => c.id)).toEqual(['x', 'r', 'y']);
    expect(bad.find((t) => t.tag === 'newer.onnx')?.error).toBeNull();
    // Once opened, the listing says what the reader noted, in one line naming the file, in the request's language.
    const after = tagsOf((await get('/api/runs')).json as RunsResponse, 'bad').find((t) => t.tag === 'newer.onnx');
    expect(after).toMatchObject({ error: null, note: 'bad/newer.onnx opens, with a note: ONNX IR version 99 is newer than 11; unknown fields were skipped' });
    const zh = tagsOf((await get('/api/runs?lang=zh-CN')).json as RunsResponse, 'bad').find((t) => t.tag === 'newer.onnx');
    expect(zh?.note).toBe('bad/newer.onnx 可以打开，但有提示：ONNX IR version 99 is newer than 11; unknown fields were skipped');
  });

  it('opens a GraphDef with a missing input and a cycle: the cycle is two edges, the missing input none', async () => {
    const kids = await get(`/api/graph/children?${q({ run: 'bad', tag: 'loop.pb' })}`);
    expect(kids.status).toBe(200);
    const edges = ((kids.json as ChildrenResponse).edges ?? []).map((e) => `${e.from}->${e.to}`).sort();
    expect(edges).toEqual(['a->b', 'b->c', 'c->b']);
    const a = await get(`/api/graph/node?${q({ run: 'bad', tag: 'loop.pb', node: 'a' })}`);
    expect(Object.values((a.json as NodeDetail).inputData)).toMatchObject([{ name: 'ghost', source: null }]);
    const listed = tagsOf((await get('/api/runs')).json as RunsResponse, 'bad').find((t) => t.tag === 'loop.pb');
    expect(listed).toMatchObject({ error: null, note: 'bad/loop.pb opens, with a note: node "a": input "ghost" names no node' });
  });

  it('keeps serving: the listing and a good file still answer after every bad one was opened', async () => {
    for (const tag of ['events.out.tfevents.1.crc', 'events.out.tfevents.4.empty', 'empty.pb', 'newer.onnx', 'loop.pb'])
      expect((await get(`/api/graph/meta?${q({ run: 'bad', tag })}`)).status, tag).toBeLessThan(500);
    expect((await get('/api/runs')).status).toBe(200);
    expect((await get(`/api/graph/meta?${q({ run: 'good', tag: 'events.out.tfevents.5.details#graph_def' })}`)).status).toBe(200);
  });
});

describe('node details of an event file graph', () => {
  const tag = 'events.out.tfevents.5.details#graph_def';

  it('answers op, device, attributes (long ones cut at 1,024 characters) and the run metadata of the node', async () => {
    const y = (await get(`/api/graph/node?${q({ run: 'good', tag, node: 'y' })}`)).json as NodeDetail;
    expect(y.tb).toMatchObject({ op: 'MatMul', device: '/device:CPU:0', kind: 'op' });
    expect(y.tb!.attrs.find((a) => a.key === 'label')).toEqual({ key: 'label', value: LABEL, fullSize: LABEL.length, truncated: false });
    expect(y.tb!.runStats).toEqual([
      {
        tag: 'step7',
        step: 7,
        device: '/job:localhost/replica:0/task:0/device:CPU:0',
        startMicros: 1000,
        opMicros: 40,
        allMicros: 50,
        memory: [{ allocator: 'cpu', totalBytes: 4096, peakBytes: 8192, liveBytes: 1024 }],
        outputs: [{ slot: 0, dtype: 'float32', shape: [2, 3] }],
        timelineLabel: 'y = MatMul(x, w)',
      },
    ]);
    const long = (await get(`/api/graph/node?${q({ run: 'good', tag, node: 'long' })}`)).json as NodeDetail;
    const note = long.tb!.attrs.find((a) => a.key === 'note')!;
    expect(note.truncated).toBe(true);
    // 1,024 characters of the value, then an ellipsis.
    expect(note.value).toBe(`${LONG_NOTE.slice(0, 1024)}…`);
    expect(note.fullSize).toBeGreaterThanOrEqual(LONG_NOTE.length);
    // Nodes without run metadata carry none.
    expect(long.tb!.runStats).toBeUndefined();
  });

  it('reads the run metadata a still-written file gains after the first read', async () => {
    const file = path.join(logdir, 'good/events.out.tfevents.6.grow');
    writeFileSync(file, detailsEventFile());
    const steps = async () => {
      const y = (await get(`/api/graph/node?${q({ run: 'good', tag: 'events.out.tfevents.6.grow#graph_def', node: 'y' })}`)).json as NodeDetail;
      return y.tb!.runStats!.map((r) => [r.tag, r.step, r.opMicros]);
    };
    expect(await steps()).toEqual([['step7', 7, 40]]);
    const rm = runMetadata({ step_stats: { dev_stats: [{ device: 'cpu', node_stats: [{ node_name: 'y', op_start_rel_micros: 1, op_end_rel_micros: 11 }] }] } });
    appendFileSync(file, frame(event({ wall_time: 9, step: 8, tagged_run_metadata: { tag: 'step8', run_metadata: rm } })));
    expect(await steps()).toEqual([['step7', 7, 40], ['step8', 8, 10]]);
  });
});
