import type { TableMode } from './columns.js';

/**
 * The advisor (msprobe-compare.md §7): the first failing row of the table (Accuracy `No`, md5 `Different`,
 * statistics `Warning`), its NPU name, and advice picked by substrings of that name.
 */

const ADVICE = {
  forwardInput:
    '1. Analyze the model to view the input source.\n2. Check whether an inplace API causes the output result to ' +
    'overwrite the input result. That is, the fault is actually caused by a computation error.\n3. The fault may be ' +
    'caused by memory corruption and further analysis is required.',
  forwardOutput: 'This is a forward API computation error. Check the computation implementation.',
  backwardInput: 'Check whether the forward computation result is affected.',
  backwardOutput: 'This is a backward API computation error. Check the computation implementation.',
  deterministic:
    'This torch api may be uncertainty in the calculation, can seed_all(mode=True) to enable deterministic computing.',
  batchNorm:
    'Torch API batch_norm input not fixed, the following suggestions may fix it:\n1. If use ' +
    'torch.nn.functional.batch_norm, you can set parameter training=False.\n2. If use torch.nn.BatchNormXXX, you can ' +
    'set parameter affine=False.\n3. Use seed_all(mode=True) to enable deterministic computing.',
  none: 'All data in comparison result meets the accuracy requirements.',
};

const NONDETERMINISTIC = ['conv2d', 'conv3d', 'matmul', 'nll_loss', 'layer_norm', 'lstm'];

export function adviceFor(name: string): string {
  let advice: string;
  const deterministic = () => (NONDETERMINISTIC.some((n) => name.includes(n)) ? ADVICE.deterministic : null);
  if (name.includes('forward')) {
    advice = name.includes('input') ? ADVICE.forwardInput : (deterministic() ?? ADVICE.forwardOutput);
  } else {
    advice = name.includes('input') ? ADVICE.backwardInput : (deterministic() ?? ADVICE.backwardOutput);
  }
  if (name.includes('Functional_batch_norm') && name.includes('forward_input.1')) advice = ADVICE.batchNorm;
  return advice;
}

const FAILING: Record<TableMode, string> = { all: 'No', md5: 'Different', summary: 'Warning' };

/** Watches the table as it is written and remembers the first failing row. */
export class AdvisorScan {
  private found: { line: number; name: string } | null = null;
  constructor(private readonly mode: TableMode) {}

  /** `result`: the Accuracy Reached or Not / Result cell of the row at table index `line`. */
  consider(line: number, name: string, result: unknown): void {
    if (!this.found && result === FAILING[this.mode]) this.found = { line, name };
  }

  /** The first failing row seen: its table index and NPU name. */
  get first(): { line: number; name: string } | null {
    return this.found;
  }

  /** Takes over a failing row found elsewhere (a part of the table written by another thread) if it comes first. */
  offer(found: { line: number; name: string } | null): void {
    if (found && (!this.found || found.line < this.found.line)) this.found = found;
  }

  /** The advisor file text: three lines, each ending in a newline. */
  text(): string {
    if (!this.found) return `Line: NA\nSuspect Nodes: NA\nExpert Advice: ${ADVICE.none}\n`;
    return `Line: ${this.found.line}\nSuspect Nodes: ${this.found.name}\nExpert Advice: ${adviceFor(this.found.name)}\n`;
  }
}
