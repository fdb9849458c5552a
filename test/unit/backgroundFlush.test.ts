import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackgroundFlush } from '../../server/backgroundFlush.js';
import { writeFileSynced } from '../../server/graph/outputFiles.js';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'probeboard-flush-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const openFds = () => fs.readdirSync('/proc/self/fd').length;

/** Lets the event loop run until `done` holds (the flushes' callbacks come only then). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('background flushes of a synced output', () => {
  it('a file written in one synchronous go comes out whole, and its descriptor is closed by the last flush', async () => {
    const file = path.join(work, 'big.vis');
    const before = openFds();
    const chunk = 'x'.repeat(1 << 20) + '\n';
    // 20 MiB without a turn of the event loop: the flushes' callbacks cannot run while it is written.
    const bytes = writeFileSynced(file, (write) => {
      for (let i = 0; i < 20; i++) write(chunk);
    });
    expect(bytes).toBe(20 * chunk.length);
    expect(fs.statSync(file).size).toBe(bytes);
    expect(fs.readFileSync(file, 'latin1')).toBe(chunk.repeat(20));
    await until(() => openFds() === before);
    expect(openFds()).toBe(before);
  });

  it('starts a flush each time the file grew by the step, none in between', async () => {
    const fd = fs.openSync(path.join(work, 'steps'), 'w');
    const flush = new BackgroundFlush(fd, 100);
    for (const total of [50, 99, 100, 150, 199, 250, 1000]) flush.wrote(total);
    // at 100, 250 and 1000
    expect(flush.started).toBe(3);
    expect(flush.closeWhenDone()).toBe(true);
    const before = openFds();
    await until(() => openFds() < before);
    expect(openFds()).toBe(before - 1);
  });

  it('leaves the descriptor to its writer when nothing is running', () => {
    const fd = fs.openSync(path.join(work, 'none'), 'w');
    const flush = new BackgroundFlush(fd, 1 << 20);
    flush.wrote(10);
    expect(flush.started).toBe(0);
    expect(flush.closeWhenDone()).toBe(false);
    fs.closeSync(fd);
  });
});
