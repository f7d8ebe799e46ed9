import type { IncomingMessage } from 'node:http'

/** How long, and how much of, the rest of a refused body is read (and dropped), at most. */
export interface DrainBounds {
  readonly ms: number
  readonly bytes: number
}

export const DRAIN_REFUSED_BODY: DrainBounds = { ms: 5_000, bytes: 64 * 1024 * 1024 }

/**
 * Ends the connection of a request refused before its body was read (a 413) so that the client
 * gets the refusal whatever it is still sending: the rest of the body is read and dropped, and the
 * connection is closed once it has all come, once the client closes its side, or when the bounds
 * above run out.
 *
 * Node's server closes a `Connection: close` connection as soon as the answer is flushed. Closing
 * a socket with the client's bytes still unread makes the kernel answer with a reset, and a client
 * still writing its body then fails on that write before it reads the answer — "connection reset"
 * rather than the 413 — which is every client that sends its whole body before reading (Python's
 * requests, curl with a slow reader). A server must half-close and read on in that case.
 */
export function closeAfterBody(req: IncomingMessage, bounds: DrainBounds = DRAIN_REFUSED_BODY): void {
  const socket = req.socket
  let dropped = 0
  // A client that keeps sending past the bounds has had the refusal long since: reset.
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > bounds.bytes) socket.destroy()
  })
  req.resume()
  if (req.readableEnded) return
  // Node's server calls `destroySoon` on this socket after the last answer: end it, then destroy it
  // when it is flushed. Here the destroy waits for the body's end too.
  const destroyWhenFlushed = socket.destroySoon.bind(socket)
  socket.destroySoon = () => {
    socket.end()
    if (req.readableEnded) return destroyWhenFlushed()
    const close = () => {
      clearTimeout(timer)
      req.off('end', close)
      socket.off('end', close)
      socket.off('close', close)
      destroyWhenFlushed()
    }
    const timer = setTimeout(close, bounds.ms).unref()
    req.once('end', close)
    socket.once('end', close)
    socket.once('close', close)
  }
}
