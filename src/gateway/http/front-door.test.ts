import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isUnderV1 } from './front-door'

/** The request target Express routed: to the router mounted at `/v1`, or past it. */
function routedBy(port: number, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: target, method: 'GET' }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve(text))
    })
    req.on('error', reject)
    req.end()
  })
}

// The front door asks for a key exactly where Express's `/v1` router would run; a URL one sees as
// under /v1 and the other not would reach an Express route without a known caller (or skip a key).
describe('isUnderV1', () => {
  let server: Server
  let port: number
  beforeAll(async () => {
    const app = express()
    const v1 = express.Router()
    v1.use((_req, res) => void res.end('v1'))
    app.use('/v1', v1)
    app.use((_req, res) => void res.end('other'))
    server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it.each([
    '/v1',
    '/v1/',
    '/V1/models',
    '/v1?x=1',
    '/v1/chat/completions',
    '/v1x',
    '/v10/models',
    '/v',
    '/',
    '/health',
    '//v1/models',
    '/%76%31/models',
    '/ui/sign-in',
    'http://127.0.0.1/v1/models',
    'http://127.0.0.1/health',
    '*',
  ])('agrees with Express on %s', async (target) => {
    expect(isUnderV1(target)).toBe((await routedBy(port, target)) === 'v1')
  })
})
