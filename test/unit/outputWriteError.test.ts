import { describe, expect, it } from 'vitest';
import { DbWriteError } from '../../server/graph/dbWorker.js';
import { outputWriteError, writingTo } from '../../server/graph/outputFiles.js';
import { GraphFileError } from '../../server/store/graphStore.js';

// A full disk or a read-only directory while writing: one line naming the file the user asked for.
const errno = (code: string) => Object.assign(new Error(`${code}: something, write`), { code });

describe('output write errors', () => {
  it.each([
    [errno('ENOSPC'), 'the disk is full (ENOSPC)'],
    [new DbWriteError('database or disk is full', 'SQLITE_FULL'), 'the disk is full (SQLITE_FULL)'],
    [errno('EDQUOT'), 'the disk quota is exceeded (EDQUOT)'],
    [errno('EROFS'), 'the file system is read-only (EROFS)'],
    [new DbWriteError('attempt to write a readonly database', 'SQLITE_READONLY'), 'the file system is read-only (SQLITE_READONLY)'],
    [errno('EACCES'), 'permission denied (EACCES)'],
    [new DbWriteError('disk I/O error', 'SQLITE_IOERR_WRITE'), 'an I/O error occurred (SQLITE_IOERR_WRITE)'],
  ])('%s', async (e, problem) => {
    const mapped = outputWriteError('/out/compare_1.vis.db', e);
    expect(mapped).toBeInstanceOf(GraphFileError);
    expect((mapped as Error).message).toBe(`/out/compare_1.vis.db: The output file cannot be written: ${problem}.`);
    await expect(writingTo('/out/compare_1.vis.db', () => Promise.reject(e))).rejects.toThrow(mapped as Error);
  });

  it('leaves other errors as they are', () => {
    const bug = new TypeError('x is undefined');
    expect(outputWriteError('/out/f', bug)).toBe(bug);
    const other = errno('EBADF');
    expect(outputWriteError('/out/f', other)).toBe(other);
    const named = new GraphFileError('/in/dump.json', 'broken');
    expect(outputWriteError('/out/f', named)).toBe(named);
  });
});
