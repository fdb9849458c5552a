import { stat } from 'node:fs/promises';
import type { TbRunStats } from '../../../src/core/api/types.js';
import { readEventRunMetadata, scanEventFile, type EventFileIndex } from '../../../src/core/formats/tb/eventFile.js';
import { nodeStatsByName } from '../../../src/core/formats/tb/graphDef.js';
import type { TbCache } from './tbCache.js';
import { withSource } from './tbFiles.js';

/**
 * An event file's `tagged_run_metadata` (issue 16: step stats and memory in a node's details, as TensorBoard's node
 * info shows them), read on the first node asked for and kept for the few files last asked. The records are those the
 * listing's scan found (tbCache), so the file is not scanned twice; a file that grew (a training run still writing)
 * is read on from where the last read stopped, not again from the start. Damaged or
 * undecodable records are skipped: run metadata only adds to the details, it never fails them.
 */

const MAX_FILES = 4;
/** Run metadata records read per file: a profiling run writes a handful; later ones past this are not read. */
const MAX_RECORDS = 64;

type ByNode = Map<string, TbRunStats[]>;
interface Read {
  byNode: ByNode;
  records: number;
  /** Just past the last whole record read: a grown file is scanned on from here. */
  nextOffset: number;
}
interface Kept {
  stamp: string;
  ino: number;
  size: number;
  read: Promise<Read>;
}
const kept = new Map<string, Kept>();

/** The step stats of node `name` in the event file, one per run metadata record that has it (file order). */
export async function runStatsOf(absPath: string, name: string, tb: TbCache): Promise<TbRunStats[]> {
  const st = await stat(absPath);
  const stamp = `${st.size}:${st.mtimeMs}:${st.ino}`;
  let hit = kept.get(absPath);
  kept.delete(absPath);
  if (!hit || hit.stamp !== stamp) {
    const grown = hit && hit.ino === st.ino && st.size >= hit.size ? hit.read : null;
    const read = grown
      ? grown.then((prev) => readFrom(absPath, prev), () => readFrom(absPath, null))
      : readFrom(absPath, null, tb.knownRunMetadata(absPath, st));
    hit = { stamp, ino: st.ino, size: st.size, read: read.catch(() => ({ byNode: new Map(), records: 0, nextOffset: 0 })) };
  }
  kept.set(absPath, hit);
  for (const old of kept.keys()) if (kept.size > MAX_FILES) kept.delete(old);
  return (await hit.read).byNode.get(name) ?? [];
}

/** Reads the run metadata records after `prev` (which it extends), or the whole file; `scanned` spares the scan. */
function readFrom(absPath: string, prev: Read | null, scanned?: Pick<EventFileIndex, 'runMetadata' | 'nextOffset'> | null): Promise<Read> {
  return withSource(absPath, async (source) => {
    const out: Read = prev ?? { byNode: new Map(), records: 0, nextOffset: 0 };
    const index = scanned ?? (await scanEventFile(source, { startOffset: out.nextOffset }));
    out.nextOffset = index.nextOffset;
    for (const entry of index.runMetadata) {
      if (out.records >= MAX_RECORDS) break;
      out.records++;
      let rm;
      try {
        rm = await readEventRunMetadata(source, entry);
      } catch {
        continue;
      }
      for (const [node, stats] of nodeStatsByName(rm)) {
        const list = out.byNode.get(node) ?? [];
        list.push({ tag: entry.tag, step: entry.step, ...stats });
        out.byNode.set(node, list);
      }
    }
    return out;
  });
}
