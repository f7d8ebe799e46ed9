// Runs in the sandboxed preload. The renderer gets a narrow, named API (one method per IPC
// channel of src/shared/ipc.ts) and never ipcRenderer itself, so a compromised page cannot
// reach arbitrary channels. Main checks the sender and the arguments of every call.
import { contextBridge, ipcRenderer } from 'electron'
import { createDesktopApi } from '../shared/ipc'

const api = createDesktopApi((channel, ...args) => ipcRenderer.invoke(channel, ...args))

contextBridge.exposeInMainWorld('mortar', api)
