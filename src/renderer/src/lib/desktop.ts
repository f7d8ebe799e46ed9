// The only module that knows whether the UI runs inside the Electron app (the preload put
// `window.mortar` there) or in a plain browser tab opened on `mortar serve`. Everything else
// asks this module and stays the same in both:
// - where the gateway is and which key to use (IPC in Electron; the page's origin and the key
//   traded for the UI link's one-time `#code=`, or typed in, in a browser);
// - where settings live (main's settings.json over IPC; localStorage, UI preferences only);
// - what only main can do (testing a model server, relaunching), null in a browser.
// API keys are not here: both manage them over the gateway's HTTP API (/v1/keys, gateway-client.ts).
import {
  defaultDesktopSettings,
  settingsFromStored,
  type DesktopSettings,
} from '../../../shared/desktop-settings'
import { errorEnvelopeSchema } from '../../../shared/api/errors'
import { UI_SIGN_IN_FRAGMENT, UI_SIGN_IN_PATH, uiSignInResponseSchema } from '../../../shared/api/ui-sign-in'
import type { ModelServerCheck, MortarDesktopApi } from '../../../shared/ipc'

export interface Connection {
  /** Gateway base URL without a trailing slash ('' in a browser: the page's own origin). */
  baseUrl: string
  key: string
}

export type ConnectionSource =
  | { kind: 'ready'; connection: Connection; origin: 'desktop' | 'fragment' | 'session' }
  | { kind: 'needs-key'; baseUrl: string; problem?: string }
  | { kind: 'unavailable'; message: string }

const KEY_STORAGE = 'mortar.key'
const SETTINGS_STORAGE = 'mortar.settings'

function desktopApi(): MortarDesktopApi | undefined {
  return window.mortar
}

export function isDesktop(): boolean {
  return desktopApi() !== undefined
}

/**
 * Base URL for gateway requests, without a trailing slash. In a browser the page is served
 * by the gateway, so it is the page's own origin (''). In Electron, main reports the
 * gateway's URL, which differs from the page's origin in dev (Vite serves the page there).
 */
export async function gatewayBaseUrl(): Promise<string> {
  const api = desktopApi()
  if (api === undefined) return ''
  const info = await api.gatewayGetInfo()
  return info.url.replace(/\/+$/, '')
}

/**
 * `mortar serve` prints the UI's URL with `#code=…`: a one-time sign-in code, not a key, because
 * the URL stays in the browser's history (and history sync may carry it off the machine). The
 * code leaves the address bar at once and is traded once (POST /ui/sign-in) for this tab's
 * credential, kept in sessionStorage: this tab only, a reload stays signed in, gone when it closes.
 */
function takeCodeFromFragment(): string | undefined {
  const code = fragmentCode()
  if (code === undefined) return undefined
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search)
  return code
}

function fragmentCode(): string | undefined {
  const code = new URLSearchParams(window.location.hash.replace(/^#/, '')).get(UI_SIGN_IN_FRAGMENT)
  return code === null || code === '' ? undefined : code
}

type SignIn = { ok: true } | { ok: false; problem: string }

// One trade per code, however many times the connection is resolved meanwhile (React runs effects
// twice in development; the second run must wait for the first's trade, not find no code).
let pendingSignIn: Promise<SignIn> | undefined

async function signIn(code: string): Promise<SignIn> {
  const response = await fetch(UI_SIGN_IN_PATH, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code }),
    cache: 'no-store',
  })
  const body: unknown = await response.json().catch(() => undefined)
  const signedIn = uiSignInResponseSchema.safeParse(body)
  if (response.ok && signedIn.success) {
    sessionStorage.setItem(KEY_STORAGE, signedIn.data.key)
    return { ok: true }
  }
  const refused = errorEnvelopeSchema.safeParse(body)
  return { ok: false, problem: refused.success ? refused.data.error.message : `The gateway refused this UI link (HTTP ${response.status}).` }
}

/** Where the gateway is and which key to use, as far as can be known without asking it. */
export async function resolveConnection(): Promise<ConnectionSource> {
  const api = desktopApi()
  if (api !== undefined) {
    const info = await api.gatewayGetInfo()
    if (!info.ok || info.key === null) return { kind: 'unavailable', message: info.error ?? 'The gateway is not running.' }
    return { kind: 'ready', connection: { baseUrl: info.url.replace(/\/+$/, ''), key: info.key }, origin: 'desktop' }
  }
  const code = takeCodeFromFragment()
  if (code !== undefined) {
    pendingSignIn = signIn(code).finally(() => {
      pendingSignIn = undefined
    })
  }
  const signingIn = pendingSignIn
  if (signingIn !== undefined) {
    const result = await signingIn
    if (!result.ok) return { kind: 'needs-key', baseUrl: '', problem: result.problem }
  }
  const stored = sessionStorage.getItem(KEY_STORAGE)
  if (stored !== null && stored !== '') {
    return { kind: 'ready', connection: { baseUrl: '', key: stored }, origin: signingIn !== undefined ? 'fragment' : 'session' }
  }
  return { kind: 'needs-key', baseUrl: '' }
}

/**
 * Calls back when a new UI link is opened in this tab: pasting it over the current address changes
 * only the fragment, which reloads nothing, so the page must notice by itself. Browser only.
 */
export function onNewUiLink(listener: () => void): () => void {
  if (desktopApi() !== undefined) return () => {}
  const handle = () => {
    if (fragmentCode() !== undefined) listener()
  }
  window.addEventListener('hashchange', handle)
  return () => window.removeEventListener('hashchange', handle)
}

/** A key typed into the prompt (browser only: the desktop app always has its own). */
export function rememberKey(key: string): void {
  sessionStorage.setItem(KEY_STORAGE, key.trim())
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY_STORAGE)
}

/** Where settings are kept; in a browser only the UI preferences mean anything. */
export interface SettingsStore {
  scope: 'desktop' | 'browser'
  load(): Promise<DesktopSettings>
  save(settings: DesktopSettings): Promise<DesktopSettings>
}

export function settingsStore(): SettingsStore {
  const api = desktopApi()
  if (api !== undefined) {
    return { scope: 'desktop', load: () => api.settingsGet(), save: (settings) => api.settingsSet(settings) }
  }
  return {
    scope: 'browser',
    load: async () => {
      const raw = localStorage.getItem(SETTINGS_STORAGE)
      let stored: unknown
      try {
        stored = raw === null ? undefined : JSON.parse(raw)
      } catch {
        stored = undefined
      }
      return { ...settingsFromStored(stored), gateway: defaultDesktopSettings().gateway }
    },
    save: async (settings) => {
      localStorage.setItem(SETTINGS_STORAGE, JSON.stringify({ ui: settings.ui }))
      return settings
    },
  }
}

export interface DesktopControls {
  testModelServer(url: string): Promise<ModelServerCheck>
  relaunch(): Promise<void>
}

export function desktopControls(): DesktopControls | null {
  const api = desktopApi()
  if (api === undefined) return null
  return {
    testModelServer: (url) => api.settingsTestModelServer(url),
    relaunch: async () => {
      await api.appRelaunch()
    },
  }
}
