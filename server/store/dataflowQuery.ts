import type { ChildrenResponse } from '../../src/core/api/types.js';
import { DATAFLOW_MAX_CHILDREN, inferDataflow } from '../../src/core/dataflow/inferEdges.js';
import type { ChildrenQuery, GraphStore } from './graphStore.js';

/**
 * `children?…&dataflow=1` on an msprobe graph (issue 16): the edges inferred among all the node's children (not only
 * the page asked for), from their input / output items read in one batch (GraphStore.items). A node with more than
 * DATAFLOW_MAX_CHILDREN children answers no edges and says why: reading that many records would hold up the server
 * for a picture nobody can read (the viewer splits such groups anyway). `total` is the node's child count after the
 * micro filter, as the children answer gives it. Undefined when the node does not exist.
 */
export function dataflowEdges(store: GraphStore, q: ChildrenQuery, total: number): Pick<ChildrenResponse, 'edges' | 'dataflowSkipped'> | undefined {
  if (total > DATAFLOW_MAX_CHILDREN) return { edges: [], dataflowSkipped: { reason: 'tooManyChildren', limit: DATAFLOW_MAX_CHILDREN } };
  const all = store.children({ ...q, offset: 0, limit: undefined });
  if (!all) return undefined;
  const ids = all.children.map((c) => c.id);
  const items = store.items({ side: q.side, ids, step: q.step, rank: q.rank });
  return { edges: inferDataflow(items.map((it, k) => it && { id: ids[k], ...it })) };
}
