import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLayerMapping, LAYER_MAPPING_FAILED, type LayerMappingSide } from '../../src/core/compare/layerMapping.js';
import { parsePyJson, type PyValue } from '../../src/core/formats/pyJson.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * -lm on msprobe's own MindSpore-vs-PyTorch test dumps (test/fixtures/compare/layer_mapping, copied from
 * ../shared/data/msprobe-dumps/ms_vs_pt). `data_mapping_golden.yaml` is what the original `compare -lm` derived
 * from the same api mapping (golden-compare/ms_pt_cross_lm), one line per parameter.
 */

const dir = path.join(repoRoot, 'test/fixtures/compare/layer_mapping');

function json(file: string): PyValue {
  return parsePyJson(readFileSync(file, 'utf8'), { mode: 'python', file }) as PyValue;
}

function side(name: string): LayerMappingSide {
  return {
    dump: json(path.join(dir, name, 'dump.json')),
    construct: json(path.join(dir, name, 'construct.json')),
    stack: json(path.join(dir, name, 'stack.json')),
    file: path.join(dir, name, 'dump.json'),
  };
}

const yaml = readFileSync(path.join(dir, 'layer_mapping.yaml'), 'utf8');

function opOf(itemName: string): string {
  const m = /^(.*?)\.(input|output|parameters|parameters_grad)\./.exec(itemName);
  return m ? m[1] : itemName;
}

describe('layer mapping (-lm)', () => {
  const { mapping, warning } = buildLayerMapping(side('mindspore_data'), side('pytorch_data'), yaml);

  it('reproduces the documented examples', () => {
    expect(warning).toBeNull();
    expect(mapping.get('Mint.logical_or.0.forward')).toBe('Tensor.__or__.0.forward');
    expect(mapping.get('Primitive.norm.RmsNorm.0.forward')).toBe('NPU.npu_rms_norm.0.forward');
    expect(mapping.get('Cell.network_with_loss.module.language_model.encoder.layers.0.attention.ParallelAttention.forward.0')).toBe(
      'Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.forward.0',
    );
    expect(mapping.get('Tensor.__bool__.1.forward')).toBe('N/A');
  });

  it('agrees with the data mapping the original derived from it, op by op', () => {
    const lines = readFileSync(path.join(dir, 'data_mapping_golden.yaml'), 'utf8').trim().split('\n');
    const opsWithTarget = new Map<string, string>();
    const allOps = new Set<string>();
    for (const line of lines) {
      const [npuItem, benchItem] = line.split(': ');
      const op = opOf(npuItem);
      allOps.add(op);
      if (benchItem !== 'N/A') opsWithTarget.set(op, opOf(benchItem));
    }
    expect(allOps.size).toBeGreaterThan(10);
    for (const op of allOps) {
      expect(mapping.has(op), op).toBe(true);
      if (opsWithTarget.has(op)) expect(mapping.get(op), op).toBe(opsWithTarget.get(op));
    }
    // forward add.0 has no PyTorch twin, so add.1 maps to the bench's add.0 (same ordinal in the same scope)
    expect(mapping.get('Tensor.__add__.0.forward')).toBe('N/A');
    expect(mapping.get('Tensor.__add__.1.forward')).toBe('Tensor.__add__.0.forward');
  });

  it('without a yaml only identical scopes map', () => {
    const plain = buildLayerMapping(side('mindspore_data'), side('pytorch_data'), null).mapping;
    expect(plain.get('Mint.logical_or.0.forward')).toBe('N/A');
    // top-level APIs need no rule
    expect(plain.get('Tensor.__add__.1.forward')).toBe('Tensor.__add__.0.forward');
    expect(plain.get('Distributed.all_reduce.0.forward')).toBe('N/A');
  });

  it('accepts the old `Cell` top-level key as `TopLayer`', () => {
    const cellYaml = yaml.replace(/^TopLayer:/m, 'Cell:');
    const m = buildLayerMapping(side('mindspore_data'), side('pytorch_data'), cellYaml).mapping;
    expect(m.get('Mint.logical_or.0.forward')).toBe('Tensor.__or__.0.forward');
  });

  it('a broken yaml gives msprobe warning and an empty mapping', () => {
    const r = buildLayerMapping(side('mindspore_data'), side('pytorch_data'), 'TopLayer: [unclosed');
    expect(r.warning).toBe(LAYER_MAPPING_FAILED);
    expect(r.mapping.size).toBe(0);
    const rule = buildLayerMapping(side('mindspore_data'), side('pytorch_data'), 'TopLayer:\n  a: 3\n');
    expect(rule.warning).toBe(LAYER_MAPPING_FAILED);
  });

  it('empty stack.json or construct.json: nothing to map', () => {
    const s = side('mindspore_data');
    const r = buildLayerMapping({ ...s, stack: new Map() }, side('pytorch_data'), yaml);
    expect(r.warning).toBeNull();
    expect(r.mapping.size).toBe(0);
  });

  it('renumbers ParallelTransformer layers from the smallest index (pipeline stages)', () => {
    const entry = new Map<string, PyValue>([['output', []]]);
    const mk = (prefix: string, names: string[]): LayerMappingSide => {
      const data = new Map<string, PyValue>(names.map((n) => [n, entry]));
      return {
        dump: new Map<string, PyValue>([
          ['framework', prefix === 'Cell' ? 'mindspore' : 'pytorch'],
          ['data', data],
        ]),
        construct: new Map<string, PyValue>(names.map((n) => [n, null])),
        stack: new Map<string, PyValue>([['x', ['File a.py, line 1, in f, \n x']]]),
        file: `${prefix}/dump.json`,
      };
    };
    const npu = mk('Cell', [
      'Cell.net.encoder.ParallelTransformer.forward.0',
      'Cell.net.encoder.layers.4.ParallelTransformerLayer.forward.0',
      'Cell.net.encoder.layers.5.ParallelTransformerLayer.forward.0',
    ]);
    const bench = mk('Module', [
      'Module.net.encoder.ParallelTransformer.forward.0',
      'Module.net.encoder.layers.0.ParallelTransformerLayer.forward.0',
      'Module.net.encoder.layers.1.ParallelTransformerLayer.forward.0',
    ]);
    const m = buildLayerMapping(npu, bench, null).mapping;
    expect(m.get('Cell.net.encoder.layers.4.ParallelTransformerLayer.forward.0')).toBe(
      'Module.net.encoder.layers.0.ParallelTransformerLayer.forward.0',
    );
    expect(m.get('Cell.net.encoder.layers.5.ParallelTransformerLayer.forward.0')).toBe(
      'Module.net.encoder.layers.1.ParallelTransformerLayer.forward.0',
    );
  });
});
