// The only module that knows whether the UI runs inside the Electron app (the preload put
// `window.mortar` there) or in a plain browser tab opened on `mortar serve`. Everything else
// asks this module and stays the same in both:
// - where the gateway is and which key to use (IPC in Electron; the page's origin and the key
//   from the `#key=` fragment, or typed in, in a browser);
// - where settings live (main's settings.json over IPC; localStorage, UI preferences only);
// - what only main can do (testing a model server, relaunching), null in a browser.
// API keys are not here: both manage them over the gateway's HTTP API (/v1/keys, gateway-client.ts).
import {
  defaultDesktopSettings,
  settingsFromStored,
  type DesktopSettings,
} from '../../../shared/desktop-settings'
import type { ModelServerCheck, MortarDesktopApi } from '../../../shared/ipc'

export interface Connection {
  /** Gateway base URL without a trailing slash ('' in a browser: the page's own origin). */
  baseUrl: string
  key: string
}

export type ConnectionSource =
  | { kind: 'ready'; connection: Connection; origin: 'desktop' | 'fragment' | 'session' }
  | { kind: 'needs-key'; baseUrl: string }
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
 * `mortar serve` prints the UI's URL with `#key=…`: fragments never reach a server or its logs.
 * The key moves to sessionStorage (this tab only, gone when it closes) and leaves the address
 * bar, so it is not bookmarked, shared in a screenshot or kept in history.
 */
function takeKeyFromFragment(): string | undefined {
  const fragment = window.location.hash.replace(/^#/, '')
  if (fragment === '') return undefined
  const key = new URLSearchParams(fragment).get('key')
  if (key === null || key === '') return undefined
  sessionStorage.setItem(KEY_STORAGE, key)
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search)
  return key
}

/** Where the gateway is and which key to use, as far as can be known without asking it. */
export async function resolveConnection(): Promise<ConnectionSource> {
  const api = desktopApi()
  if (api !== undefined) {
    const info = await api.gatewayGetInfo()
    if (!info.ok || info.key === null) return { kind: 'unavailable', message: info.error ?? 'The gateway is not running.' }
    return { kind: 'ready', connection: { baseUrl: info.url.replace(/\/+$/, ''), key: info.key }, origin: 'desktop' }
  }
  const fromFragment = takeKeyFromFragment()
  if (fromFragment !== undefined) return { kind: 'ready', connection: { baseUrl: '', key: fromFragment }, origin: 'fragment' }
  const stored = sessionStorage.getItem(KEY_STORAGE)
  if (stored !== null && stored !== '') return { kind: 'ready', connection: { baseUrl: '', key: stored }, origin: 'session' }
  return { kind: 'needs-key', baseUrl: '' }
}

/**
 * Calls back when a new UI link is opened in this tab: pasting it over the current address changes
 * only the fragment, which reloads nothing, so the page must notice by itself. Browser only.
 */
export function onNewUiLink(listener: () => void): () => void {
  if (desktopApi() !== undefined) return () => {}
  const handle = () => {
    if (new URLSearchParams(window.location.hash.replace(/^#/, '')).get('key')) listener()
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
