// Electron main process: owns the gateway's lifetime, one window onto it, and a tray icon.
//
// The UI is an ordinary web page served by the gateway (the same page a browser gets from
// `mortar serve`), so this file's job is mostly containment and lifecycle: the window runs
// sandboxed with no Node (window.ts), and only the app's own page may call the IPC channels of
// src/shared/ipc.ts, through the guard in ipc-handlers.ts. The window gets a per-launch key
// (in memory only) over IPC, never in a URL.
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { app, BrowserWindow, dialog, ipcMain } from 'electron'
import { startGatewayServer, type GatewayServer } from '../gateway/server'
import { setGatewayV8Flags } from '../gateway/v8-flags'
import type { DesktopSettings } from '../shared/desktop-settings'
import { ipcChannels, type GatewayInfo } from '../shared/ipc'
import { gatewayOptions, isPortInUse, portFromEnv, type GatewayPaths } from './gateway-options'
import { createIpcDispatcher, createIpcHandlers, isSameOrigin } from './ipc-handlers'
import { checkModelServer } from './model-server-check'
import { SettingsFile } from './settings-file'
import { MortarTray } from './tray'
import type { TrayState } from './tray-state'
import { createWindow, focusWindow, guardNavigation, installContentSecurityPolicy } from './window'

setGatewayV8Flags()

// A close that waits on a long-lived stream must not keep the app from quitting.
const GATEWAY_CLOSE_TIMEOUT_MS = 3_000
const TRAY_REFRESH_MS = 2_000

const settingsFile = new SettingsFile(join(app.getPath('userData'), 'settings.json'), (message) =>
  console.warn(`Mortar: ${message}`),
)

let gateway: GatewayServer | null = null
let gatewayInfo: GatewayInfo = { url: '', ok: false, key: null, error: null }
let trayState: TrayState = { status: 'starting', url: '', live: 0 }
let mainWindow: BrowserWindow | null = null
let tray: MortarTray | null = null
let quitting = false
// Origin of the page the window shows: the gateway in production, Vite's server in dev.
// Empty until startup has chosen it, so nothing counts as "ours" before then.
let appOrigin = ''
let rendererUrl = ''

const isAppUrl = (url: string): boolean => isSameOrigin(url, appOrigin)

function registerIpc(): void {
  const handlers = createIpcHandlers({
    gatewayInfo: () => gatewayInfo,
    settings: settingsFile,
    testModelServer: (url) => checkModelServer(url),
    relaunch: () => {
      app.relaunch()
      app.quit()
    },
  })
  const dispatch = createIpcDispatcher(handlers, isAppUrl, (message) => console.warn(`Mortar: ${message}`))
  for (const channel of ipcChannels) {
    ipcMain.handle(channel, (event, ...args: unknown[]) =>
      dispatch(channel, { url: event.senderFrame?.url, isMainFrame: event.senderFrame?.parent === null }, args),
    )
  }
}

function openWindow(): void {
  if (rendererUrl === '') return
  if (mainWindow !== null && !mainWindow.isDestroyed()) {
    focusWindow(mainWindow)
    return
  }
  const window = createWindow(rendererUrl)
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = null
  })
  mainWindow = window
}

function setTrayState(state: Partial<TrayState>): void {
  trayState = { ...trayState, ...state }
  tray?.update(trayState)
}

function createTray(): void {
  try {
    tray = new MortarTray({ open: openWindow, quit: () => app.quit() })
    tray.update(trayState)
    setInterval(() => setTrayState({ live: gateway?.gateway.generations.size ?? 0 }), TRAY_REFRESH_MS).unref()
  } catch (error) {
    // Some Linux desktops have no tray; the app then quits when its window closes.
    console.warn('Mortar: no tray icon:', error)
    tray = null
  }
}

/**
 * Starts the gateway on the configured port. When the port is taken (by `mortar serve`, another
 * user's Mortar, or anything else), asks whether to use a free port instead, once or from now on.
 */
async function startGateway(settings: DesktopSettings, paths: GatewayPaths): Promise<GatewayServer | null> {
  const port = portFromEnv(process.env) ?? settings.gateway.port
  const { host } = settings.gateway
  const start = (p: number) => startGatewayServer(gatewayOptions(settings.gateway, paths, process.env, p))
  try {
    return await start(port)
  } catch (error) {
    if (!isPortInUse(error)) {
      failedToStart(`${host}:${port}`, error)
      return null
    }
  }
  const { response } = await dialog.showMessageBox({
    type: 'warning',
    title: 'Mortar',
    message: `Port ${port} on ${host} is already in use.`,
    detail:
      'Another program is listening there: perhaps `mortar serve`, or a Mortar started by another user. ' +
      'Mortar can start on a free port instead. IDE tools set up for the old port will then need the new URL ' +
      '(Settings shows it). You can also pick a port in Settings.',
    buttons: ['Use a free port this time', 'Use a free port from now on', 'Quit'],
    defaultId: 0,
    cancelId: 2,
    noLink: true,
  })
  if (response === 2) return null
  try {
    const server = await start(0)
    if (response === 1) settingsFile.write({ ...settings, gateway: { ...settings.gateway, port: server.port } })
    return server
  } catch (error) {
    failedToStart(`${host} (any free port)`, error)
    return null
  }
}

function failedToStart(where: string, error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error)
  gatewayInfo = { ...gatewayInfo, ok: false, error: reason }
  setTrayState({ status: 'failed' })
  dialog.showErrorBox('Mortar could not start', `The local gateway did not start on ${where}.\n\n${reason}`)
}

async function start(): Promise<void> {
  // Set by `electron-vite dev`: the renderer then comes from Vite (hot reload), not the gateway.
  const devRendererUrl = process.env.ELECTRON_RENDERER_URL || undefined
  const settings = settingsFile.read()
  createTray()
  const server = await startGateway(settings, {
    userData: app.getPath('userData'),
    rendererDir: devRendererUrl === undefined ? join(__dirname, '../renderer') : undefined,
    devRendererUrl,
  })
  if (server === null) {
    app.quit()
    return
  }
  gateway = server
  gatewayInfo = { url: server.url, ok: true, key: server.keys.createEphemeral('desktop'), error: null }
  setTrayState({ status: 'running', url: server.url })

  rendererUrl = devRendererUrl ?? new URL('/', server.url).href
  appOrigin = new URL(rendererUrl).origin
  installContentSecurityPolicy(isAppUrl)
  registerIpc()
  openWindow()

  // macOS keeps the app alive without windows; clicking the dock icon brings one back.
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) openWindow()
  })
}

// A second copy would fight over the port and the home directory; hand off to the first.
if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', openWindow)
  guardNavigation(isAppUrl)

  app.on('window-all-closed', () => {
    if (process.platform === 'darwin') return
    // With a tray, the gateway keeps serving IDE tools; the tray's Quit ends it.
    if (!quitting && tray !== null && settingsFile.read().ui.keepRunningInTray) return
    app.quit()
  })

  // 'before-quit' cannot await, so hold the first quit, stop live streams and close the
  // gateway (server.close() ends each stream cleanly), then quit again.
  let closingGateway = false
  app.on('before-quit', (event) => {
    quitting = true
    if (gateway === null) {
      tray?.destroy()
      return
    }
    event.preventDefault()
    if (closingGateway) return
    closingGateway = true
    setTrayState({ status: 'stopping' })
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
