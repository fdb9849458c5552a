import type { FoundNode, NodeDetail, Side } from '../../core/api/types.js';
import { BadAnswerError } from '../api/answers.js';
import { ApiRequestError, client, type GraphRef } from '../api/client.js';
import { translate } from '../i18n/i18n.js';
import { isEmptyGraph } from './fileChoice.js';
import type { PaneLink } from './viewLink.js';
import { paneLink, planView } from './viewPlan.js';
import { emptyDetails, selectionKey, useAppStore, type GraphFormat, type NodeDetails, type Selection } from './appStore.js';

/**
 * The shell's async work: list files, open one, load the records behind a selection. Components call these; the
 * store stays plain data. Every answer is checked against the request that asked for it, so a slow response for a
 * file or node the user already left never overwrites the current view.
 */
const get = useAppStore.getState;
const set = useAppStore.setState;

export const otherSide = (side: Side): Side => (side === 'npu' ? 'bench' : 'npu');

/** Old viewers prefixed ids with `N___` / `B___` inside matched_node_link (msprobe-format.md §7). */
const stripSidePrefix = (id: string): string => id.replace(/^[NB]___/, '');

/** Counterpart id and its ancestor path from a matched_node_link (last element = the counterpart). */
export function counterpartFromLink(link: string[]): { id: string | null; path: string[] } {
  if (link.length === 0) return { id: null, path: [] };
  return { id: stripSidePrefix(link[link.length - 1]), path: link.slice(0, -1).map(stripSidePrefix) };
}

/** One line for the banner: the server's own message (it names the file), or why the server was unreachable. */
export function describeError(err: unknown): string {
  const lang = get().lang;
  if (err instanceof ApiRequestError) {
    if (err.unreachable) return err.message;
    return err.status === 0
      ? translate(lang, 'error.network', { message: err.message })
      : translate(lang, 'error.http', { status: err.status, message: err.message });
  }
  if (err instanceof BadAnswerError) return translate(lang, 'error.badAnswer', { file: err.file, problem: err.problem });
  return err instanceof Error ? err.message : String(err);
}

function report(err: unknown): void {
  if ((err as Error)?.name === 'AbortError') return;
  get().setError(describeError(err));
}

/** The last "cannot reach the server" banner set by the run-list poll, cleared by the poll once the server is back. */
let pollBanner: string | null = null;

/**
 * Lists the runs. `poll` = the periodic reload: the list is replaced only when it changed (the open file and
 * selection are untouched either way), an unreachable server is said once in the banner and the banner is
 * cleared when the server answers again.
 */
export async function loadRuns(opts: { poll?: boolean } = {}): Promise<void> {
  try {
    const listing = await client.runs();
    const s = get();
    if (!opts.poll || JSON.stringify(listing.runs) !== JSON.stringify(s.runs) || listing.logdir !== s.logdir) {
      set({ runs: listing.runs, logdir: listing.logdir, runsLoaded: true });
    }
    if (pollBanner !== null && get().error === pollBanner) get().setError(null);
    pollBanner = null;
  } catch (err) {
    set({ runsLoaded: true });
    if (!opts.poll) return report(err);
    if ((err as Error)?.name === 'AbortError' || (get().error !== null && get().error !== pollBanner)) return;
    pollBanner = describeError(err);
    get().setError(pollBanner);
  }
}

export interface FileChoice {
  run: string;
  tag: string;
  format: GraphFormat | null;
}

/** The first file of `run` that can be opened (else its first file), or null when the run lists none. */
export function firstFileOfRun(run: string): FileChoice | null {
  const entry = get().runs.find((r) => r.run === run);
  const first = entry?.tags.find((t) => t.error === null) ?? entry?.tags[0];
  return entry && first ? { run: entry.run, tag: first.tag, format: first.format } : null;
}

/** The first file that can be opened, for a fresh page without a link. */
export function firstOpenableFile(): FileChoice | null {
  for (const entry of get().runs) {
    const ok = entry.tags.find((t) => t.error === null);
    if (ok) return { run: entry.run, tag: ok.tag, format: ok.format };
  }
  return null;
}

