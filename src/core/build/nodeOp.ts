import { NodeOp, type NodeOpValue } from '../model/graph.js';

/**
 * msprobe's NodeOp classification of a dump name (msprobe-format.md §1.8): the first anchored pattern that matches.
 * The patterns' dots are unescaped regex dots, so `Tensor.` also matches `Tensor1` (any character but a newline);
 * this is reproduced on purpose, since msprobe's own test dumps rely on it.
 */
const MODULE_PREFIXES = ['Module.', 'Cell.', 'optimizer', 'clip_grad'].map(compilePrefix);
const API_PREFIXES = [
  'Tensor.', 'Torch.', 'Functional.', 'NPU.', 'VF.', 'Distributed.', 'Aten.', 'Mint.', 'Primitive.', 'Jit.',
  'MintFunctional.', 'MindSpeed.',
].map(compilePrefix);

/** A pattern's literal stem, and whether a final regex dot (any character but a newline) follows it. */
interface Prefix {
  stem: string;
  anyChar: boolean;
}

function compilePrefix(pattern: string): Prefix {
  return pattern.endsWith('.') ? { stem: pattern.slice(0, -1), anyChar: true } : { stem: pattern, anyChar: false };
}

function matchesPrefix(name: string, p: Prefix): boolean {
  if (!p.anyChar) return name.startsWith(p.stem);
  const at = p.stem.length;
  return name.length > at && name.charCodeAt(at) !== 0x0a && name.startsWith(p.stem);
}

const MODULE: { op: NodeOpValue; known: boolean } = Object.freeze({ op: NodeOp.module, known: true });
const API: { op: NodeOpValue; known: boolean } = Object.freeze({ op: NodeOp.functionApi, known: true });
const UNKNOWN: { op: NodeOpValue; known: boolean } = Object.freeze({ op: NodeOp.module, known: false });

/** `known` is false when no pattern matched: msprobe then warns and treats the node as a module. */
export function classifyNodeOp(name: string): { readonly op: NodeOpValue; readonly known: boolean } {
  for (const p of MODULE_PREFIXES) if (matchesPrefix(name, p)) return MODULE;
  for (const p of API_PREFIXES) if (matchesPrefix(name, p)) return API;
  return UNKNOWN;
}
