import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The installed package's root, found by walking up from this module to the package.json named "probeboard".
 * Works from the bundle (dist/server/cli/main.js), from sources run through a TS loader (server/cli/*.ts), and
 * wherever npm puts the package.
 */
export function packageRoot(fromUrl: string = import.meta.url): string | null {
  let dir = path.dirname(fileURLToPath(fromUrl));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'probeboard') return dir;
      } catch {
        // an unreadable package.json on the way up is not ours; keep walking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The bundled example log dir (`examples/`), or null when the package has none. */
export function examplesDir(root = packageRoot()): string | null {
  const dir = root && path.join(root, 'examples');
  return dir && existsSync(dir) ? dir : null;
}

/** The vite output the server hands to browsers. */
export function appDir(root = packageRoot()): string {
  return path.join(root ?? process.cwd(), 'dist', 'app');
}
