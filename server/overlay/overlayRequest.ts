import type { Request } from 'express';
import { PRECISION_METRICS, type MatchOp, type MatchOpKind, type OverlaySaveRequest, type OverlaySummariesRequest, type PrecisionMetric } from '../../src/core/api/overlay.js';
import { HttpError } from '../http/httpError.js';

/**
 * Request bodies of the overlay routes, checked before any work: a bad body is a 400 naming the first problem
 * (`ops[3].npu: longer than 4096 characters`), never a 500 or a half-replayed overlay.
 */

/** Ops in one overlay: an undo history of single matches, or a config of a few thousand pairs. */
export const MAX_OPS = 20_000;
/** Node ids are dotted dump names, rarely 300 characters. */
export const MAX_ID_LENGTH = 4096;
/** What a request body may hold (MAX_OPS ops of long ids fit). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

const OP_KINDS: readonly MatchOpKind[] = ['match', 'unmatch', 'config'];

/** Ids in one `/api/overlay/summaries` request: every node a 10^5-node expanded view holds, with room. */
export const MAX_SUMMARY_IDS = 200_000;
/** Its body: MAX_SUMMARY_IDS ids of about 150 characters. */
export const MAX_SUMMARIES_BODY_BYTES = 32 * 1024 * 1024;

/** The JSON body, read up to `limit` bytes (the write guard has checked its Content-Type). */
export async function readJsonBody(req: Request, limit = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'bodyTooLarge', { limit: `${limit / 2 ** 20} MiB` });
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw bad(`not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

export interface ParsedOverlay {
  ops: MatchOp[];
  /** null = all four, the file's own index. */
  metrics: PrecisionMetric[] | null;
}

export function parseOverlayRequest(body: unknown): ParsedOverlay {
  const o = object(body, 'the body');
  onlyKeys(o, ['ops', 'metrics'], 'the body');
  if (!Array.isArray(o.ops)) throw bad('"ops" must be a list of {op, npu, bench, children}');
  if (o.ops.length > MAX_OPS) throw bad(`"ops" holds ${o.ops.length} operations, at most ${MAX_OPS} are accepted`);
  const ops = o.ops.map((raw, i): MatchOp => {
    const where = `ops[${i}]`;
    const op = object(raw, where);
    onlyKeys(op, ['op', 'npu', 'bench', 'children'], where);
    if (!OP_KINDS.includes(op.op as MatchOpKind)) throw bad(`${where}.op must be one of ${OP_KINDS.map((k) => `"${k}"`).join(', ')}`);
    if (op.children !== undefined && typeof op.children !== 'boolean') throw bad(`${where}.children must be true or false`);
    return { op: op.op as MatchOpKind, npu: nodeId(op.npu, `${where}.npu`), bench: nodeId(op.bench, `${where}.bench`), children: op.children === true };
  });
  return { ops, metrics: o.metrics === undefined ? null : parseMetrics(o.metrics) };
}

function parseMetrics(v: unknown): PrecisionMetric[] | null {
  if (!Array.isArray(v) || v.length === 0) throw bad(`"metrics" must be a non-empty list of ${PRECISION_METRICS.join(', ')}`);
  for (const m of v) {
    if (!PRECISION_METRICS.includes(m as PrecisionMetric)) throw bad(`"metrics": ${JSON.stringify(m).slice(0, 80)} is not one of ${PRECISION_METRICS.join(', ')}`);
  }
  // One canonical spelling, so equal choices share an overlay id; all four is the file's own index.
  const chosen = PRECISION_METRICS.filter((m) => v.includes(m));
  return chosen.length === PRECISION_METRICS.length ? null : chosen;
}

export function parseSaveRequest(body: unknown): OverlaySaveRequest {
  const o = object(body, 'the body');
  onlyKeys(o, ['mode', 'stamp', 'replace'], 'the body');
  if (o.mode !== 'copy' && o.mode !== 'overwrite') throw bad('"mode" must be "copy" or "overwrite"');
  if (typeof o.stamp !== 'string' || o.stamp === '' || o.stamp.length > 200) throw bad('"stamp" must be the stamp /api/graph/meta answered');
  if (o.replace !== undefined && typeof o.replace !== 'boolean') throw bad('"replace" must be true or false');
  return { mode: o.mode, stamp: o.stamp, replace: o.replace === true };
}

/** `POST /api/overlay/summaries` takes `{ ids, fields? }`: node ids, at most MAX_SUMMARY_IDS. */
export type ParsedSummaries = { fields: 'all' | 'precision' } & ({ ids: string[]; view: null } | { ids: null; view: string });

export function parseSummariesRequest(body: unknown): ParsedSummaries {
  const o = object(body, 'the body');
  onlyKeys(o, ['ids', 'view', 'fields'], 'the body');
  const fields = o.fields ?? 'all';
  if (fields !== 'all' && fields !== 'precision') throw bad('"fields" must be "all" or "precision"');
  if (o.view !== undefined) {
    if (o.ids !== undefined) throw bad('give "ids" or "view", not both');
    if (typeof o.view !== 'string' || o.view === '' || o.view.length > 64) throw bad('"view" must be a key from an earlier answer');
    return { ids: null, view: o.view, fields };
  }
  if (!Array.isArray(o.ids)) throw bad('"ids" must be a list of node ids');
  if (o.ids.length > MAX_SUMMARY_IDS) throw bad(`"ids" holds ${o.ids.length} ids, at most ${MAX_SUMMARY_IDS} are accepted`);
  for (let i = 0; i < o.ids.length; i++) if (typeof o.ids[i] !== 'string' || o.ids[i] === '' || o.ids[i].length > MAX_ID_LENGTH) nodeId(o.ids[i], `ids[${i}]`);
  return { ids: o.ids as string[], view: null, fields };
}

/** `POST /api/overlay/export` takes `{}` (room for options later, and a JSON body for the write guard). */
export function parseExportRequest(body: unknown): void {
  onlyKeys(object(body, 'the body'), [], 'the body');
}

function nodeId(v: unknown, where: string): string {
  if (typeof v !== 'string' || v === '') throw bad(`${where} must be a node id (a non-empty string)`);
  if (v.length > MAX_ID_LENGTH) throw bad(`${where}: longer than ${MAX_ID_LENGTH} characters`);
  return v;
}

function object(v: unknown, where: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(`${where} must be a JSON object`);
  return v as Record<string, unknown>;
}

function onlyKeys(o: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw bad(`${where}: unknown key ${JSON.stringify(k).slice(0, 80)}`);
}

function bad(problem: string): HttpError {
  return new HttpError(400, 'badBody', { problem });
}
