/**
 * Messages of the realtime screens, both languages side by side so a screen's strings are edited in
 * one place; `zh.ts` and `en.ts` spread them in.
 */
export const zh = {
  realtimeUi: {
    title: '实时监测',
  },
}

export const en: typeof zh = {
  realtimeUi: {
    title: 'Realtime',
  },
}
