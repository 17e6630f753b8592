/**
 * When a client is gone. Every upstream request of the gateway is tied to the client it serves:
 * the signal made here aborts the moment the client leaves (before the Pod check, during it, or
 * while the stream is relayed), and everything upstream ends with it, so a client that closes
 * never holds a stream slot or a host request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Aborts when the client of a plain request is gone: its response closed before it was finished
 * (the connection dropped), or its socket closed. A response that finished is no client gone.
 */
export function requestGone(req: IncomingMessage, res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  const check = () => {
    if (!res.writableFinished) gone.abort();
  };
  // A kept-alive connection carries many requests: its listener goes with each response.
  const socket = req.socket;
  socket.once('close', check);
  res.once('close', () => {
    socket.off('close', check);
    check();
  });
  if (socket.destroyed) check();
  return gone.signal;
}

/**
 * Aborts when the client of an upgrade is gone: its socket closed, failed, or ended its side (a
 * client that stops sending before the upgrade is answered has left; once the upgrade is relayed,
 * a TLS socket that ends closes too, as the gateway does not keep half-open connections).
 */
export function upgradeGone(socket: Duplex): AbortSignal {
  const gone = new AbortController();
  const abort = () => gone.abort();
  socket.once('close', abort);
  socket.once('end', abort);
  socket.once('error', abort);
  if (socket.destroyed || socket.readableEnded) abort();
  return gone.signal;
}
