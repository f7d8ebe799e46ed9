// The only module that knows whether the UI runs inside the Electron app (the preload put
// `window.mortar` there) or in a plain browser tab opened on `mortar serve`. Everything else
// asks this module and stays the same in both.
import type { MortarDesktopApi } from '../../../shared/ipc'

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
