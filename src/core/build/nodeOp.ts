import { NodeOp, type NodeOpValue } from '../model/graph.js';

/**
 * msprobe's NodeOp classification of a dump name (msprobe-format.md §1.8): the first anchored pattern that matches.
 * The patterns' dots are unescaped regex dots, so `Tensor.` also matches `Tensor1` (any character but a newline);
 * this is reproduced on purpose, since msprobe's own test dumps rely on it.
 */
const MODULE_PREFIXES = ['Module.', 'Cell.', 'optimizer', 'clip_grad'];
const API_PREFIXES = [
  'Tensor.', 'Torch.', 'Functional.', 'NPU.', 'VF.', 'Distributed.', 'Aten.', 'Mint.', 'Primitive.', 'Jit.',
  'MintFunctional.', 'MindSpeed.',
];

function matchesPrefix(name: string, pattern: string): boolean {
  if (!pattern.endsWith('.')) return name.startsWith(pattern);
  const word = pattern.length - 1;
  return name.length > word && name.charCodeAt(word) !== 0x0a && name.startsWith(pattern.slice(0, word));
}

/** `known` is false when no pattern matched: msprobe then warns and treats the node as a module. */
export function classifyNodeOp(name: string): { op: NodeOpValue; known: boolean } {
  for (const p of MODULE_PREFIXES) if (matchesPrefix(name, p)) return { op: NodeOp.module, known: true };
  for (const p of API_PREFIXES) if (matchesPrefix(name, p)) return { op: NodeOp.functionApi, known: true };
  return { op: NodeOp.module, known: false };
}
