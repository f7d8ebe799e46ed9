import type { RequestHandler } from 'express'
import { uiSignInRequestSchema, type UiSignInResponse } from '../../shared/api/ui-sign-in'
import { SIGN_IN_CODE_LIFETIME_MS, type SignInResult, type UiSignInCodes } from '../auth/ui-sign-in'
import { GatewayError, invalidRequest } from '../errors'
import { readJsonBody } from '../http/read-json-body'
import { sendJson } from '../http/send-json'

const PASTE_A_KEY = 'or paste an API key (`mortar keys create --name NAME --role owner`)'
const REFUSALS: Record<Exclude<SignInResult, { ok: true }>['reason'], string> = {
  used:
    'This UI link is no longer valid: it was already used. A link signs in one browser tab, once (a reload of that tab stays signed in). ' +
    `For another tab, restart \`mortar serve\` for a new link, ${PASTE_A_KEY}.`,
  expired:
    `This UI link is no longer valid: it expired (a link works for ${SIGN_IN_CODE_LIFETIME_MS / 60_000} minutes after \`mortar serve\` prints it). ` +
    `Restart \`mortar serve\` for a new link, ${PASTE_A_KEY}.`,
  unknown:
    'This UI link is no longer valid: this gateway did not issue it, so it has probably restarted since. ' +
    `Open the \`UI:\` link \`mortar serve\` printed when it started, ${PASTE_A_KEY}.`,
}

/**
 * POST /ui/sign-in `{code}`: the UI page trades the one-time code of its link for its tab's
 * credential (auth/ui-sign-in.ts). No key is needed — the code is the proof — but the front door's
 * Host and Origin checks apply, so no other web page can make the trade.
 */
export function uiSignIn(codes: UiSignInCodes): RequestHandler {
  return async (req, res) => {
    const parsed = uiSignInRequestSchema.safeParse((await readJsonBody(req, 1024)).value)
    if (!parsed.success) throw invalidRequest('The body must be {"code": "…"}, the code from the UI link.', 'code')
    const result = codes.exchange(parsed.data.code)
    if (!result.ok) {
      throw new GatewayError('invalid_sign_in_code', REFUSALS[result.reason])
    }
    res.setHeader('Cache-Control', 'no-store')
    sendJson(res, 200, { key: result.key } satisfies UiSignInResponse)
  }
}
