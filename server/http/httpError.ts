import type { Message, MessageKey, MessageParams } from '../i18n/messages.js';

/**
 * An error a route answers with: a status and a message rendered in the request's language by the error handler.
 * `code`, when set, is sent beside the message (`{error, code}`) for clients that act on the kind of error
 * (src/core/api/overlay.ts: `overlayUnknown`, `fileChanged`…).
 */
export class HttpError extends Error {
  readonly body: Message;
  constructor(
    readonly status: number,
    key: MessageKey,
    params: MessageParams = {},
    readonly code?: string,
  ) {
    super(`${status} ${key}`);
    this.name = 'HttpError';
    this.body = { key, params };
  }
}
