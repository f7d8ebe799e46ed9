// The window and what contains it: sandboxed, no Node, a CSP header, no navigation or new
// windows outside the app's origin.
import { join } from 'node:path'
import { app, BrowserWindow, session } from 'electron'

// Keep in step with the meta tag in src/renderer/index.html. Both apply (the stricter wins);
// the header exists because some directives (frame-ancestors) only work from a header.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "connect-src 'self' http://127.0.0.1:* http://localhost:*",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join('; ')

export const ICON_PATH = join(__dirname, '../../resources/icon.png')

// Appended to (never replacing) any CSP the gateway sends: policies intersect, so this can
// only tighten what the page may do.
export function installContentSecurityPolicy(isAppUrl: (url: string) => boolean): void {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    if (!isAppUrl(details.url)) {
      callback({})
      return
    }
    const headers = { ...details.responseHeaders }
    const name =
      Object.keys(headers).find((key) => key.toLowerCase() === 'content-security-policy') ??
      'Content-Security-Policy'
    headers[name] = [...(headers[name] ?? []), CONTENT_SECURITY_POLICY]
    callback({ responseHeaders: headers })
  })
}

// Applied to every webContents ever created (not just our window), so nothing can be
// steered to a remote page that would then run with the preload's API.
export function guardNavigation(isAppUrl: (url: string) => boolean): void {
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => {
      if (!isAppUrl(event.url)) event.preventDefault()
    })
    contents.on('will-attach-webview', (event) => event.preventDefault())
    contents.setWindowOpenHandler(() => ({ action: 'deny' }))
  })
}

export function createWindow(rendererUrl: string): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 560,
    title: 'Mortar',
    show: false, // shown on ready-to-show, to avoid a blank flash
    icon: ICON_PATH,
    autoHideMenuBar: true,
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      preload: join(__dirname, '../preload/index.js'),
    },
  })
  window.once('ready-to-show', () => window.show())
  window.loadURL(rendererUrl).catch((error: unknown) => {
    console.error(`Mortar: could not load ${rendererUrl}:`, error)
  })
  return window
}

export function focusWindow(window: BrowserWindow): void {
  if (window.isMinimized()) window.restore()
  window.show()
  window.focus()
}
