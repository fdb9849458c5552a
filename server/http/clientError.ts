import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { translate, type Lang, type MessageKey } from '../i18n/messages.js';
import { SECURITY_HEADERS } from './security.js';

/**
 * Requests Node's parser rejects (malformed request line, headers over the limit, header timeout) never reach
 * Express: by default Node answers a bare 400/431 with no security headers and no body. Answer them like every
 * other error instead: the security headers and a JSON `{error}`, then drop the connection.
 */
export function answerClientErrors(server: Server, lang: Lang): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node does: never write into a response already under way (it would corrupt what the peer reads).
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      const status = statusFor(err.code);
      const body = JSON.stringify({ error: translate(lang, { key: messageFor(status), params: {} }) });
      const head = [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        ...Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}`),
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Cache-Control: no-store',
        'Connection: close',
      ];
      // Destroyed once flushed; a peer that never reads gets a second to take it.
      socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
      setTimeout(() => socket.destroy(), 1000).unref();
    } else {
      socket.destroy();
    }
  });
}

function statusFor(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return 413;
  return 400;
}

function messageFor(status: number): MessageKey {
  if (status === 431) return 'headersTooLarge';
  if (status === 408) return 'requestTimeout';
  return 'malformedRequest';
}
