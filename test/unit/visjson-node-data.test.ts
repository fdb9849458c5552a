import { describe, expect, it } from 'vitest';
import { setMd5Result, setPrecisionIndex } from '../../src/core/compare/nodeResults.js';
import { nodeDataJson } from '../../src/core/formats/visJson.js';
import { PyFloat, renderPyJson, type JsonTree } from '../../src/core/formats/pyJsonWrite.js';
import { GraphNode, NodeOp } from '../../src/core/model/graph.js';

// A node's `data` object is written directly (every node has one); the generic writer on the same dict, built in
// msprobe's insertion order, is the oracle.
describe('a .vis node’s data object', () => {
  const indexes: Array<number | bigint | undefined> = [undefined, 0n, 1n, 1, 0.2307692307692308, NaN, -0, 1e-7];
  const results = [undefined, 'pass', 'Different'] as const;
  const levels = [undefined, 'medium', 'critical'] as const;

  it('is the text json.dumps writes for every combination, compact and indented at any level', () => {
    let cases = 0;
    for (const index of indexes)
      for (const result of results)
        for (const level of levels) {
          const node = new GraphNode('Module.m.M.forward.0', NodeOp.module);
          const dict = new Map<string, JsonTree>();
          if (index !== undefined) {
            setPrecisionIndex(node, index);
            dict.set('precision_index', typeof index === 'bigint' ? index : new PyFloat(index));
          }
          if (result !== undefined) {
            setMd5Result(node, result);
            dict.set('Result', result);
          }
          if (level !== undefined) {
            node.data.overflowLevel = level;
            dict.set('overflow_level', level);
          }
          for (const [indent, at] of [[null, 0], [4, 2], [4, 0], [2, 5]] as const) {
            expect(nodeDataJson(node, indent, at)).toBe(renderPyJson(dict, indent, at));
            cases++;
          }
        }
    expect(cases).toBe(indexes.length * results.length * levels.length * 4);
  });
});
