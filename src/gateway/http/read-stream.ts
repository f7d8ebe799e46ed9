import type { Readable } from 'node:stream'

/**
 * A whole HTTP body (a request's or a model server's reply), up to `limit` bytes. Plain
 * `data`/`end` listeners rather than `for await`: the body usually comes in one chunk, and the
 * async iterator's promise per chunk was a measurable share of each request (docs/benchmark.md).
 *
 * Past the limit it stops: the stream is paused (so the sender's writes back up instead of racing
 * a reply that closes the connection) and `overflowed` is set, with the bytes read before. Rejects
 * when the stream fails or closes before its end (code ECONNRESET: the other side left).
 */
export function readStream(stream: Readable, limit: number): Promise<{ bytes: Buffer; overflowed: boolean }> {
  return new Promise((resolve, reject) => {
    // Destroyed before it was read (its connection broke): no event will come.
    if (stream.destroyed) return reject(stream.errored ?? Object.assign(new Error('the connection closed before the body ended'), { code: 'ECONNRESET' }))
    const chunks: Buffer[] = []
    let size = 0
    const settle = (outcome: () => void) => {
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('error', onError)
      stream.off('close', onClose)
      outcome()
    }
    const bytes = () => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) {
        stream.pause()
        settle(() => resolve({ bytes: bytes(), overflowed: true }))
        return
      }
      size += chunk.length
      chunks.push(chunk)
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
