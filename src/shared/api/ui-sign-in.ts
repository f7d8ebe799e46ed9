import { z } from 'zod'

/**
 * The UI link's sign-in (docs/security.md#the-ui-links-one-time-code): `mortar serve` prints
 * `<url>/#code=…`; the page posts the code here once and gets its tab's credential.
 */
export const UI_SIGN_IN_PATH = '/ui/sign-in'
/** The fragment parameter of the UI link that carries the code. */
export const UI_SIGN_IN_FRAGMENT = 'code'

export const uiSignInRequestSchema = z.object({ code: z.string().min(1).max(200) })

export const uiSignInResponseSchema = z.object({
  /** A per-launch key for this tab only: kept in its sessionStorage, never in a URL. */
  key: z.string(),
})
export type UiSignInResponse = z.output<typeof uiSignInResponseSchema>
