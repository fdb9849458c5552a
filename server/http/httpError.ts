import type { Message, MessageKey, MessageParams } from '../i18n/messages.js';

/** An error a route answers with: a status and a message rendered in the request's language by the error handler. */
export class HttpError extends Error {
  readonly body: Message;
  constructor(
    readonly status: number,
    key: MessageKey,
    params: MessageParams = {},
  ) {
    super(`${status} ${key}`);
    this.name = 'HttpError';
    this.body = { key, params };
  }
}
