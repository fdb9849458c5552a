import type { IoItem, NodeDetail } from '../../src/core/api/types.js';

/** A node record as `/api/graph/node` answers it, with numbered input/output items (for rule tests without a file). */
export function nodeDetail(id: string, precisionIndex: number | null, outputs: IoItem[], inputs: IoItem[] = [], nodeType = 1): NodeDetail {
  return {
    id,
    nodeType,
    precisionIndex,
    overflowLevel: null,
    matchedNodeLink: [id],
    childCount: 0,
    microStepId: null,
    side: 'npu',
    upnode: null,
    path: [],
    inputData: Object.fromEntries(inputs.map((item, i) => [`${id}.input.${i}`, item])),
    outputData: Object.fromEntries(outputs.map((item, i) => [`${id}.output.${i}`, item])),
    stackInfo: [],
    suggestions: {},
    parallelMergeInfo: [],
    matchedDistributed: null,
  };
}
