import type { ChildrenResponse, GraphMeta, NodeDetail, Side } from '../../src/core/api/types.js';

/**
 * One opened graph file, answering the viewer's questions without handing out the whole file.
 * Implementations: `.vis` JSON (server/store/visJson) now; `.vis.db` SQLite and a streamed, indexed `.vis` later
 * (issue 4). Routes depend only on this interface, so a new format is a new implementation, not new routes.
 * Every method is synchronous and side-effect free for the caller: the server stays stateless per request.
 */
export interface GraphStore {
  meta(): GraphMeta;
  /**
   * Children of `nodeId` (root when undefined) in execution order. `micro` filters the root's children by
   * `micro_step_id` (-1 or undefined = all; children without a micro step are always kept).
   * Returns undefined when the node does not exist on that side.
   */
  children(q: { side: Side; nodeId?: string; micro?: number; step?: number; rank?: number }): ChildrenResponse | undefined;
  /** The full node record, or undefined when the node does not exist on that side. */
  node(q: { side: Side; nodeId: string; step?: number; rank?: number }): NodeDetail | undefined;
  /** Releases file handles; the store is not used afterwards. */
  close(): void;
}

/** A problem with the user's file: the server answers 4xx/5xx with `{error}` naming the file. */
export class GraphFileError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'GraphFileError';
  }
}
