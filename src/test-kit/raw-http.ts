import { connect } from 'node:net'
import { LOOPBACK } from './loopback'

export interface RawExchange {
  /** Every byte the server sent before the connection closed. */
  received: Buffer
  /** How the connection failed (ECONNRESET…), when it did not end cleanly. */
  error: NodeJS.ErrnoException | undefined
}

/**
 * Write exactly these bytes to a loopback port and read until the server closes the connection:
 * for requests no HTTP client will send (malformed, unfinished, byte-exact headers).
 */
export function rawExchange(port: number, bytes: string | Buffer): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, LOOPBACK)
    const received: Buffer[] = []
    let error: NodeJS.ErrnoException | undefined
    socket.on('data', (data: Buffer) => received.push(data))
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e))
    socket.on('close', () => resolve({ received: Buffer.concat(received), error }))
    socket.write(bytes)
  })
}
