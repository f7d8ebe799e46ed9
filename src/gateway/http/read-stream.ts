import type { Readable } from 'node:stream'

/**
 * A body that declared its length and has sent more than this is gathered in one buffer of that
 * length from then on, each chunk copied in as it comes, rather than joined at its end: joining
 * 8 MB at once held the event loop for ~20 ms (the copy touches fresh memory page by page), which
 * spread over the chunks is well under a millisecond each. Not before: a client that declares 8 MB
 * and sends little does not get 8 MB set aside for it.
 */
export const GATHER_IN_PLACE_AFTER_BYTES = 1024 * 1024

/**
 * A whole HTTP body (a request's or a model server's reply), up to `limit` bytes. Plain
 * `data`/`end` listeners rather than `for await`: the body usually comes in one chunk, and the
 * async iterator's promise per chunk was a measurable share of each request (docs/benchmark.md).
 *
 * Past the limit it stops: the stream is paused (what becomes of the rest is the caller's to say)
 * and `overflowed` is set, with the bytes read before. Rejects when the stream fails or closes
 * before its end (code ECONNRESET: the other side left).
 * `declaredBytes`: the length the body declared (Content-Length), when within the limit.
 */
export function readStream(stream: Readable, limit: number, declaredBytes?: number): Promise<{ bytes: Buffer; overflowed: boolean }> {
  return new Promise((resolve, reject) => {
    // Destroyed before it was read (its connection broke): no event will come.
    if (stream.destroyed) return reject(stream.errored ?? Object.assign(new Error('the connection closed before the body ended'), { code: 'ECONNRESET' }))
    let chunks: Buffer[] = []
    let size = 0
    /** The body's buffer once it is gathered in place; its first `size` bytes are the body's. */
    let gathered: Buffer | undefined
    const settle = (outcome: () => void) => {
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('error', onError)
      stream.off('close', onClose)
      outcome()
    }
    const bytes = () => (gathered !== undefined ? gathered.subarray(0, size) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) {
        stream.pause()
        settle(() => resolve({ bytes: bytes(), overflowed: true }))
        return
      }
      if (gathered !== undefined && size + chunk.length > gathered.length) {
        // More than it declared (a parser lets none through): joined at the end after all.
        chunks = [gathered.subarray(0, size)]
        gathered = undefined
      }
      if (gathered !== undefined) chunk.copy(gathered, size)
      else {
        chunks.push(chunk)
        if (declaredBytes !== undefined && size + chunk.length > GATHER_IN_PLACE_AFTER_BYTES && declaredBytes <= limit && declaredBytes >= size + chunk.length) {
          gathered = Buffer.allocUnsafe(declaredBytes)
          let at = 0
          for (const piece of chunks) at += piece.copy(gathered, at)
          chunks = []
        }
      }
      size += chunk.length
    }
    const onEnd = () => settle(() => resolve({ bytes: bytes(), overflowed: false }))
    const onError = (error: Error) => settle(() => reject(error))
    const onClose = () => settle(() => reject(Object.assign(new Error('the connection closed before the body ended'), { code: 'ECONNRESET' })))
    stream.on('data', onData)
    stream.on('end', onEnd)
    stream.on('error', onError)
    stream.on('close', onClose)
  })
}
