import type { ChildrenResponse, FindResponse, GraphMeta, IoItem, NodeDetail, NodeSummary, Side, WorstResponse } from '../../src/core/api/types.js';
import type { FilterQuery, GraphSelector, SearchQuery } from './findQuery.js';
import type { RatedNodes, WorstQuery } from './worstQuery.js';
import { FileProblem } from '../../src/core/fileProblem.js';
import { WorkBudgetExceeded } from './workBudget.js';

/**
 * One opened graph file, answering the viewer's questions without handing out the whole file. Implementations:
 * `.vis` JSON held whole (server/store/visJson, small files and the reference for tests), `.vis` JSON through a
 * streamed index (server/store/visJsonIndex), `.vis.db` SQLite (server/store/visDb). Routes depend only on this
 * interface. Methods are synchronous: each answers from an index or a few small reads, never a whole-file walk.
 */
export interface GraphStore {
  /** Meta of the selected graph (`.vis.db`: step/rank; default the first of meta.steps / meta.ranks). */
  meta(q?: GraphSelector): GraphMeta;
  /**
   * Children of `nodeId` (root when undefined) in execution order. `micro` filters the root's children by
   * `micro_step_id` (-1 or undefined = all; children without a micro step are always kept). `offset` / `limit` page
   * through them; `total` counts them all (after the micro filter). Undefined when the node does not exist.
   */
  children(q: ChildrenQuery): ChildrenResponse | undefined;
  /** The full node record, or undefined when the node does not exist on that side. */
  node(q: { side: Side; nodeId: string } & GraphSelector): NodeDetail | undefined;
  /**
   * Many nodes' summaries at once, by id, in the order asked (undefined: not a node of the side, or the synthetic
   * unreachable group): from the index, without reading the records. Checks the request's work budget.
   */
  summaries(q: { side: Side; ids: readonly string[] } & GraphSelector): Array<NodeSummary | undefined>;
  /**
   * Many nodes' `input_data` / `output_data` items at once, without the rest of the records (paths, stacks): what the
   * match engine compares and the metric choice recomputes from.
   */
  items(q: { side: Side; ids: readonly string[] } & GraphSelector): Array<NodeItems | undefined>;
  search(q: SearchQuery): FindResponse;
  filter(q: FilterQuery): FindResponse;
  /** One page of the side's nodes with a finite precision value, worst first or in execution order (worstQuery.ts). */
  worst(q: WorstQuery): WorstResponse;
  /** The worst table's rated nodes in execution order, kept once built (worstQuery.ts RatedNodes). */
  rated(q: { side: Side } & GraphSelector): RatedNodes;
  /** Releases file handles; the store is not used afterwards. */
  close(): void;
}

export interface NodeItems {
  inputData: Record<string, IoItem>;
  outputData: Record<string, IoItem>;
}

export interface ChildrenQuery extends GraphSelector {
  side: Side;
  nodeId?: string;
  micro?: number;
  offset?: number;
  limit?: number;
}

/** A problem with the user's file: the server answers 4xx/5xx with `{error}` naming the file. */
export class GraphFileError extends FileProblem {
  override name = 'GraphFileError';
}

/** The file changed on disk after it was indexed or opened: answered 409; the next request re-opens it. */
export class StaleFileError extends GraphFileError {
  constructor(file: string) {
    super(file, 'the file changed on disk while it was being read; reload to open the new version');
    this.name = 'StaleFileError';
  }
}

/** Another process holds a lock on the file: answered 422 now, but not remembered, since it passes. */
export class LockedFileError extends GraphFileError {
  constructor(file: string, problem: string) {
    super(file, problem);
    this.name = 'LockedFileError';
  }
}

/** A step or rank that the `.vis.db` does not hold: answered 400. */
export class UnknownGraphError extends GraphFileError {
  constructor(
    file: string,
    readonly step: number,
    readonly rank: number,
  ) {
    super(file, `no graph for step ${step}, rank ${rank}`);
    this.name = 'UnknownGraphError';
  }
}

/** Pages a list as the children route does: offset clamped to the list, limit undefined = to the end. */
export function pageRange(total: number, offset = 0, limit?: number): [number, number] {
  const from = Math.min(Math.max(0, offset), total);
  const to = limit === undefined ? total : Math.min(total, from + Math.max(0, limit));
  return [from, to];
}

/**
 * Runs one store call so that whatever goes wrong on a damaged file reaches the route as a GraphFileError naming the
 * file (422), never a bare TypeError or RangeError (500); the work budget's stop passes through unchanged.
 */
export function guardStore<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof GraphFileError || e instanceof WorkBudgetExceeded) throw e;
    throw new GraphFileError(file, `cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
}
