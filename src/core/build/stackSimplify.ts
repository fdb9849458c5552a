import { classifyNodeOp } from './nodeOp.js';
import { NodeOp } from '../model/graph.js';

// The hook wrappers whose frame precedes the user's call line in an API stack.
const TEMPLATE_CALL = /\b(?:[A-Z][a-zA-Z]*Template|api_template|api_instance)\(/;

/**
 * The E2 stack simplification (2025-01 → 2025-09, msprobe-format.md §2.6), applied to stack.json before nodes
 * are made so that backward twins copy the simplified stack: a module keeps the first line that calls it
 * (`{name}(` with name = 4th segment from the end), an API the line after its hook template's frame.
 * Stacks without such a line stay whole.
 */
export function simplifyStacks(stacks: ReadonlyMap<string, string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, lines] of stacks) out.set(name, simplifyStack(name, lines));
  return out;
}

function simplifyStack(name: string, lines: string[]): string[] {
  const { op, known } = classifyNodeOp(name);
  // Unknown names fail msprobe's module pattern, so they take the API rule.
  if (op === NodeOp.module && known) {
    const parts = name.split('.');
    if (parts.length < 4) return lines;
    const call = parts[parts.length - 4] + '(';
    const line = lines.find((l) => l.includes(call));
    return line === undefined ? lines : [line];
  }
  for (let i = 0; i < lines.length - 1; i++) if (TEMPLATE_CALL.test(lines[i])) return [lines[i + 1]];
  return lines;
}
