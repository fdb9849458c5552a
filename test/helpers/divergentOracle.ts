import { readFileSync } from 'node:fs';
import { parsePyJson } from '../../src/core/formats/pyJson.js';

/**
 * Issue 14's first divergent node read from a summary-compare `.vis` alone, by a plain reading of the rule (not the
 * server's code): NPU nodes in msprobe's red bucket [0.8, 1], in post-order; a node whose outputs all have the same
 * statistics as the Bench side's is passed over, one whose inputs score red (max relative error, NaN/±inf that
 * differ = 1) inherits; the first other one is the answer.
 */

type Item = Record<string, unknown>;
interface RawNode {
  subnodes?: string[];
  matched_node_link?: string[];
  input_data: Record<string, Item>;
  output_data: Record<string, Item>;
  data: { precision_index?: number };
}

const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v.replace('inf', 'Infinity')) : NaN);
const nonFinite = (item: Item) => !Number.isFinite(num(item.Max)) || !Number.isFinite(num(item.Min));
const same = (a: Item, b: Item | undefined) => !!b && ['Max', 'Min', 'Mean', 'Norm'].every((k) => Object.is(num(a[k]), num(b[k])));
/** Max relative error of the items (a fraction), 1 for NaN/±inf statistics that differ from the Bench side's. */
function worstItem(items: Record<string, Item>, bench: Record<string, Item>): number {
  const other = Object.values(bench);
  let worst = 0;
  Object.values(items).forEach((item, k) => {
    if (item.Max === undefined || item.Max === null) return;
    if (nonFinite(item)) worst = same(item, other[k]) ? worst : 1;
    else for (const c of ['MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr', 'NormRelativeErr']) worst = Math.max(worst, parseFloat(String(item[c])) / 100 || 0);
  });
  return Math.min(1, worst);
}

/** The file's red NPU nodes in post-order with their verdicts, the expected answer and every node's ancestors. */
export function divergentOracle(file: string) {
  const doc = parsePyJson(readFileSync(file, 'utf8')) as Record<string, any>;
  const npu = doc.NPU.node as Record<string, RawNode>;
  const bench = doc.Bench.node as Record<string, RawNode>;
  const post: string[] = [];
  const paths = new Map<string, string[]>();
  const visit = (id: string, up: string[]) => {
    paths.set(id, up);
    for (const c of npu[id].subnodes ?? []) visit(c, [...up, id]);
    post.push(id);
  };
  visit(doc.NPU.root, []);
  const red = (v: number | undefined) => typeof v === 'number' && v >= 0.8 && v <= 1;
  const verdicts = post
    .filter((id) => red(npu[id].data.precision_index))
    .map((id) => {
      const n = npu[id];
      const b = bench[n.matched_node_link!.at(-1)!];
      const identical = Object.values(n.output_data).every((item, k) => same(item, Object.values(b.output_data)[k]));
      const inherited = red(worstItem(n.input_data, b.input_data));
      return { id, identical, inherited, module: (n.subnodes ?? []).length > 0 };
    });
  return { verdicts, expected: verdicts.find((v) => !v.identical && !v.inherited)!, paths };
}
