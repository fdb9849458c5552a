import { describe, expect, it } from 'vitest';
import { nodeInputOutput } from '../../src/core/formats/dumpItems.js';
import { parseDumpJson } from '../../src/core/formats/dumpJson.js';
import { formatItems } from '../../src/core/formats/itemFormat.js';
import type { PyValue } from '../../src/core/formats/pyJson.js';

// msprobe-format.md §2.5 (flattening) and §4.1 (export formatting), on hand-made dump entries.
function entry(name: string, json: string): PyValue {
  return parseDumpJson(`{"task": "statistics", "data": {"${name}": ${json}}}`).data.get(name)!;
}

const T = (extra = '') =>
  `{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2, 3], "Max": 2.6875, "Min": -0.5, "Mean": 0.000316619873046875, "Norm": 2512.0, "requires_grad": true${extra}}`;

function formatted(name: string, json: string, era: 'db' | 'vis202507' = 'db', md5Mode = false) {
  const data = nodeInputOutput(entry(name, json), name);
  const fmt = (m: typeof data.inputData) => Object.fromEntries([...formatItems(m, name, { era, md5Mode })].map(([k, v]) => [k, Object.fromEntries(v)]));
  return { input: fmt(data.inputData), output: fmt(data.outputData) };
}

describe('dump entry → items', () => {
  it('names nested list, kwarg and output items as msprobe does', () => {
    const name = 'Torch.cat.0.forward';
    const { input, output } = formatted(name, `{"input_args": [[${T()}, ${T()}]], "input_kwargs": {"dim": {"type": "int", "value": 0}}, "output": [${T()}]}`);
    expect(Object.keys(input)).toEqual([`${name}.input.0.0`, `${name}.input.0.1`, `${name}.input.dim`]);
    expect(Object.keys(output)).toEqual([`${name}.output.0`]);
    expect(output[`${name}.output.0`]).toEqual({
      type: 'torch.Tensor',
      dtype: 'torch.float32',
      shape: '[2, 3]',
      Max: '2.6875',
      Min: '-0.5',
      Mean: '0.000317',
      Norm: '2512.0',
      requires_grad: 'True',
      data_name: '-1',
    });
  });

  it('formats a scalar argument with its Python type (db era)', () => {
    const { input } = formatted('Tensor.__add__.0.forward', `{"input_args": [${T()}, {"type": "int", "value": 1}], "output": []}`);
    const item = input['Tensor.__add__.0.forward.input.1'];
    expect(Object.entries(item)).toEqual(
      Object.entries({
        type: 'int',
        value: '1',
        data_name: '-1',
        requires_grad: 'null',
        Max: '1',
        Min: '1',
        Mean: '1',
        Norm: '1',
        dtype: '<class int>',
        shape: '[]',
      }),
    );
  });

  it('keeps `state` and drops `requires_grad` in the 2025-07 JSON era', () => {
    const { input } = formatted('Tensor.__add__.0.forward', `{"input_args": [${T()}, {"type": "float", "value": 1e-07}]}`, 'vis202507');
    expect(Object.keys(input['Tensor.__add__.0.forward.input.0'])).toEqual([
      'type', 'dtype', 'shape', 'Max', 'Min', 'Mean', 'Norm', 'data_name', 'state',
    ]);
    expect(input['Tensor.__add__.0.forward.input.1']).toEqual({
      type: 'float',
      value: '1.000000e-07',
      data_name: '-1',
      state: 'input',
      Max: '1.000000e-07',
      Min: '1.000000e-07',
      Mean: '1.000000e-07',
      Norm: '1.000000e-07',
      dtype: '<class float>',
      shape: '[]',
    });
  });

  it('writes a None argument, a slice and a torch.Size as {"value": "null"} (their Max is None)', () => {
    const name = 'Tensor.__getitem__.0.forward';
    const { input } = formatted(name, `{"input_args": [null, {"type": "slice", "value": [0, null, 1]}, {"type": "torch.Size", "value": [2, 3]}]}`);
    expect(Object.values(input)).toEqual([{ value: 'null' }, { value: 'null' }, { value: 'null' }]);
  });

  it('handles ellipsis, rank arguments, process groups and md5 mode', () => {
    const name = 'Distributed.send.0.forward';
    const json = `{"input_args": [{"type": "ellipsis", "value": "..."}], "input_kwargs": {"dst": {"type": "int", "value": 1}, "group": {"type": "torch.ProcessGroup", "group_ranks": [0, 1], "group_id": "5a4d31ad"}}}`;
    const { input } = formatted(name, json, 'db', true);
    expect(input[`${name}.input.0`]).toMatchObject({ dtype: 'ellipsis', shape: '[]', Max: '...', md5: '1a43b61b' });
    expect(input[`${name}.input.dst`]).toMatchObject({ dtype: 'int', shape: '[]', Max: '1', md5: '1' });
    expect(input[`${name}.input.group`]).toEqual({ type: 'torch.ProcessGroup', group_ranks: '[0, 1]', group_id: '5a4d31ad', data_name: '-1' });
  });

  it('keys real-tensor items by file name and fills md5 from crc32 of the value', () => {
    const name = 'Cell.fc.Dense.forward.0';
    const { input, output } = formatted(name, `{"input_args": [${T(', "data_name": "Cell.fc.Dense.forward.0.input.0.npy"')}], "output": [{"type": "bool", "value": false}]}`, 'db', true);
    expect(Object.keys(input)).toEqual(['Cell.fc.Dense.forward.0.input.0']);
    expect(input['Cell.fc.Dense.forward.0.input.0'].md5).toBe('00000000');
    expect(output['Cell.fc.Dense.forward.0.output.0']).toMatchObject({ value: 'False', Max: 'False', dtype: '<class bool>', md5: 'ea0c4734' });
  });

  it('puts parameters and parameter gradients (old and new names) in input_data', () => {
    const mod = 'Module.fc.Linear';
    expect(Object.keys(formatted(`${mod}.forward.0`, `{"input_args": [${T()}], "output": [${T()}], "parameters": {"weight": ${T()}, "bias": ${T()}}}`).input)).toEqual([
      `${mod}.forward.0.input.0`,
      `${mod}.forward.0.parameters.weight`,
      `${mod}.forward.0.parameters.bias`,
    ]);
    expect(Object.keys(formatted(`${mod}.parameters_grad`, `{"weight": [${T()}], "bias": [${T()}]}`).input)).toEqual([
      `${mod}.parameters_grad.weight`,
      `${mod}.parameters_grad.bias`,
    ]);
    expect(Object.keys(formatted(`${mod}.parameters_grad.0`, `{"weight": [${T()}]}`).input)).toEqual([`${mod}.parameters_grad.0.weight`]);
  });

  it('files a dict-shaped output under input_data (msprobe quirk: no ".output." in its name)', () => {
    const { input, output } = formatted('Module.head.Head.forward.0', `{"output": ${T()}}`);
    expect(Object.keys(input)).toEqual(['Module.head.Head.forward.0.output']);
    expect(output).toEqual({});
  });

  it('formats bool, NaN and infinite statistics and long decimals in strings', () => {
    const name = 'Tensor.x.0.forward';
    const json = `{"output": [{"type": "torch.Tensor", "dtype": "torch.bool", "shape": [], "Max": false, "Min": NaN, "Mean": Infinity, "Norm": "23.076923076923077%"}]}`;
    expect(formatted(name, json).output[`${name}.output.0`]).toMatchObject({ Max: 'False', Min: 'nan', Mean: 'inf', Norm: '23.076923%' });
  });
});
