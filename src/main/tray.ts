// The tray icon: the gateway's state at a glance, a way back to the window, and Quit. With
// "keep running in the tray" set, closing the window leaves the gateway serving IDE tools here.
// (Off by default: some Linux desktops show no tray icons, and the app would run on unseen.)
import { clipboard, Menu, nativeImage, Tray } from 'electron'
import { trayLabel, type TrayActions, type TrayState } from './tray-state'
import { ICON_PATH } from './window'

export class MortarTray {
  private readonly tray: Tray
  private last = ''

  constructor(private readonly actions: TrayActions) {
    const icon = nativeImage.createFromPath(ICON_PATH).resize({ width: 16, height: 16 })
    this.tray = new Tray(icon)
    this.tray.on('click', () => actions.open())
  }

  update(state: TrayState): void {
    const label = trayLabel(state)
    // Rebuilding the menu on every poll would flicker an open menu on some desktops.
    const key = `${label}|${state.status}`
    if (key === this.last) return
    this.last = key
    this.tray.setToolTip(label)
    this.tray.setContextMenu(
      Menu.buildFromTemplate([
        { label, enabled: false },
        { type: 'separator' },
        { label: 'Open Mortar', click: () => this.actions.open() },
        {
          label: 'Copy OpenAI base URL',
          enabled: state.status === 'running',
          click: () => clipboard.writeText(`${state.url}/v1`),
        },
        { type: 'separator' },
        { label: 'Quit Mortar', click: () => this.actions.quit() },
      ]),
    )
  }

  destroy(): void {
    this.tray.destroy()
  }
}
