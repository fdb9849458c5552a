import { describe, expect, it } from 'vitest';
import { SaveJob, SaveJobs } from '../../server/overlay/saveJobs.js';

/**
 * The save route's bookkeeping (server/overlay/saveJobs.ts): a save still running after a request's wait is answered
 * 202 with its progress and kept for exactly the client that was told so; its answer (or error) goes to that
 * client's next request, and an identical request nobody was told to make starts a save of its own.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A save that reports half done at once and ends after `ms` with `value` (or throws it when it is an Error). */
function slowSave(ms: number, value: string | Error): SaveJob<string> {
  return new SaveJob<string>(async (job, progress) => {
    job.file = 'run/x.vis.db';
    job.bytesTotal = 1000;
    progress(0.5);
    await sleep(ms);
    if (value instanceof Error) throw value;
    return value;
  });
}

describe('SaveJobs', () => {
  it('a save longer than the wait: 202 with the progress, then the answer to the client that asks again', async () => {
    const jobs = new SaveJobs<string>();
    const job = slowSave(1600, 'saved');
    const pending: Array<{ share: number; file: string; total: number }> = [];
    const report = (j: SaveJob<string>) => pending.push({ share: j.share, file: j.file, total: j.bytesTotal });
    expect(await jobs.answer('k', job, report)).toBeNull();
    expect(pending).toEqual([{ share: 0.5, file: 'run/x.vis.db', total: 1000 }]);
    // Another key, or the same key twice for one 202, is not this client's.
    expect(jobs.claim('other')).toBeUndefined();
    const again = jobs.claim('k');
    expect(again).toBe(job);
    expect(jobs.claim('k')).toBeUndefined();
    expect(await jobs.answer('k', again!, report)).toBe('saved');
    expect(pending).toHaveLength(1);
    // Answered: an identical request later is a new save.
    expect(jobs.claim('k')).toBeUndefined();
  }, 10_000);

  it('two clients with identical saves under way each get their own answer', async () => {
    const jobs = new SaveJobs<string>();
    const first = slowSave(1300, 'first');
    const second = slowSave(2600, 'second');
    const [a, b] = await Promise.all([jobs.answer('k', first, () => {}), jobs.answer('k', second, () => {})]);
    expect([a, b]).toEqual([null, null]);
    const [c, d] = [jobs.claim('k')!, jobs.claim('k')!];
    expect(new Set([c, d])).toEqual(new Set([first, second]));
    expect(jobs.claim('k')).toBeUndefined();
    expect(await Promise.all([jobs.answer('k', first, () => {}), jobs.answer('k', second, () => {})])).toEqual(['first', null]);
    expect(await jobs.answer('k', jobs.claim('k')!, () => {})).toBe('second');
    expect(jobs.claim('k')).toBeUndefined();
  }, 10_000);

  it('a save that fails after a 202 gives its error to the next request; a quick one answers at once', async () => {
    const jobs = new SaveJobs<string>();
    const failing = slowSave(1200, new Error('disk full'));
    expect(await jobs.answer('k', failing, () => {})).toBeNull();
    await sleep(1500);
    // Ended between the asks: kept until its client comes back.
    await expect(jobs.answer('k', jobs.claim('k')!, () => {})).rejects.toThrow('disk full');
    expect(jobs.claim('k')).toBeUndefined();
    const quick = slowSave(10, 'fast');
    let told = false;
    expect(await jobs.answer('q', quick, () => (told = true))).toBe('fast');
    expect(told).toBe(false);
    expect(jobs.claim('q')).toBeUndefined();
  }, 10_000);
});
