import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ExchangeRecorder, recorderOf, type RecorderHooks } from './exchange-recorder'

const servers: Array<ReturnType<typeof createServer>> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

describe('ExchangeRecorder', () => {
  it('is found by its request while the exchange runs and while it ends, and leaves the recorders once it has ended', async () => {
    let request: IncomingMessage | undefined
    const seen: { running?: ExchangeRecorder | undefined; ending?: ExchangeRecorder | undefined; after?: ExchangeRecorder | null } = {}
    const afterEnd = new Promise<void>((resolve) => {
      const hooks: RecorderHooks = {
        maxExchangeBytes: () => 1 << 20,
        started: () => undefined,
        changed: () => undefined,
        ended: (recorder) => {
          seen.ending = recorderOf(recorder.req)
          queueMicrotask(() => {
            seen.after = recorderOf(recorder.req) ?? null
            resolve()
          })
        },
      }
      const server = createServer((req, res) => {
        request = req
        new ExchangeRecorder(req, res, hooks)
        seen.running = recorderOf(req)
        res.end('ok')
      })
      servers.push(server)
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo
        void fetch(`http://127.0.0.1:${port}/`).then((response) => response.text())
      })
    })
    await afterEnd
    expect(request).toBeDefined()
    expect(seen.running).toBeInstanceOf(ExchangeRecorder)
    expect(seen.ending).toBe(seen.running)
    expect(seen.after).toBeNull()
  })
})