/**
 * A link names a run that is not listed (or lists no file): nothing is opened, the picker shows no run as chosen
 * and the banner says why.
 */
export function showMissingRun(run: string, reason: 'unknownRun' | 'runEmpty'): void {
  openSeq++;
  set((s) => ({
    run,
    tag: null,
    format: null,
    step: null,
    rank: null,
    micro: -1,
    meta: null,
    metaLoading: false,
    selection: null,
    details: emptyDetails,
    fileVersion: s.fileVersion + 1,
    notice: null,
    error: translate(s.lang, reason === 'unknownRun' ? 'error.unknownRun' : 'error.runEmpty', { run }),
  }));
}

/** The open graph as the graph routes name it (file plus `.vis.db` step and rank). */
export function currentGraph(): GraphRef | null {
  const { run, tag, format, step, rank } = get();
  return run === null || tag === null ? null : { run, tag, format, step, rank };
}

let openSeq = 0;

/**
 * Switches to another file, or to another step / rank of the open one (the reference viewer re-initialises the
 * graph then too): micro step back to ALL and step / rank back to the file's first unless given. Resolves false when
 * its meta could not load.
 */
export async function openFile(
  run: string,
  tag: string,
  opts: { micro?: number; step?: number | null; rank?: number | null; format?: GraphFormat | null } = {},
): Promise<boolean> {
  const seq = ++openSeq;
  const step = opts.step ?? null;
  const rank = opts.rank ?? null;
  const format = opts.format ?? null;
  set((s) => ({
    run,
    tag,
    format,
    step,
    rank,
    micro: opts.micro ?? -1,
    meta: null,
    metaLoading: true,
    selection: null,
    details: emptyDetails,
    error: null,
    notice: null,
    fileVersion: s.fileVersion + 1,
  }));
  try {
    const meta = await client.meta({ run, tag, format, step, rank });
    if (seq !== openSeq) return false;
    set((s) => ({ meta, metaLoading: false, micro: s.micro < meta.microSteps ? s.micro : -1 }));
    return true;
  } catch (err) {
    if (seq !== openSeq) return false;
    set({ metaLoading: false });
    report(err);
    return false;
  }
}

interface Resolved {
  selection: Selection;
  details: NodeDetails;
}

/**
 * Fetches the node and its counterpart, and corrects the selection from the records: the server's `path` and
 * matched_node_link are authoritative (a deep link knows only side + id; a pane may not know the counterpart path).
 */
async function resolveSelection(side: Side, id: string, positions?: number[]): Promise<Resolved> {
  const { meta } = get();
  const ref = currentGraph();
  if (!ref) throw new Error('no file is open');
  const own = await client.node(ref, side, id);
  const compare = meta?.graphType === 'compare';
  const link = compare ? counterpartFromLink(own.matchedNodeLink) : { id: null, path: [] };
  let counterpart: NodeDetail | null = null;
  if (link.id !== null) {
    try {
      counterpart = await client.node(ref, otherSide(side), link.id);
    } catch (err) {
      report(err);
    }
  }
  const selection: Selection = {
    side,
    id,
    counterpartId: link.id,
    path: own.path,
    counterpartPath: counterpart ? counterpart.path : link.path,
    ...(positions?.length ? { positions } : {}),
  };
  const details: NodeDetails = {
    key: selectionKey(selection),
    npu: side === 'npu' ? own : counterpart,
    bench: side === 'bench' ? own : counterpart,
    loading: false,
  };
  return { selection, details };
}

const sameList = <T,>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

function sameSelection(a: Selection, b: Selection): boolean {
  return (
    a.side === b.side &&
    a.id === b.id &&
    a.counterpartId === b.counterpartId &&
    sameList(a.path, b.path) &&
    sameList(a.counterpartPath, b.counterpartPath) &&
    sameList(a.positions ?? [], b.positions ?? [])
  );
}

/**
 * Selects a node known only by side and id (deep links): the panes then reveal it from `path`, opening split
 * groups at `positions` (the link's `pos=`).
 */
