import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { once } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { closeAfterBody, type DrainBounds } from './close-after-body'

let server: Server | undefined

afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve())
  server = undefined
})

/**
 * A server that refuses every request at once, before reading its body, as the gateway's 413 does;
 * with the moment its side of the (one) connection is closed.
 */
async function refusingServer(bounds: DrainBounds): Promise<{ port: number; closed: Promise<void> }> {
  let closedNow: () => void = () => undefined
  const closed = new Promise<void>((resolve) => (closedNow = resolve))
  server = createServer((req, res) => {
    res.writeHead(413, { 'Content-Type': 'text/plain', 'Content-Length': '7', Connection: 'close' })
    closeAfterBody(req, bounds)
    res.end('refused')
  })
  server.on('connection', (socket: Socket) => socket.once('close', closedNow))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { port: (server.address() as AddressInfo).port, closed }
}

/** A client that keeps its side open and collects what comes back, until the connection is gone. */
async function client(port: number): Promise<{ socket: Socket; received: () => string; gone: Promise<void> }> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
  await once(socket, 'connect')
  let received = ''
  socket.on('data', (data: Buffer) => (received += data.toString('latin1')))
  // A reset surfaces as an error, then 'close'.
  socket.on('error', () => undefined)
  const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  return { socket, received: () => received, gone }
}

describe('closeAfterBody', () => {
  it('closes a connection whose client sends on past the byte bound, after the client had the answer', async () => {
    const bounds = { ms: 60_000, bytes: 1024 * 1024 }
    const { port, closed } = await refusingServer(bounds)
    const { socket, received, gone } = await client(port)
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n')
    const piece = Buffer.alloc(64 * 1024, 0x20)
    const framed = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
    let sent = 0
    let open = true
    void gone.then(() => (open = false))
    // Endless, paced by the socket: the gateway's bound ends it, not this loop.
    while (open) {
      sent += piece.length
      if (!socket.write(framed)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), gone])
    }
    await closed
    expect(received()).toMatch(/^HTTP\/1\.1 413 .*refused$/s)
    expect(sent).toBeGreaterThan(bounds.bytes)
  })

  it('closes a connection whose client stops sending, once the time bound runs out', async () => {
    const bounds = { ms: 50, bytes: 64 * 1024 * 1024 }
    const { port, closed } = await refusingServer(bounds)
    const { socket, received } = await client(port)
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n{"a":')
    // Without the bound this waits for the rest of the body forever (the test times out).
    await closed
    expect(received()).toMatch(/^HTTP\/1\.1 413 .*refused$/s)
  })

  it('closes the connection once the rest of the body has come', async () => {
    const { port, closed } = await refusingServer({ ms: 60_000, bytes: 64 * 1024 * 1024 })
    const { socket, received } = await client(port)
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n{"a":')
    await once(socket, 'end')
    expect(received()).toMatch(/^HTTP\/1\.1 413 .*refused$/s)
    socket.write('1}   ')
    await closed
  })
})
