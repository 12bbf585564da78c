/**
 * Messages of the device screens, both languages side by side so a screen's strings are edited in
 * one place; `zh.ts` and `en.ts` spread them in.
 */
export const zh = {
  deviceUi: {
    title: '设备',
  },
}

export const en: typeof zh = {
  deviceUi: {
    title: 'Devices',
  },
}
