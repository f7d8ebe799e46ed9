import type { IncomingMessage, ServerResponse } from 'node:http'
import { randomHex } from '../random-id'
import { HeaderName, MortarHeader } from '../../shared/api/headers'
import { setResponseHeader } from './response-head'

/** The longest client X-Request-Id echoed back: far above any trace ID, small enough to be harmless. */
export const MAX_CLIENT_REQUEST_ID_LENGTH = 1024

/**
 * What can be echoed as it came: visible ASCII and spaces. Control characters (tab, and CR, LF, NUL,
 * DEL, which Node's parser already refuses) could split or corrupt the response's headers. Bytes
 * above 0x7F are replaced too: Node reads them as Latin-1 and writes them back re-encoded as UTF-8,
 * so they could not come back as sent (and RFC 9110 makes such `obs-text` obsolete).
 */
const ECHOABLE = new RegExp(`^[\\x20-\\x7e]{1,${MAX_CLIENT_REQUEST_ID_LENGTH}}$`)

/**
 * Every response carries `X-Request-Id`: the client's own, echoed unchanged when it is printable
 * ASCII (spaces included) of at most 1,024 characters, else one Mortar makes. The SDKs report it as the request ID.
 */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): void {
  const sent = req.headers[MortarHeader.clientRequestId]
  const id = typeof sent === 'string' && ECHOABLE.test(sent) ? sent : 'req_' + randomHex(12)
  setResponseHeader(res, HeaderName.clientRequestId, id)
}
