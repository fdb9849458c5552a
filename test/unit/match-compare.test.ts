import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import {
  ADD_MATCH_KEYS,
  compareMatched,
  formatRelativeErr,
  statFloat,
  unmatchedData,
  type CompareSide,
  type Items,
} from '../../src/core/match/index.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * One pair's comparison (reference-viewer.md §4.4) against Python itself: test/fixtures/match/compare-cases.json holds
 * statistics as files hold them (strings, numbers, null, "N/A", "inf", notes, percentages, exact "{:.4%}" ties, huge
 * and tiny ratios) and item lists of every shape, run through make_goldens.py's implementation.
 */

interface Case {
  task: string;
  npu: CompareSide;
  bench: CompareSide;
  expected: { ok: false; reason: string } | { ok: true; precision: [number, boolean]; inputData: Items; outputData: Items };
  unmatched?: { inputData: Items; outputData: Items };
}

const { cases } = parsePyJson(readFileSync(path.join(repoRoot, 'test/fixtures/match/compare-cases.json'), 'utf8')) as {
  cases: Case[];
};

function sameItems(actual: Items, expected: Items): void {
  expect(actual).toEqual(expected);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

describe('compareMatched against the Python goldens', () => {
  it('has summary, md5 and refused cases', () => {
    expect(cases.filter((c) => c.task === 'summary').length).toBeGreaterThan(40);
    expect(cases.filter((c) => c.task === 'md5').length).toBe(7);
    expect(cases.filter((c) => !c.expected.ok).map((c) => (c.expected as { reason: string }).reason)).toEqual(
      expect.arrayContaining(['emptyData', 'outputError', 'taskNotSupported']),
    );
  });

  cases.forEach((c, i) => {
    it(`case ${i} (${c.task}: ${JSON.stringify(Object.values(c.npu.outputData)[0] ?? null).slice(0, 60)})`, () => {
      const before = JSON.stringify([c.npu, c.bench]);
      const got = compareMatched(c.task, c.npu, c.bench);
      expect(JSON.stringify([c.npu, c.bench])).toBe(before); // nothing changed in place
      if (!c.expected.ok) {
        expect(got).toEqual({ ok: false, reason: c.expected.reason });
        return;
      }
      expect(got.ok).toBe(true);
      if (!got.ok) return;
      expect(got.precisionIndex).toBe(c.expected.precision[0]);
      expect(got.precisionIsInt).toBe(c.expected.precision[1]);
      sameItems(got.inputData, c.expected.inputData);
      sameItems(got.outputData, c.expected.outputData);
      if (c.unmatched) {
        sameItems(unmatchedData(got.inputData), c.unmatched.inputData);
        sameItems(unmatchedData(got.outputData), c.unmatched.outputData);
      }
    });
  });
});

describe('the number rules', () => {
  it('parses statistics like the original convert_to_float', () => {
    expect(statFloat('19.0')).toBe(19);
    expect(statFloat(' 3.5 ')).toBe(3.5);
    expect(statFloat('12.5%')).toBe(0.125);
    expect(statFloat('0.0%, 由于Mean小于1e-06, 建议不参考此相对误差')).toBe(0);
    expect(statFloat('1,5')).toBe(1);
    expect(statFloat('inf')).toBe(Infinity);
    expect(statFloat('-Infinity')).toBe(-Infinity);
    expect(statFloat('1_000')).toBe(1000);
    expect(statFloat(true)).toBe(1);
    for (const bad of ['N/A', 'nan', '', 'abc', null, undefined, [1], { a: 1 }]) expect(statFloat(bad)).toBeNaN();
  });

  it('formats relative errors as Python "{:.4%}" does, ties to even', () => {
    expect(formatRelativeErr(0.123456)).toBe('12.3456%');
    expect(formatRelativeErr(0)).toBe('0.0000%');
    expect(formatRelativeErr(0.0003125)).toBe('0.0312%'); // 0.03125 exactly after ×100: half-to-even
    expect(formatRelativeErr(Infinity)).toBe('inf%');
    expect(formatRelativeErr(NaN)).toBe('NaN');
    expect(formatRelativeErr(1e20)).toBe('10000000000000000000000.0000%');
  });

  it('adds the eight keys after the item’s own, and unmatch takes exactly those away', () => {
    const npu = { id: 'A', inputData: { 'A.input.0': { Max: '2', Min: '1', Mean: '1.5', Norm: '3', 'Max diff': '0.1' } }, outputData: { 'A.output.0': { Max: '4', Min: '0', Mean: '2', Norm: '5' } } };
    const bench = { id: 'B', inputData: { 'B.input.0': { Max: '1', Min: '1', Mean: '1', Norm: '4' } }, outputData: { 'B.output.0': { Max: '2', Min: '0', Mean: '2', Norm: '5' } } };
    const got = compareMatched('summary', npu, bench);
    if (!got.ok) throw new Error('expected a match');
    expect(Object.keys(got.inputData['A.input.0'])).toEqual(['Max', 'Min', 'Mean', 'Norm', 'Max diff', ...ADD_MATCH_KEYS]);
    expect(got.outputData['A.output.0']).toMatchObject({ MaxAbsErr: 2, MaxRelativeErr: '100.0000%', MinRelativeErr: '0.0000%' });
    expect(got.precisionIndex).toBe(1); // max relative error 1.0 is not clamped: the float stays
    expect(got.precisionIsInt).toBe(false);
    expect(unmatchedData(got.inputData)).toEqual(npu.inputData);
    expect(unmatchedData(got.outputData)).toEqual(npu.outputData);
  });

  it('refuses real-tensor and structure files', () => {
    const side = { id: 'A', inputData: {}, outputData: {} };
    for (const task of ['all', 'structure', '']) expect(compareMatched(task, side, side)).toEqual({ ok: false, reason: 'taskNotSupported' });
  });
});
