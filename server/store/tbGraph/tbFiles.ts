import { open, readFile } from 'node:fs/promises';
import { scanEventFile, readEventGraph, type EventFileIndex, type EventGraphEntry } from '../../../src/core/formats/tb/eventFile.js';
import { decodeGraphDef, graphDefToGraph, parseGraphDefText } from '../../../src/core/formats/tb/graphDef.js';
import { decodeOnnxModel, onnxToGraph } from '../../../src/core/formats/tb/onnx.js';
import { TbFormatError } from '../../../src/core/formats/tb/tbError.js';
import type { ByteSource } from '../../../src/core/formats/tb/tfRecord.js';
import { buildHierarchy } from '../../../src/core/tbgraph/hierarchy.js';
import { packHierarchy, packOpDetails, type PackedTbHierarchy, type StringTable } from '../../../src/core/tbgraph/packed.js';
import type { TbGraph } from '../../../src/core/tbgraph/opGraph.js';

/**
 * TensorBoard-side graph files in a log dir (issue 16): event files (`*tfevents*`, one tag per graph record),
 * GraphDef (`.pb` binary, `.pbtxt` text) and ONNX (`.onnx`). Their tags keep the whole file name, so they never
 * collide with an msprobe `x.vis` tag `x`; an event file's graphs are `<file>#<graph tag>` (eventFile.ts tags).
 */

export type TbFormat = 'tfevents' | 'graphdef' | 'onnx';
export const TB_FORMATS: readonly TbFormat[] = ['tfevents', 'graphdef', 'onnx'];

export function isTbFormat(format: string): format is TbFormat {
  return (TB_FORMATS as readonly string[]).includes(format);
}

/** The format a file name says, or null. `*.profile-empty` marks a profiler run, not a graph (TensorBoard skips it). */
export function tbFileFormat(name: string): TbFormat | null {
  if (name.startsWith('.')) return null;
  if (name.includes('tfevents')) return name.endsWith('.profile-empty') ? null : 'tfevents';
  if (name.endsWith('.pb') || name.endsWith('.pbtxt')) return 'graphdef';
  if (name.endsWith('.onnx')) return 'onnx';
  return null;
}

/** Separates an event file's name from its graph's tag in a listed tag. */
export const GRAPH_TAG_SEPARATOR = '#';

export function eventGraphTag(fileName: string, graphTag: string): string {
  return `${fileName}${GRAPH_TAG_SEPARATOR}${graphTag}`;
}

/** A listed tag → the file name and (event files) the graph in it; null when the name is not a TB graph file. */
export function splitTbTag(tag: string): { fileName: string; graph: string | null; format: TbFormat } | null {
  const cut = tag.lastIndexOf(GRAPH_TAG_SEPARATOR);
  if (cut > 0 && tbFileFormat(tag.slice(0, cut)) === 'tfevents') {
    return { fileName: tag.slice(0, cut), graph: tag.slice(cut + 1), format: 'tfevents' };
  }
  // A bare event file name opens its first graph (and names the file in the error when it has none).
  const format = tbFileFormat(tag);
  return format ? { fileName: tag, graph: null, format } : null;
}

export async function withSource<T>(absPath: string, fn: (source: ByteSource) => Promise<T>): Promise<T> {
  const fh = await open(absPath, 'r');
  try {
    const { size } = await fh.stat();
    const source: ByteSource = {
      size,
      read: async (offset, length) => {
        const buf = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
        const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
        return buf.subarray(0, bytesRead);
      },
    };
    return await fn(source);
  } finally {
    await fh.close();
  }
}

const SCAN_CHUNK_BYTES = 256 * 1024;

/**
 * The graphs an event file holds; scalars and other summaries are skipped undecoded (eventFile.ts). It runs in the
 * server's thread, which answers other requests between chunks: 256 KiB ones keep that wait short (a 500 MB file of
 * scalars read in 1 MiB chunks held other requests up to 0.7 s on a loaded 2-core machine, bench/tb.mjs).
 */
export function scanEvents(absPath: string): Promise<EventFileIndex> {
  return withSource(absPath, (source) => scanEventFile(source, { chunkSize: SCAN_CHUNK_BYTES }));
}

/** What a load of one graph needs; posted to tbWorker.ts as is. */
export interface TbLoadInput {
  absPath: string;
  format: TbFormat;
  /** The event file's graph tag (null: its first graph); null for GraphDef / ONNX files. */
  graph: string | null;
  /** That graph's record as a scan of the file at the same stamp found it: read without scanning again. */
  entry?: EventGraphEntry;
}

/** A decoded graph: its packed hierarchy, and its ops' details packed when asked (the slower half, packed.ts). */
export interface TbLoaded {
  packed: PackedTbHierarchy;
  details(): StringTable;
}

/** Decodes the file (in this thread) and builds the viewer's hierarchy. Throws TbFormatError with a one-line problem. */
export async function loadTbHierarchy(input: TbLoadInput): Promise<TbLoaded> {
  let graph: TbGraph;
  if (input.format === 'tfevents') {
    graph = await withSource(input.absPath, async (source) => {
      if (input.entry) return graphDefToGraph(await readEventGraph(source, input.entry));
      const index = await scanEventFile(source);
      const entry = index.graphs.find((g) => input.graph === null || g.tag === input.graph);
      if (!entry) throw index.error ?? new TbFormatError(input.graph === null ? 'no graph in the file' : `no graph "${input.graph}" in the file`);
      return graphDefToGraph(await readEventGraph(source, entry));
    });
  } else {
    const bytes = new Uint8Array(await readFile(input.absPath));
    if (input.format === 'onnx') graph = onnxToGraph(decodeOnnxModel(bytes));
    else if (input.absPath.endsWith('.pbtxt')) graph = graphDefToGraph(parseGraphDefText(new TextDecoder().decode(bytes)));
    else graph = graphDefToGraph(decodeGraphDef(bytes));
  }
  const decoded = graph;
  return { packed: packHierarchy(buildHierarchy(decoded)), details: () => packOpDetails(decoded) };
}

/** One line for any failure of a load: a reader's TbFormatError (it names the line or offset) or whatever else it threw. */
export function loadProblem(e: unknown): string {
  if (e instanceof TbFormatError) return e.message;
  return `cannot be read: ${e instanceof Error ? e.message : String(e)}`;
}
