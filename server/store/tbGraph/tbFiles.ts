import { open, readFile } from 'node:fs/promises';
import {
  decodeEventGraphDef,
  readEventGraph,
  readEventGraphDefBytes,
  scanEventFile,
  type EventFileIndex,
  type EventGraphEntry,
} from '../../../src/core/formats/tb/eventFile.js';
import { decodeGraphDef, graphDefToGraph, parseGraphDefText } from '../../../src/core/formats/tb/graphDef.js';
import { readGraphDefWire, WireOpDetails, type WireGraph } from '../../../src/core/formats/tb/graphDefWire.js';
import { decodeOnnxModel, onnxToGraph } from '../../../src/core/formats/tb/onnx.js';
import { TbFormatError } from '../../../src/core/formats/tb/tbError.js';
import type { ByteSource } from '../../../src/core/formats/tb/tfRecord.js';
import { buildTree, tbOpTable } from '../../../src/core/tbgraph/hierarchy.js';
import { packOpDetails, packTree, type PackedTbHierarchy, type StringTable, type TbOpDetailSource } from '../../../src/core/tbgraph/packed.js';
import type { TbGraph } from '../../../src/core/tbgraph/opGraph.js';
import type { FileStamp } from '../visJsonIndex/visIndex.js';
import { derivedWriteProblem } from '../derivedCache.js';
import { readTbCache, writeTbCache, type TbDetailsData } from './tbDiskCache.js';

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
  /** The disk cache to read first and fill after (tbDiskCache.ts), with the file's stamp; absent: none. */
  cache?: { cacheDir: string; maxBytes?: number; stamp: FileStamp };
}

/** A decoded graph: its packed hierarchy, and its ops' details (packed when asked for an object-decoded graph). */
export interface TbLoaded {
  packed: PackedTbHierarchy;
  details(): TbDetailsData;
  /** Read from the disk cache, not decoded. */
  fromCache: boolean;
}

/** The details source a TbView reads (packed.ts) for details as they travel. */
export function opDetailSource(d: TbDetailsData): StringTable | TbOpDetailSource {
  return 'json' in d ? d.json : new WireOpDetails(d.wire);
}

function fromWire(wire: WireGraph, graphOffset: number): TbLoaded {
  return { packed: packTree(buildTree(wire.table)), details: () => ({ wire: wire.details, graphOffset }), fromCache: false };
}

function fromGraph(graph: TbGraph): TbLoaded {
  return { packed: packTree(buildTree(tbOpTable(graph))), details: () => ({ json: packOpDetails(graph) }), fromCache: false };
}

/**
 * Decodes the file (in this thread) and builds the viewer's hierarchy, or reads both from the disk cache. A binary
 * GraphDef (`.pb`, an event's graph_def) is read off the wire (graphDefWire.ts) unless its library holds functions;
 * the wire reader gets a Buffer (its ASCII strings are sliced natively), the object decoders a plain Uint8Array.
 * Throws TbFormatError with a one-line problem.
 */
export async function loadTbHierarchy(input: TbLoadInput): Promise<TbLoaded> {
  const cached = await loadTbCached(input);
  if (cached) return cached;
  if (input.format === 'tfevents') {
    return withSource(input.absPath, async (source) => {
      let entry = input.entry;
      if (!entry) {
        const index = await scanEventFile(source);
        entry = index.graphs.find((g) => input.graph === null || g.tag === input.graph);
        if (!entry) throw index.error ?? new TbFormatError(input.graph === null ? 'no graph in the file' : `no graph "${input.graph}" in the file`);
      }
      if (entry.kind !== 'graph_def') return fromGraph(graphDefToGraph(await readEventGraph(source, entry)));
      const raw = await readEventGraphDefBytes(source, entry);
      const wire = readGraphDefWire(Buffer.from(raw.bytes.buffer, raw.bytes.byteOffset, raw.bytes.byteLength));
      return wire ? fromWire(wire, raw.offset) : fromGraph(graphDefToGraph(decodeEventGraphDef(raw.bytes, entry)));
    });
  }
  // A plain Uint8Array view for protobufjs: it decodes a Buffer's strings otherwise (bad UTF-8) than the readers
  // were written against.
  const file = await readFile(input.absPath);
  const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
  if (input.format === 'onnx') return fromGraph(onnxToGraph(decodeOnnxModel(bytes)));
  if (input.absPath.endsWith('.pbtxt')) return fromGraph(graphDefToGraph(parseGraphDefText(new TextDecoder().decode(bytes))));
  const wire = bytes.length > 0 ? readGraphDefWire(file) : null;
  return wire ? fromWire(wire, 0) : fromGraph(graphDefToGraph(decodeGraphDef(bytes)));
}

const cacheKey = (input: TbLoadInput & { cache: NonNullable<TbLoadInput['cache']> }) => ({ ...input.cache, absPath: input.absPath, graph: input.graph ?? '' });

/** The graph as the disk cache keeps it, or null (no cache, a miss: absent, stale or damaged). */
export async function loadTbCached(input: TbLoadInput): Promise<TbLoaded | null> {
  if (!input.cache) return null;
  const hit = readTbCache(cacheKey({ ...input, cache: input.cache }));
  if (!hit) return null;
  const details = hit.details;
  if ('json' in details) return { packed: hit.packed, details: () => details, fromCache: true };
  // The GraphDef's bytes, read again from where they were (the stamp says the file has not changed since).
  const graph = Buffer.alloc(details.graphLength);
  const fh = await open(input.absPath, 'r');
  try {
    const { bytesRead } = await fh.read(graph, 0, graph.length, details.graphOffset);
    if (bytesRead !== graph.length) return null;
  } finally {
    await fh.close();
  }
  return { packed: hit.packed, details: () => ({ wire: { graph, ...details.wire }, graphOffset: details.graphOffset }), fromCache: true };
}

/**
 * Keeps a decoded graph in the disk cache; the line to log when that failed (the graph is decoded again next time),
 * else null. A wire graph whose bytes' offset in the file is not known is not kept.
 */
export function keepInCache(input: TbLoadInput, packed: PackedTbHierarchy, details: TbDetailsData): string | null {
  if (!input.cache || ('wire' in details && details.graphOffset < 0)) return null;
  try {
    writeTbCache(cacheKey({ ...input, cache: input.cache }), packed, details);
    return null;
  } catch (e) {
    return derivedWriteProblem(input.cache.cacheDir, e);
  }
}

/** One line for any failure of a load: a reader's TbFormatError (it names the line or offset) or whatever else it threw. */
export function loadProblem(e: unknown): string {
  if (e instanceof TbFormatError) return e.message;
  return `cannot be read: ${e instanceof Error ? e.message : String(e)}`;
}
