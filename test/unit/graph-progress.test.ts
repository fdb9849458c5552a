import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunProgress } from '../../server/graph/progress.js';

// The graph command's progress bar: quiet for the first second, then drawn on stderr (the bar's library is loaded
// only then), never with --quiet.

function terminal(): { stream: NodeJS.WriteStream; text: () => string } {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  Object.assign(stream, { isTTY: true, columns: 120, rows: 40 });
  return { stream, text: () => text };
}

afterEach(() => vi.useRealTimers());

describe('graph progress bar', () => {
  it('stays quiet for a second, then shows units done and nodes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t = terminal();
    const p = new RunProgress(4, false, t.stream);
    p.tick('step 0 rank 0', 100);
    expect(t.text()).toBe('');
    vi.setSystemTime(Date.now() + 1500);
    p.tick('step 0 rank 1', 50);
    await new Promise((r) => setImmediate(r));
    expect(t.text()).toMatch(/graph \[.*\] 2\/4 step 0 rank 1 \| 150 nodes/);
    p.stop();
  });

  it('draws nothing with --quiet', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t = terminal();
    const p = new RunProgress(2, true, t.stream);
    vi.setSystemTime(Date.now() + 5000);
    p.tick('x', 1);
    p.stop();
    await new Promise((r) => setImmediate(r));
    expect(t.text()).toBe('');
  });
});
