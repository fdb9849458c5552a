import { Router, type Request } from 'express';
import type { Side } from '../../../src/core/api/types.js';
import { resolveGraphFile } from '../../logdir/resolveGraphFile.js';
import { GraphFileError, type GraphStore } from '../../store/graphStore.js';
import { DbNotSupportedError, type GraphFileRef } from '../../store/openStore.js';
import type { AppContext } from '../appContext.js';
import { HttpError } from '../httpError.js';

/** `/api/graph/{meta,children,node}`: one file per request, named by `run` + `tag` (+ optional `format=vis|db`). */
export function graphRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/api/graph/meta', (req, res) => {
    res.json(openGraph(ctx, req).store.meta());
  });

  router.get('/api/graph/children', (req, res) => {
    const { store, ref } = openGraph(ctx, req);
    const side = sideParam(req, store, ref);
    // `node=` (empty) means the root, like omitting it.
    const nodeId = optionalString(req, 'node') || undefined;
    const micro = microParam(req);
    const children = store.children({ side, nodeId, micro });
    if (!children) throw unknownNode(ref, side, nodeId ?? '');
    res.json(children);
  });

  router.get('/api/graph/node', (req, res) => {
    const { store, ref } = openGraph(ctx, req);
    const side = sideParam(req, store, ref);
    const nodeId = requiredString(req, 'node');
    const node = store.node({ side, nodeId });
    if (!node) throw unknownNode(ref, side, nodeId);
    res.json(node);
  });

  return router;
}

function openGraph(ctx: AppContext, req: Request): { store: GraphStore; ref: GraphFileRef } {
  const run = requiredString(req, 'run');
  const tag = requiredString(req, 'tag');
  const format = optionalString(req, 'format');
  if (format !== undefined && format !== 'vis' && format !== 'db') {
    throw new HttpError(400, 'badParam', { name: 'format', expected: '"vis" | "db"' });
  }
  const resolved = resolveGraphFile(ctx.logdirReal, run, tag, format);
  if (!resolved.ok) throw new HttpError(resolved.status, resolved.message.key, resolved.message.params);
  try {
    return { store: ctx.stores.open(resolved.ref), ref: resolved.ref };
  } catch (e) {
    if (e instanceof DbNotSupportedError) throw new HttpError(501, 'dbNotSupported', { file: e.file });
    if (e instanceof GraphFileError) throw new HttpError(422, 'fileUnreadable', { file: e.file, problem: e.problem });
    throw e;
  }
}

function sideParam(req: Request, store: GraphStore, ref: GraphFileRef): Side {
  const side = optionalString(req, 'side') || 'npu';
  if (side !== 'npu' && side !== 'bench') {
    throw new HttpError(400, 'badParam', { name: 'side', expected: '"npu" | "bench"' });
  }
  if (side === 'bench' && store.meta().graphType === 'build') {
    throw new HttpError(400, 'noBenchSide', { file: ref.relPath });
  }
  return side;
}

function microParam(req: Request): number | undefined {
  const micro = optionalString(req, 'micro');
  if (micro === undefined || micro === '') return undefined;
  const n = /^-?\d{1,9}$/.test(micro) ? Number(micro) : NaN;
  if (!(n >= -1)) throw new HttpError(400, 'badParam', { name: 'micro', expected: 'an integer ≥ -1' });
  return n;
}

function unknownNode(ref: GraphFileRef, side: Side, node: string): HttpError {
  return new HttpError(404, 'unknownNode', { node: node.slice(0, 300), side, file: ref.relPath });
}

/** Repeated keys (`?run=a&run=b`) arrive as arrays; refusing them keeps one request = one file. */
function optionalString(req: Request, name: string): string | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new HttpError(400, 'badParam', { name, expected: 'a single string' });
  return v;
}

function requiredString(req: Request, name: string): string {
  const v = optionalString(req, name);
  if (v === undefined || v === '') throw new HttpError(400, 'missingParam', { name });
  return v;
}
