import { createServer, request, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { sseComment, sseData } from './frames'
import { SseWriter } from './sse-writer'

/** A real response on a real socket, handed to the test once its client is connected. */
async function withResponse(use: (res: ServerResponse) => Promise<void>): Promise<void> {
  let handed: (res: ServerResponse) => void = () => undefined
  const got = new Promise<ServerResponse>((resolve) => (handed = resolve))
  const server = createServer((_req, res) => handed(res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const client = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/' }, (res) => res.resume())
  client.on('error', () => undefined)
  client.end()
  try {
    await use(await got)
  } finally {
    client.destroy()
    await new Promise((resolve) => server.close(resolve))
  }
}

/** A writer on a real response, opened, and the socket under it. */
async function withOpenedWriter(use: (writer: SseWriter, socket: Socket) => Promise<void>): Promise<void> {
  await withResponse(async (res) => {
    const socket = res.socket
    if (socket === null) throw new Error('no socket')
    const writer = new SseWriter(res)
    writer.open()
    await use(writer, socket)
  })
}

describe('SseWriter', () => {
  it('writes nothing once someone else ended the response (no write-after-end error)', async () => {
    await withResponse(async (res) => {
      const errors: unknown[] = []
      res.on('error', (error) => errors.push(error))
      const writer = new SseWriter(res)
      writer.open()
      await writer.comment('connected')
      res.end(': dropped\n\n') // as the telemetry bus does with a slow subscriber
      expect(writer.closed).toBe(true)
      await writer.comment('ping')
      await writer.end([sseData('[DONE]')])
      await new Promise((resolve) => setImmediate(resolve))
      expect(errors).toEqual([])
    })
  })

  it("holds the opening until the event loop's turn ends, so a first content read a few ticks later leaves in the same write", async () => {
    await withOpenedWriter(async (writer, socket) => {
      await writer.data('{"role":"assistant"}')
      // The first content comes after the stream starts flowing: ticks and promise jobs later.
      await new Promise((resolve) => process.nextTick(resolve))
      await Promise.resolve()
      await writer.data('{"content":"Hi"}')
      await new Promise((resolve) => process.nextTick(resolve))
      const heldBytes = socket.writableLength
      await new Promise((resolve) => setImmediate(resolve))
      // Held: the status line, headers and both frames, not yet handed to the kernel.
      expect(heldBytes).toBeGreaterThan(Buffer.byteLength(sseData('{"role":"assistant"}') + sseData('{"content":"Hi"}')))
      expect(socket.writableLength).toBe(0)
    })
  })

  it("hands a generation event's frames to the socket at once, not at the end of the tick; the opening still waits for its turn", async () => {
    await withOpenedWriter(async (writer, socket) => {
      await writer.event(sseData('{"content":"first"}'))
      // Still held with the opening.
      expect(socket.writableCorked).toBeGreaterThan(0)
      await new Promise((resolve) => setImmediate(resolve))
      expect(socket.writableCorked).toBe(0)
      // A frame written as other frames are is corked by Node until the tick's callbacks are done…
      await writer.frames(sseComment('a comment'))
      expect(socket.writableCorked).toBe(1)
      await new Promise((resolve) => process.nextTick(resolve))
      expect(socket.writableCorked).toBe(0)
      // …and an event's frames are not.
      await writer.event(sseData('{"content":"next"}'))
      expect(socket.writableCorked).toBe(0)
      expect(socket.writableLength).toBe(0)
    })
  })
})
