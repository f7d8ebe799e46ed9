// Runs in the sandboxed preload. The renderer gets a narrow, named API (one method per IPC
// channel) and never ipcRenderer itself, so a compromised page cannot reach arbitrary channels.
import { contextBridge, ipcRenderer } from 'electron'
import { createDesktopApi } from '../shared/ipc'

const api = createDesktopApi((channel, ...args) => ipcRenderer.invoke(channel, ...args))

contextBridge.exposeInMainWorld('mortar', api)
