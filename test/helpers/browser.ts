import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { describe } from 'vitest';
import { createApp } from '../../server/http/app.js';
import { serveApp } from './serveApp.js';
import { repoRoot } from './shared.js';

/**
 * Browser tests drive the system Chromium (never a downloaded one) against the real server started in-process.
 * A missing /usr/bin/chromium fails the suite with a clear message unless PROBEBOARD_SKIP_BROWSER=1.
 */
export const CHROMIUM_PATH = process.env.PROBEBOARD_CHROMIUM ?? '/usr/bin/chromium';
export const appDir = process.env.PROBEBOARD_APP_DIR ?? path.join(repoRoot, 'dist/app');
export const artifactsDir = path.join(repoRoot, 'test/artifacts');

export const describeBrowser: (name: string, fn: () => void) => void = (name, fn) => {
  const skip = process.env.PROBEBOARD_SKIP_BROWSER === '1';
  if (skip) return describe.skip(name, fn);
  const problems: string[] = [];
  if (!existsSync(CHROMIUM_PATH))
    problems.push(`${CHROMIUM_PATH} is missing: install it (apt-get install -y chromium) or set PROBEBOARD_SKIP_BROWSER=1`);
  if (!existsSync(path.join(appDir, 'index.html')))
    problems.push(`${appDir}/index.html is missing: run "npm run build:app" first (npm test does)`);
  if (problems.length === 0) return describe(name, fn);
  describe(name, () => {
    throw new Error(`${name}: ${problems.join('; ')}`);
  });
};

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

export interface TestServer {
  /** `http://127.0.0.1:<port>` without a trailing slash. */
  origin: string;
  logdir: string;
  close(): Promise<void>;
}

/** Copies `fixtureDirs` (repo-relative) into a fresh temp log dir, each under its base name, and serves it on port 0. */
export async function startTestServer(fixtureDirs: string[]): Promise<TestServer> {
  const logdir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-e2e-'));
  for (const dir of fixtureDirs) cpSync(path.join(repoRoot, dir), path.join(logdir, path.basename(dir)), { recursive: true });
  const served = await serveApp(createApp({ logdir, appDir }));
  return {
    origin: served.origin,
    logdir,
    close: () => served.close().finally(() => rmSync(logdir, { recursive: true, force: true })),
  };
}

export function screenshotPath(name: string): string {
  mkdirSync(artifactsDir, { recursive: true });
  return path.join(artifactsDir, `${name}.png`);
}