export async function revealNode(
  side: Side,
  id: string,
  positions?: number[],
  opts: { quiet?: boolean } = {},
): Promise<boolean> {
  const version = get().fileVersion;
  set({ details: { ...emptyDetails, loading: true } });
  try {
    const resolved = await resolveSelection(side, id, positions);
    if (get().fileVersion !== version) return false;
    set({ selection: resolved.selection, details: resolved.details });
    return true;
  } catch (err) {
    if (get().fileVersion !== version) return false;
    set({ details: opts.quiet ? emptyDetails : { ...emptyDetails, error: describeError(err) } });
    if (!opts.quiet || !(err instanceof ApiRequestError && err.status === 404)) report(err);
    return false;
  }
}

/** Loads the info panel's records whenever a pane changes the selection. Returns the unsubscribe function. */
export function startDetailLoader(): () => void {
  return useAppStore.subscribe((state, prev) => {
    if (state.selection === prev.selection) return;
    const key = selectionKey(state.selection);
    if (key === state.details.key) return;
    const selection = state.selection;
    if (!selection) {
      set({ details: emptyDetails });
      return;
    }
    set({ details: { ...emptyDetails, key, loading: true } });
    resolveSelection(selection.side, selection.id).then(
      (resolved) => {
        const now = get();
        if (selectionKey(now.selection) !== key) return;
        // The pane knows where the node sits in split groups; the server's record does not.
        const corrected: Selection = now.selection?.positions ? { ...resolved.selection, positions: now.selection.positions } : resolved.selection;
        // Writing the corrected key first keeps this subscription from fetching the same node again.
        set({
          details: resolved.details,
          selection: now.selection && sameSelection(now.selection, corrected) ? now.selection : corrected,
        });
      },
      (err) => {
        if (selectionKey(get().selection) !== key) return;
        set({ details: { ...emptyDetails, key, error: describeError(err) } });
        report(err);
      },
    );
  });
}

/** Selects a search or filter result: its path is known, so the panes reveal it without another request first. */
export function selectFound(side: Side, found: FoundNode): void {
  const link = get().meta?.graphType === 'compare' ? counterpartFromLink(found.matchedNodeLink) : { id: null, path: [] };
  get().select({ side, id: found.id, counterpartId: link.id, path: found.path, counterpartPath: link.path });
}

/**
 * What a switch brought to a step × rank pair without a graph (nothing to show it on), handed on to the next switch
 * from there: passing through an empty pair loses nothing. Only for the graph it was made on (fileVersion).
 */
let carriedPastEmpty: { fileVersion: number; selection: Selection | null; panes: Record<Side, PaneLink> } | null = null;

/**
 * Another step / rank of the open `.vis.db`, or another file (issue 14 item 5): the graph is re-opened and what the
 * user had is kept where the new graph has it: the selected node (one missing there is dropped without a banner)
 * and the open groups, and for another step / rank of the same file the viewport too. Returns whether the
 * selection was kept.
 */
export async function switchGraph(at: { step: number | null; rank: number | null; file?: FileChoice }): Promise<boolean> {
  const { run, tag, format, micro, fileVersion } = get();
  const file = at.file ?? (run !== null && tag !== null ? { run, tag, format } : null);
  if (!file) return false;
  const sameFile = file.run === run && file.tag === tag && file.format === format;
  const carried = carriedPastEmpty?.fileVersion === fileVersion ? carriedPastEmpty : null;
  const selection = carried ? carried.selection : get().selection;
  const panes = carried ? carried.panes : { npu: paneLink('npu', Infinity), bench: paneLink('bench', Infinity) };
  const opts = sameFile ? { step: at.step, rank: at.rank, format, micro } : { format: file.format };
  if (!(await openFile(file.run, file.tag, opts))) return false;
  const version = get().fileVersion;
  const meta = get().meta;
  if (!meta) return false;
  if (isEmptyGraph(meta)) {
    carriedPastEmpty = { fileVersion: version, selection, panes };
    return false;
  }
  const kept = selection ? await revealNode(selection.side, selection.id, selection.positions, { quiet: true }) : false;
  // After the selection (as a link does), so the carried viewport is applied after the selection's locate.
  if (get().fileVersion === version) {
    planView(sameFile ? panes : { npu: { ...panes.npu, view: null }, bench: { ...panes.bench, view: null } });
  }
  return kept;
}
