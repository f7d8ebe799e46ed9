import type { MortarDesktopApi } from '../shared/ipc'

declare global {
  interface Window {
    /** Present only inside the Electron app; absent when the UI is opened in a plain browser. */
    readonly mortar?: MortarDesktopApi
  }
}

export {}
