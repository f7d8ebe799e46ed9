import { PassThrough } from 'node:stream'
import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { GATHER_IN_PLACE_AFTER_BYTES, readStream } from './read-stream'

afterEach(() => {
  vi.restoreAllMocks()
})

/** A body of `size` random bytes, written to a stream in chunks of 64 KB (ended unless told not to); returns the body. */
function writeInChunks(stream: PassThrough, size: number, end = true): Buffer {
  const body = randomBytes(size)
  for (let at = 0; at < size; at += 65_536) stream.write(body.subarray(at, at + 65_536))
  if (end) stream.end()
  return body
}

describe('readStream', () => {
  it('joins the chunks of a body up to its end', async () => {
    const stream = new PassThrough()
    const reading = readStream(stream, 10)
    stream.write('hello ')
    stream.end('body')
    expect(await reading).toEqual({ bytes: Buffer.from('hello body'), overflowed: false })
  })

  it('stops past the limit: paused, with what came before', async () => {
    const stream = new PassThrough()
    const reading = readStream(stream, 8)
    stream.write('12345')
    stream.write('67890')
    const result = await reading
    expect(result).toEqual({ bytes: Buffer.from('12345'), overflowed: true })
    expect(stream.isPaused()).toBe(true)
    expect(stream.listenerCount('data')).toBe(0)
  })

  it('rejects with ECONNRESET when the stream closes before its end', async () => {
    const stream = new PassThrough()
    const reading = readStream(stream, 100)
    stream.write('part')
    stream.destroy()
    await expect(reading).rejects.toMatchObject({ code: 'ECONNRESET' })
  })

  it('rejects with the stream error', async () => {
    const stream = new PassThrough()
    const reading = readStream(stream, 100)
    stream.destroy(Object.assign(new Error('boom'), { code: 'EPIPE' }))
    await expect(reading).rejects.toMatchObject({ code: 'EPIPE' })
  })

  it('gathers a large body that declared its length in place, chunk by chunk, never joining it', async () => {
    const concat = vi.spyOn(Buffer, 'concat')
    const stream = new PassThrough()
    const size = 3 * GATHER_IN_PLACE_AFTER_BYTES + 12_345
    const reading = readStream(stream, 8 * GATHER_IN_PLACE_AFTER_BYTES, size)
    const body = writeInChunks(stream, size)
    const result = await reading
    expect(result.overflowed).toBe(false)
    expect(result.bytes.equals(body)).toBe(true)
    expect(concat).not.toHaveBeenCalled()
  })

  it('takes a body longer or shorter than it declared whole, and stops one past the limit', async () => {
    for (const [declared, size] of [
      [GATHER_IN_PLACE_AFTER_BYTES + 200_000, 2 * GATHER_IN_PLACE_AFTER_BYTES],
      [3 * GATHER_IN_PLACE_AFTER_BYTES, 2 * GATHER_IN_PLACE_AFTER_BYTES],
    ] as const) {
      const stream = new PassThrough()
      const reading = readStream(stream, 4 * GATHER_IN_PLACE_AFTER_BYTES, declared)
      const body = writeInChunks(stream, size)
      const result = await reading
      expect(result.overflowed).toBe(false)
      expect(result.bytes.equals(body)).toBe(true)
    }
    const stream = new PassThrough()
    const limit = 2 * GATHER_IN_PLACE_AFTER_BYTES
    const reading = readStream(stream, limit, limit)
    const body = writeInChunks(stream, limit + 65_536, false)
    const result = await reading
    expect(result.overflowed).toBe(true)
    expect(result.bytes.equals(body.subarray(0, limit))).toBe(true)
  })
})
