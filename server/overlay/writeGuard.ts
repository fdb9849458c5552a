import type { NextFunction, Request, Response } from 'express';
import { HttpError } from '../http/httpError.js';

/**
 * The gate in front of every route that writes (issue 15: export a match config, save a matched file). A page on
 * another site can make the user's browser send a POST to this server (CSRF): the server holds no credentials to
 * steal, but it would write files in the user's log dir. So a write must be
 * - a POST with `Content-Type: application/json`: not a "simple" request, so a cross-site page cannot send it without
 *   a CORS preflight, which this server never grants;
 * - from this origin: `Sec-Fetch-Site` (browsers set it; pages cannot forge it) is `same-origin` or `none`, and an
 *   `Origin` other than `null` names the `Host` the request was sent to. Our pages are served with
 *   `Referrer-Policy: no-referrer`, under which browsers send `Origin: null` on same-origin POSTs, so `null` passes
 *   only with `Sec-Fetch-Site: same-origin`. Scripts (curl) send neither header and pass.
 * A read-only server (`serve --read_only`, or bound to other machines without `--writable`) answers 403 first.
 */
export function writeGuard(readOnly: boolean) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (readOnly) return next(new HttpError(403, 'readOnly', {}, 'readOnly'));
    const type = (req.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (req.method !== 'POST' || type !== 'application/json') return next(new HttpError(403, 'writeNotJson', {}, 'notSameOrigin'));
    const origin = crossSiteOrigin(req);
    if (origin !== null) return next(new HttpError(403, 'crossSite', { origin: origin.slice(0, 200) }, 'notSameOrigin'));
    next();
  };
}

/** The origin a request came from when it is not this server's, else null. */
function crossSiteOrigin(req: Request): string | null {
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site: ${site}`;
  const origin = req.get('origin');
  if (origin === undefined) return null;
  if (origin === 'null') return site === 'same-origin' ? null : 'Origin: null';
  try {
    const url = new URL(origin);
    // `URL.host` drops a default port, as a browser's Host header does.
    const same = (url.protocol === 'http:' || url.protocol === 'https:') && url.host === new URL(`http://${req.get('host') ?? ''}`).host;
    return same ? null : origin;
  } catch {
    return origin;
  }
}
