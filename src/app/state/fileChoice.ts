import type { GraphMeta, RunEntry, TagEntry } from '../../core/api/types.js';
import type { GraphFormat } from './appStore.js';

/**
 * Pure helpers behind the run / file pickers (issue 14): a `.vis` and a `.vis.db` with one name are two entries,
 * told apart by their format; the log dir root run gets a name; an empty `.vis.db` step / rank pair is detected.
 */

export const fileExtension = (format: GraphFormat): string => (format === 'db' ? 'vis.db' : 'vis');

/** True when another file of the run has the same tag (a `.vis` next to a `.vis.db`). */
export function sharesName(tags: readonly TagEntry[], entry: TagEntry): boolean {
  return tags.some((t) => t !== entry && t.tag === entry.tag);
}

/**
 * The `<option>` value of a file: its tag when the name is unique in the run (what links and tests know), else
 * `format/tag` — a tag never holds a `/`, so the two kinds of value cannot collide.
 */
export function fileOptionValue(tags: readonly TagEntry[], entry: TagEntry): string {
  return sharesName(tags, entry) ? `${entry.format}/${entry.tag}` : entry.tag;
}

/** The entry an option value names. */
export function entryForOptionValue(tags: readonly TagEntry[], value: string): TagEntry | undefined {
  const slash = value.indexOf('/');
  if (slash > 0) {
    const format = value.slice(0, slash);
    const tag = value.slice(slash + 1);
    const exact = tags.find((t) => t.tag === tag && t.format === format);
    if (exact) return exact;
  }
  return tags.find((t) => t.tag === value);
}

/**
 * The listed entry that is open: the one of the open format, or — when the format is not given — the one the
 * server opens for the name (the `.vis`, as resolveGraphFile tries `vis` first).
 */
export function openEntry(tags: readonly TagEntry[], tag: string | null, format: GraphFormat | null): TagEntry | undefined {
  if (tag === null) return undefined;
  const named = tags.filter((t) => t.tag === tag);
  if (format !== null) return named.find((t) => t.format === format);
  return named.find((t) => t.format === 'vis') ?? named[0];
}

export function findRun(runs: readonly RunEntry[], run: string | null): RunEntry | undefined {
  return run === null ? undefined : runs.find((r) => r.run === run);
}

/** The run's name as shown: the log dir itself ('.') is named in words. */
export function runLabel(run: string, rootLabel: string): string {
  return run === '.' ? rootLabel : run;
}

/** A `.vis.db` may lack a step / rank pair that its lists promise: its meta then has no root on either side. */
export function isEmptyGraph(meta: GraphMeta): boolean {
  return Object.keys(meta.roots).length === 0 && Object.values(meta.nodeCounts).every((n) => !n);
}

/**
 * What the step and rank pickers offer: with the `.vis.db`'s pairs known, only steps that hold a graph and, at the
 * shown step, only its ranks (issue 14 item 5), plus the shown pair itself; without them (`.vis`, older servers) the listed steps and ranks.
 */
export function pickerChoices(meta: GraphMeta | null, step: number | null, rank: number | null): { steps: number[]; ranks: number[] } {
  const steps = meta?.steps ?? [];
  const ranks = meta?.ranks ?? [];
  if (!meta?.graphs) return { steps, ranks };
  const at = step ?? steps[0];
  const held = new Set(meta.graphs.map(([s]) => s));
  const here = new Set(meta.graphs.filter(([s]) => s === at).map(([, r]) => r));
  // A link may name an empty pair: the pickers still show where the user is, next to the notice.
  return { steps: steps.filter((s) => held.has(s) || s === at), ranks: ranks.filter((r) => here.has(r) || r === rank) };
}

/**
 * The rank to show at `step`: the current one (null = the server's default, the first listed) when that pair holds a
 * graph, else the step's first.
 */
export function rankAtStep(meta: GraphMeta | null, step: number, rank: number | null): number | null {
  if (!meta?.graphs) return rank;
  const here = meta.graphs.filter(([s]) => s === step).map(([, r]) => r);
  return here.includes(rank ?? meta.ranks[0]) ? rank : (here[0] ?? rank);
}
