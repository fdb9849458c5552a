import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { renderPyJson } from '../../src/core/formats/pyJsonWrite.js';
import type { NodeChange } from '../../src/core/match/index.js';
import { StaleFileError } from '../store/graphStore.js';
import { lookupId, sameStamp, type FileStamp, type VisIndex } from '../store/visJsonIndex/visIndex.js';
import { writeAtomically } from '../atomicFile.js';
import { applyToNode, parseFaithful } from './nodeRewrite.js';

/** What a matched `.vis` replaces: each changed node's byte range and its new text, in file order. */
export interface VisPlan {
  stamp: FileStamp;
  spans: Array<{ start: number; end: number; text: string }>;
}

/**
 * A matched `.vis` (issue 15 "Save"): the file with each changed node's object replaced by the node as the original
 * viewer leaves it (nodeRewrite.ts), written at the depth `json.dump(indent=4)` puts a node (`{"NPU": {"node":
 * {id: …}}}`: level 3). Every other byte is copied as it is, so a file msprobe wrote (indent 4) comes out as the
 * original's full rewrite would, and a file of any other layout keeps its layout around the changed nodes — the same
 * keys and values either way.
 *
 * The plan reads only the changed nodes, located by `index` (byte ranges of the index's node objects), which must
 * describe the file as it is (checked on the open file); writeMatchedVis then streams the copy (in the save worker,
 * saveJobs.ts): a file of any size needs memory for its changed nodes only.
 */
export function planMatchedVis(absPath: string, relPath: string, index: VisIndex, changes: Iterable<NodeChange>): VisPlan {
  const src = openSync(absPath, 'r');
  try {
    if (!fresh(src, index.stamp)) throw new StaleFileError(relPath);
    const spans: VisPlan['spans'] = [];
    for (const change of changes) {
      const side = index.sides[change.side];
      const e = side ? lookupId(side, change.id) : -1;
      if (!side || e < 0) throw new StaleFileError(relPath);
      const start = side.start[e];
      const bytes = readRange(src, start, side.length[e]);
      const node = applyToNode(parseFaithful(bytes.toString('utf8'), relPath), change);
      spans.push({ start, end: start + side.length[e], text: renderPyJson(node, 4, 3) });
    }
    spans.sort((a, b) => a.start - b.start);
    return { stamp: index.stamp, spans };
  } finally {
    closeSync(src);
  }
}

/** The planned copy onto `target` (temp + fsync + rename); `progress` hears the share copied (0–1). */
export function writeMatchedVis(absPath: string, relPath: string, plan: VisPlan, target: string, progress: (share: number) => void = () => {}): void {
  const src = openSync(absPath, 'r');
  try {
    if (!fresh(src, plan.stamp)) throw new StaleFileError(relPath);
    const size = plan.stamp.size;
    writeAtomically(target, (out) => {
      let pos = 0;
      const copied = (to: number) => progress((0.9 * to) / Math.max(1, size));
      for (const span of plan.spans) {
        copyRange(src, out, pos, span.start, copied);
        writeAll(out, Buffer.from(span.text, 'utf8'));
        pos = span.end;
      }
      copyRange(src, out, pos, size, copied);
      // Rewritten while we copied: what we wrote mixes two versions.
      if (!fresh(src, plan.stamp)) throw new StaleFileError(relPath);
    });
    progress(1);
  } finally {
    closeSync(src);
  }
}

function fresh(fd: number, stamp: FileStamp): boolean {
  const st = fstatSync(fd);
  return sameStamp({ size: st.size, mtimeMs: st.mtimeMs, ino: st.ino } satisfies FileStamp, stamp);
}

function readRange(fd: number, start: number, length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  for (let done = 0; done < length; ) {
    const n = readSync(fd, out, done, length - done, start + done);
    if (n <= 0) throw new Error('the file is shorter than its index says');
    done += n;
  }
  return out;
}

const CHUNK = 1 << 20;

function copyRange(src: number, out: number, from: number, to: number, copied: (pos: number) => void): void {
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, to - from)));
  for (let pos = from; pos < to; ) {
    const n = readSync(src, buf, 0, Math.min(buf.length, to - pos), pos);
    if (n <= 0) throw new Error('the file is shorter than its index says');
    writeAll(out, buf.subarray(0, n));
    pos += n;
    copied(pos);
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
}
