import { classifyNodeOp } from './nodeOp.js';
import { NodeOp } from '../model/graph.js';

// The hook wrapper whose frame precedes the user's call line in an API stack. The July-2025 release (the `--format
// vis` era) knew only the `…Template(` wrappers; `api_template(` / `api_instance(` came with the August-2025 rewrite
// (msprobe-format.md §2.6), so stacks of today's collector stay whole here, as that release wrote them.
const TEMPLATE_CALL = /\b[A-Z][a-zA-Z]*Template\(/;

/**
 * The E2 stack simplification (2025-01 → 2025-09, msprobe-format.md §2.6), applied to stack.json before nodes
 * are made so that backward twins copy the simplified stack: a module keeps the first line that calls it
 * (`{name}(` with name = 4th segment from the end), an API the line after its hook template's frame.
 * Stacks without such a line stay whole.
 */
export function simplifyStacks(stacks: ReadonlyMap<string, string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  // stack.json's equal stacks share one array (stackJson.ts); their simplified forms are shared the same way.
  const simplified = new Map<string[], Map<string, string[]>>();
  for (const [name, lines] of stacks) {
    const rule = ruleOf(name);
    if (rule === null) {
      out.set(name, lines);
      continue;
    }
    let byRule = simplified.get(lines);
    if (!byRule) simplified.set(lines, (byRule = new Map()));
    let result = byRule.get(rule);
    if (!result) byRule.set(rule, (result = simplifyStack(rule, lines)));
    out.set(name, result);
  }
  return out;
}

const API_RULE = '';

/** What the simplification of `name`'s stack depends on: `{call}(` for a module, API_RULE, or null (unchanged). */
function ruleOf(name: string): string | null {
  const { op, known } = classifyNodeOp(name);
  // Unknown names fail msprobe's module pattern, so they take the API rule.
  if (op === NodeOp.module && known) {
    const parts = name.split('.');
    if (parts.length < 4) return null;
    return parts[parts.length - 4] + '(';
  }
  return API_RULE;
}

function simplifyStack(rule: string, lines: string[]): string[] {
  if (rule !== API_RULE) {
    const line = lines.find((l) => l.includes(rule));
    return line === undefined ? lines : [line];
  }
  for (let i = 0; i < lines.length - 1; i++) if (TEMPLATE_CALL.test(lines[i])) return [lines[i + 1]];
  return lines;
}
