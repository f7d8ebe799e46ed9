import type { IncomingMessage, ServerResponse } from 'node:http'
import { randomHex } from '../random-id'
import { MortarHeader } from '../../shared/api/headers'

const CLIENT_ID_PATTERN = /^[\x21-\x7e]{1,200}$/

/**
 * Every response carries `X-Request-Id`: the client's own when it sent a sane one (printable
 * ASCII, at most 200 characters), else one Mortar makes. The SDKs report it as the request ID.
 */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): void {
  const sent = req.headers[MortarHeader.clientRequestId]
  const id = typeof sent === 'string' && CLIENT_ID_PATTERN.test(sent) ? sent : 'req_' + randomHex(12)
  res.setHeader('X-Request-Id', id)
}
