// Electron main process: owns the gateway's lifetime and one window onto it.
//
// The UI is an ordinary web page served by the gateway (the same page a browser gets from
// `mortar serve`), so this file's job is mostly containment: the window runs sandboxed with
// no Node, may not navigate or open windows outside the app's origin, gets a CSP header,
// and only the app's own page may call the few IPC channels declared in src/shared/ipc.ts.
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { app, BrowserWindow, dialog, ipcMain, session, type IpcMainInvokeEvent } from 'electron'
import { startGatewayServer } from '../gateway/server'
import {
  ipcChannels,
  type GatewayInfo,
  type IpcArgs,
  type IpcChannel,
  type IpcResult,
} from '../shared/ipc'

// Loopback only: the gateway is a local tool and must never be reachable from the network.
const GATEWAY_HOST = '127.0.0.1'
const DEFAULT_GATEWAY_PORT = 7313
// A close that waits on a long-lived stream must not keep the app from quitting.
const GATEWAY_CLOSE_TIMEOUT_MS = 3_000

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

type Gateway = Awaited<ReturnType<typeof startGatewayServer>>
type IpcHandlers = {
  [C in IpcChannel]: (...args: IpcArgs<C>) => IpcResult<C> | Promise<IpcResult<C>>
}

let gateway: Gateway | null = null
let gatewayInfo: GatewayInfo = { url: '', ok: false }
let mainWindow: BrowserWindow | null = null
// Origin of the page the window shows: the gateway in production, Vite's server in dev.
// Empty until startup has chosen it, so nothing counts as "ours" before then.
let appOrigin = ''

// Typed as a full map over IpcChannels, so a new channel does not compile until handled here.
const ipcHandlers: IpcHandlers = {
  'gateway:get-info': () => gatewayInfo,
}

function isAppUrl(url: string): boolean {
  if (appOrigin === '') return false
  try {
    return new URL(url).origin === appOrigin
  } catch {
    return false
  }
}

// Any frame in any webContents can invoke a channel; only our own page may be answered.
// Arguments arrive from the renderer unchecked at runtime: a channel that takes any must
// validate them in its handler.
function registerIpcHandlers(handlers: IpcHandlers): void {
  for (const channel of ipcChannels) {
    const handler = handlers[channel] as (...args: unknown[]) => unknown
    ipcMain.handle(channel, (event: IpcMainInvokeEvent, ...args: unknown[]) => {
      const senderUrl = event.senderFrame?.url
      if (senderUrl === undefined || !isAppUrl(senderUrl)) {
        throw new Error(`Refused IPC '${channel}' from ${senderUrl ?? 'a closed frame'}`)
      }
      return handler(...args)
    })
  }
}

// Appended to (never replacing) any CSP the gateway sends: policies intersect, so this can
// only tighten what the page may do.
function installContentSecurityPolicy(): void {
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
function guardNavigation(): void {
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => {
      if (!isAppUrl(event.url)) event.preventDefault()
    })
    contents.setWindowOpenHandler(() => ({ action: 'deny' }))
  })
}

function createWindow(rendererUrl: string): BrowserWindow {
  const window = new BrowserWindow({
    width: 1100,
    height: 760,
    title: 'Mortar',
    show: false, // shown on ready-to-show, to avoid a blank flash
    icon: join(__dirname, '../../resources/icon.png'),
    autoHideMenuBar: true,
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      preload: join(__dirname, '../preload/index.js'),
    },
  })
  window.once('ready-to-show', () => window.show())
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = null
  })
  window.loadURL(rendererUrl).catch((error: unknown) => {
    console.error(`Mortar: could not load ${rendererUrl}:`, error)
  })
  return window
}

function gatewayPort(): number {
  // MORTAR_PORT lets a second copy (or a test) run beside the default one; 0 picks a free port.
  const port = Number(process.env.MORTAR_PORT ?? DEFAULT_GATEWAY_PORT)
  return Number.isInteger(port) && port >= 0 && port <= 65_535 ? port : DEFAULT_GATEWAY_PORT
}

async function start(): Promise<void> {
  // Set by `electron-vite dev`: the renderer then comes from Vite (hot reload), not the gateway.
  const devRendererUrl = process.env.ELECTRON_RENDERER_URL || undefined
  const port = gatewayPort()
  try {
    gateway = await startGatewayServer({
      host: GATEWAY_HOST,
      port,
      home: join(app.getPath('userData'), 'home'),
      ...(devRendererUrl === undefined ? { rendererDir: join(__dirname, '../renderer') } : {}),
    })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    dialog.showErrorBox(
      'Mortar could not start',
      `The local gateway did not start on ${GATEWAY_HOST}:${port}.\n\n${reason}`,
    )
    app.quit()
    return
  }
  gatewayInfo = { url: gateway.url, ok: true }

  const rendererUrl = devRendererUrl ?? new URL('/', gateway.url).href
  appOrigin = new URL(rendererUrl).origin
  installContentSecurityPolicy()
  registerIpcHandlers(ipcHandlers)
  mainWindow = createWindow(rendererUrl)

  // macOS keeps the app alive without windows; clicking the dock icon brings one back.
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow(rendererUrl)
  })
}

// A second copy would fight over the port and the home directory; hand off to the first.
if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => {
    if (mainWindow === null) return
    if (mainWindow.isMinimized()) mainWindow.restore()
    mainWindow.focus()
  })

  guardNavigation()

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })

  // 'before-quit' cannot await, so hold the first quit, close the gateway, then quit again.
  let closingGateway = false
  app.on('before-quit', (event) => {
    if (gateway === null) return
    event.preventDefault()
    if (closingGateway) return
    closingGateway = true
    const closing = gateway.close().catch((error: unknown) => {
      console.error('Mortar: the gateway did not close cleanly:', error)
    })
    void Promise.race([closing, delay(GATEWAY_CLOSE_TIMEOUT_MS)]).finally(() => {
      gateway = null
      app.quit()
    })
  })

  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      console.error('Mortar: failed to start:', error)
      app.exit(1)
    })
}
