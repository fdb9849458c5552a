import type { RunsResponse, TagEntry } from '../../src/core/api/types.js';
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
}

/**
 * GET with the path sent exactly as written: fetch() would normalise `/../` and `%2e%2e` away before the request
 * leaves, and traversal tests need the server to see them.
 */
export function rawGet(port: number, rawPath: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The tags `/api/runs` lists for `run` (none when the run is not listed). */
export const tagsOf = (body: RunsResponse, run: string): TagEntry[] => body.runs.find((r) => r.run === run)?.tags ?? [];
