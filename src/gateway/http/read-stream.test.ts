import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { readStream } from './read-stream'

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
})
