import type { NextFunction, Request, Response } from 'express';
import { isIPv4, isIPv6 } from 'node:net';
import { HttpError } from './httpError.js';

/**
 * Headers on every response, errors and static files included. Stricter than the reference viewer's
 * (reference-viewer.md §4): no inline scripts (vite emits files), workers from blob: for the layout worker, and no
 * framing at all.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Also written by hand on Node's own error answers (clientError.ts), which bypass Express. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  next();
}

/** Loopback spellings of a bind address or Host name (brackets and IPv6 forms included); anything else is exposed. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (!isIPv6(h)) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (mapped) return mapped[1].startsWith('127.');
  // ::1 in any of its spellings (0:0:0:0:0:0:0:1, 0::1…): every group but the last is zero.
  const groups = h.split(':');
  return groups.at(-1)?.replace(/^0+/, '') === '1' && groups.slice(0, -1).every((g) => /^0*$/.test(g));
}

/**
 * On a loopback bind, refuse requests whose Host is some other name: a web page can point its own domain at
 * 127.0.0.1 (DNS rebinding) and would otherwise read the user's graphs through the victim's browser.
 */
export function loopbackHostOnly(req: Request, _res: Response, next: NextFunction): void {
  const host = (req.headers.host ?? '').toLowerCase();
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  if (isLoopbackHost(name)) return next();
  next(new HttpError(403, 'badHost', { host: host.slice(0, 100) }));
}
