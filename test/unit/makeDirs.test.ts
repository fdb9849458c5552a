import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirs } from '../../server/makeDirs.js';
import { tempDir } from './graphGolden.js';

// mkdir -p for output and cache directories. Node 20's recursive mkdirSync spins forever under /proc; this one
// must answer there with the error, as everywhere else.
const root = tempDir('makedirs');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('makeDirs', () => {
  it('creates the missing levels and returns the outermost one it made', () => {
    const leaf = path.join(root, 'a/b/c');
    expect(makeDirs(leaf, 0o750)).toBe(path.join(root, 'a'));
    expect(fs.statSync(leaf).isDirectory()).toBe(true);
    expect(fs.statSync(path.join(root, 'a/b')).mode & 0o777).toBe(0o750);
    expect(makeDirs(leaf)).toBeUndefined();
  });

  it('throws ENOTDIR below a file and ENOENT where the file system refuses, without hanging', () => {
    fs.writeFileSync(path.join(root, 'file'), '');
    expect(() => makeDirs(path.join(root, 'file/x/y'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    if (fs.existsSync('/proc/self')) expect(() => makeDirs('/proc/probeboard-no-such/x')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
