import type { NextFunction, Request, Response } from 'express';
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

export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  next();
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * On a loopback bind, refuse requests whose Host is some other name: a web page can point its own domain at
 * 127.0.0.1 (DNS rebinding) and would otherwise read the user's graphs through the victim's browser.
 */
export function loopbackHostOnly(req: Request, _res: Response, next: NextFunction): void {
  const host = (req.headers.host ?? '').toLowerCase();
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  if (LOOPBACK_NAMES.has(name) || name.endsWith('.localhost')) return next();
  next(new HttpError(403, 'badHost', { host: host.slice(0, 100) }));
}
