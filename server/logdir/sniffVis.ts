import type { GraphType } from '../../src/core/api/types.js';

/**
 * A cheap look at a `.vis` file's first and last bytes, for the run listing: the graph type from the first decisive
 * top-level key (`NPU`/`Bench` → compare, `root`/`node` → build; `ToolTip` may come first in legacy files), and the
 * obvious breakage (empty, not an object, truncated) without parsing the whole file.
 */
export interface SniffResult {
  graphType: GraphType | null;
  problem: string | null;
}

export function sniffVis(head: string, tail: string, sizeBytes: number): SniffResult {
  if (sizeBytes === 0) return { graphType: null, problem: 'empty file' };
  let i = head.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < head.length && /\s/.test(head[i])) i++;
  if (i >= head.length) return { graphType: null, problem: 'no JSON content in the first bytes' };
  if (head[i] !== '{') {
    return { graphType: null, problem: `not a .vis graph: the file starts with ${JSON.stringify(head[i])}, not '{'` };
  }
  const last = tail.trimEnd();
  if (!last.endsWith('}')) return { graphType: null, problem: "truncated or not JSON: the file does not end with '}'" };
  return { graphType: topLevelType(head, i), problem: null };
}

function topLevelType(text: string, start: number): GraphType | null {
  let depth = 0;
  let expectKey = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return null;
      if (depth === 1 && expectKey) {
        const key = text.slice(i + 1, end);
        if (key === 'NPU' || key === 'Bench') return 'compare';
        if (key === 'root' || key === 'node') return 'build';
        expectKey = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth <= 0) return null;
    } else if (c === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return null;
}

/** Index of the closing quote of the string opening at `open`, or -1 when the head ends first. */
function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}
