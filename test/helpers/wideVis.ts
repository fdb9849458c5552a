import { writeFileSync } from 'node:fs';

/**
 * Writes a small compare `.vis` (msprobe-format.md §4.3) with one very wide module, for the scale browser tests:
 * root → [embed (3 leaves), WIDE (`children` leaves), head (2 leaves)], mirrored on the Bench side. Leaf `i` of WIDE
 * has precision (i % 10) / 10, every 7th leaf is unmatched, and one leaf (`needleAt`) has a unique name to search.
 */
export interface WideVis {
  rootId: string;
  wideId: string;
  /** Id of child `i` of the wide module. */
  leafId: (i: number) => string;
  needleId: string;
  /** Leaves of the wide module that are unmatched (no counterpart, no precision). */
  unmatched: number[];
}

export const WIDE_ID = 'Module.wide.WideBlock.forward.0';
const ROOT = 'DefaultModel';

const COLORS = {
  '#FFFCF3': { value: [0, 0.2], description: 'relative error' },
  '#FFEDBE': { value: [0.2, 0.4], description: 'relative error' },
  '#FFDC7F': { value: [0.4, 0.6], description: 'relative error' },
  '#FFC62E': { value: [0.6, 0.8], description: 'relative error' },
  '#FF704D': { value: [0.8, 1], description: 'relative error' },
  '#C7C7C7': { value: [], description: 'unmatched' },
};

export function writeWideVis(file: string, options: { children: number; needleAt?: number }): WideVis {
  const needleAt = options.needleAt ?? Math.floor(options.children * 0.6);
  const leafId = (i: number) => (i === needleAt ? `Torch.needle_op.${i}.forward` : `Torch.matmul.${i}.forward`);
  const unmatched: number[] = [];
  for (let i = 0; i < options.children; i++) if (i % 7 === 3) unmatched.push(i);
  const unmatchedSet = new Set(unmatched);

  const side = (isNpu: boolean) => {
    const nodes: Record<string, unknown> = {};
    const add = (id: string, upnode: string | null, subnodes: string[], nodeType: number, precision: number | null, matched: boolean, path: string[]) => {
      nodes[id] = {
        id,
        node_type: nodeType,
        input_data: {},
        output_data: {},
        upnode,
        subnodes,
        matched_node_link: matched ? [...path, id] : [],
        suggestions: {},
        stack_info: [],
        micro_step_id: 0,
        data: isNpu && precision !== null && matched ? { precision_index: precision } : {},
      };
    };
    const embed = 'Module.embed.Embedding.forward.0';
    const embedLeaves = ['Torch.embedding.0.forward', 'Torch.add.0.forward', 'Torch.dropout.0.forward'];
    const head = 'Module.head.Head.forward.0';
    const wideChildren = Array.from({ length: options.children }, (_, i) => leafId(i));
    add(ROOT, null, [embed, WIDE_ID, head], 0, null, true, []);
    add(embed, ROOT, embedLeaves, 0, 0.1, true, [ROOT]);
    for (const leaf of embedLeaves) add(leaf, embed, [], 1, 0.05, true, [ROOT, embed]);
    add(WIDE_ID, ROOT, wideChildren, 0, 0.5, true, [ROOT]);
    wideChildren.forEach((leaf, i) => add(leaf, WIDE_ID, [], 1, (i % 10) / 10, !unmatchedSet.has(i), [ROOT, WIDE_ID]));
    add(head, ROOT, ['Torch.linear.0.forward', 'Torch.softmax.0.forward'], 0, 0.9, true, [ROOT]);
    for (const leaf of ['Torch.linear.0.forward', 'Torch.softmax.0.forward']) add(leaf, head, [], 1, 0.95, true, [ROOT, head]);
    return { root: ROOT, dump_data_dir: null, node: nodes };
  };

  const doc = {
    NPU: side(true),
    Bench: side(false),
    ToolTip: JSON.stringify({ MaxRelativeErr: 'max relative error' }),
    Colors: COLORS,
    MicroSteps: 1,
    task: 'summary',
  };
  writeFileSync(file, JSON.stringify(doc));
  return { rootId: ROOT, wideId: WIDE_ID, leafId, needleId: leafId(needleAt), unmatched };
}
